import { FsError, type FsErrorCode, isFsError } from "./errors.ts";

// POSIX error names shared by node:fs, memfs and Deno (which also sets `code`). Adapters pull the name out
// of their native error and hand it here, so the table exists once.
const table: Record<string, readonly [FsErrorCode, string]> = {
  ENOENT: ["FS_NOT_FOUND", "no such file or directory"],
  ENOTDIR: ["FS_NOT_FOUND", "a parent segment is not a directory"],
  EISDIR: ["FS_NOT_REGULAR_FILE", "it is a directory"],
  EACCES: ["FS_PERMISSION_DENIED", "permission denied"],
  EPERM: ["FS_PERMISSION_DENIED", "operation not permitted"],
  EROFS: ["FS_PERMISSION_DENIED", "read-only filesystem"],
  ELOOP: ["FS_IO_ERROR", "too many levels of symbolic links"],
  ENAMETOOLONG: ["FS_IO_ERROR", "name too long"],
  ENOSPC: ["FS_IO_ERROR", "no space left on device"],
  EEXIST: ["FS_EXISTS", "already exists"],
  ENOTEMPTY: ["FS_NOT_EMPTY", "directory not empty"],
  EMFILE: ["FS_IO_ERROR", "too many open files"],
  EIO: ["FS_IO_ERROR", "input/output error"],
  ABORT_ERR: ["FS_ABORTED", "aborted"],
};

/**
 * Builds the FsError for a native failure identified by its POSIX error name. The message is a short
 * phrase; core prefixes the action and the display path.
 */
export function errnoError(errno: string | undefined, cause: unknown): FsError {
  const known = errno === undefined ? undefined : table[errno];
  if (known) return new FsError(known[0], known[1], { cause, details: { errno } });
  const text = cause instanceof Error ? cause.message : String(cause);
  return new FsError("FS_IO_ERROR", errno ? `${errno}: ${text}` : text, { cause, details: { errno } });
}

/** The POSIX error name carried by a native error (`code`), with DOM-style aborts named `ABORT_ERR`. */
export function errnoOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (typeof code === "string") return code;
  return name === "AbortError" ? "ABORT_ERR" : undefined;
}

/** An FsError for any failure carrying a POSIX `code` (node:fs, memfs, Deno); FsErrors pass through. */
export function toFsError(error: unknown): FsError {
  return isFsError(error) ? error : errnoError(errnoOf(error), error);
}

/** True for the failures that mean "nothing is there": a missing entry or a file-valued parent. */
export function isAbsentError(error: unknown): boolean {
  const errno = errnoOf(error);
  return errno === "ENOENT" || errno === "ENOTDIR";
}
