import { CodedError, codedErrorGuard } from "../../errors/mod.ts";

/** The closed set of patch error codes. Consumers branch on `code`; messages may change, codes may not. */
export const PATCH_ERROR_CODES = [
  /** The patch text does not follow the format; `details.line` is the 1-based line of the patch. */
  "PATCH_INVALID",
  /** A hunk's context (or its `@@` anchor) is not in the file. */
  "PATCH_CONTEXT_NOT_FOUND",
  /** A hunk's context matches at several places; `details.lines` lists them. */
  "PATCH_AMBIGUOUS_CONTEXT",
  /** `*** Add File` or `*** Move to` names a file that exists, and the caller did not allow replacing it. */
  "PATCH_FILE_EXISTS",
  /** `*** Update File` or `*** Delete File` names a file that does not exist. */
  "PATCH_FILE_MISSING",
  /** Two operations name the same file. */
  "PATCH_PATH_CONFLICT",
  /** The plan was refused: `details.problems` lists every problem found, each with one of the codes above. */
  "PATCH_REFUSED",
  /**
   * The patch was checked whole, but a file changed between the check and its publication (a concurrent
   * writer): `details.changed` lists the files that changed, `details.unchanged` those that did not.
   */
  "PATCH_PARTIALLY_APPLIED",
] as const;

export type PatchErrorCode = (typeof PATCH_ERROR_CODES)[number];

/** One problem found while checking a patch, before anything was changed. */
export interface PatchProblem {
  /** A patch code, or one the apply_patch tool adds: the read-before-write rule's, or a symbolic link it will not delete or move. */
  readonly code: Exclude<PatchErrorCode, "PATCH_REFUSED" | "PATCH_PARTIALLY_APPLIED"> | "FS_NOT_OBSERVED" | "FS_STALE_VERSION" | "FS_NOT_REGULAR_FILE";
  /** The file it concerns, as the patch names it. */
  readonly path?: string;
  /** The model-facing sentence for this problem alone. */
  readonly message: string;
  /** Facts for hosts: the patch line, the hunk number, candidate file lines. */
  readonly details: Readonly<Record<string, unknown>>;
}

export interface PatchErrorDetails {
  readonly line?: number;
  readonly path?: string;
  readonly problems?: readonly PatchProblem[];
  readonly [key: string]: unknown;
}

/** The error family of apply_patch: parse errors, hunks that do not fit, and refused plans. */
export class PatchError extends CodedError<PatchErrorCode, PatchErrorDetails> {
  override readonly name = "PatchError";
}

/** True for a PatchError, also one built by another copy of this library. */
export const isPatchError: (value: unknown, code?: PatchErrorCode) => value is PatchError = codedErrorGuard<PatchError>("PatchError", PATCH_ERROR_CODES);
