import { CodedError, codedErrorGuard } from "../errors/mod.ts";

/**
 * The closed set of filesystem error codes. Consumers branch on `code`; messages may change, codes may not.
 * `FS_EXISTS`: a create or move refused because something already has the name (and no replace was asked).
 * `FS_NOT_EMPTY`: a directory to remove still has entries.
 */
export const FS_ERROR_CODES = [
  "FS_NOT_FOUND",
  "FS_NOT_DIRECTORY",
  "FS_NOT_TEXT",
  "FS_NOT_REGULAR_FILE",
  "FS_TOO_LARGE",
  "FS_PERMISSION_DENIED",
  "FS_SANDBOX_DENIED",
  "FS_IO_ERROR",
  "FS_STALE_VERSION",
  "FS_NOT_OBSERVED",
  "FS_AMBIGUOUS_EDIT",
  "FS_EDIT_NOT_FOUND",
  "FS_ABORTED",
  "FS_EXISTS",
  "FS_NOT_EMPTY",
] as const;

export type FsErrorCode = (typeof FS_ERROR_CODES)[number];

/** Structured facts about a failure, for hosts and UIs; the message stays the model-facing text. */
export interface FsErrorDetails {
  /** The display path the failure concerns, when there is one. */
  readonly path?: string;
  readonly [key: string]: unknown;
}

/** The one error class of the filesystem family: a stable `code` plus a message that says what to do next. */
export class FsError extends CodedError<FsErrorCode, FsErrorDetails> {
  override readonly name = "FsError";
}

/** True for an FsError, also one built by another copy of this library (another realm or bundle). */
export const isFsError: (value: unknown, code?: FsErrorCode) => value is FsError = codedErrorGuard<FsError>("FsError", FS_ERROR_CODES);

/** Throws `FS_ABORTED` when the signal has fired; the abort reason becomes the cause. */
export function throwIfAborted(signal: AbortSignal | undefined, path?: string): void {
  if (signal?.aborted) {
    throw new FsError("FS_ABORTED", path === undefined ? "Operation aborted" : `Operation on "${path}" aborted`, {
      cause: signal.reason,
      details: path === undefined ? {} : { path },
    });
  }
}
