import { errnoError, errnoOf, FsError, isFsError } from "../../core/mod.ts";

// Deno errors usually carry a POSIX `code` beside their class name; a few arrive with the name only, and a
// permission-sandbox refusal (`NotCapable`) has no errno at all.
const byName: Record<string, string> = {
  NotFound: "ENOENT",
  NotADirectory: "ENOTDIR",
  IsADirectory: "EISDIR",
  AlreadyExists: "EEXIST",
  PermissionDenied: "EACCES",
  FilesystemLoop: "ELOOP",
  AbortError: "ABORT_ERR",
};

/** Maps a Deno failure to an FsError. */
export function mapDenoError(error: unknown): FsError {
  if (isFsError(error)) return error;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "NotCapable") {
    // Deno's message names the flag that would allow it ("run again with the --allow-read flag"); pass that on.
    const flag = /--allow-[a-z-]+/.exec(error instanceof Error ? error.message : "")?.[0];
    return new FsError("FS_PERMISSION_DENIED", `Deno's permissions do not allow it${flag ? `; the user can grant ${flag}` : ""}`, {
      cause: error,
      details: { errno: "NotCapable", ...(flag ? { flag } : {}) },
    });
  }
  return errnoError(errnoOf(error) ?? (typeof name === "string" ? byName[name] : undefined), error);
}

/** Runs a Deno call, mapping its failure. */
export async function denoCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw mapDenoError(error);
  }
}

/** True for the failures that mean "nothing is there": a missing entry or a file-valued parent. */
export function isAbsent(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  const errno = errnoOf(error);
  return name === "NotFound" || name === "NotADirectory" || errno === "ENOENT" || errno === "ENOTDIR";
}
