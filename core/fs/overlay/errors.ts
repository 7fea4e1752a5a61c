import { CodedError, codedErrorGuard } from "../../errors/mod.ts";

/** The closed set of overlay error codes (conflicts found by a commit are data, not errors). */
export const OVERLAY_ERROR_CODES = ["OVERLAY_UNKNOWN_CHECKPOINT", "OVERLAY_NOT_CHANGED"] as const;

export type OverlayErrorCode = (typeof OVERLAY_ERROR_CODES)[number];

/** The error family of the overlay's own operations (checkpoints, commit selection). */
export class OverlayError extends CodedError<OverlayErrorCode> {
  override readonly name = "OverlayError";
}

/** True for an OverlayError, also one built by another copy of this library. */
export const isOverlayError: (value: unknown, code?: OverlayErrorCode) => value is OverlayError = codedErrorGuard<OverlayError>(
  "OverlayError",
  OVERLAY_ERROR_CODES,
);
