/**
 * The overlay: a copy-on-write FileSystem over any base, with its change set, a git-style patch, checkpoints
 * and a guarded commit.
 *
 * @module
 */
export { createOverlayProvider } from "./overlay.ts";
export type {
  OverlayChange,
  OverlayChangesOptions,
  OverlayCommitOptions,
  OverlayCommitResult,
  OverlayConflict,
  OverlayConflictReason,
  OverlayFileSystem,
  OverlayOptions,
  OverlayPatchOptions,
} from "./overlay.ts";
export { createOverlayUpper, OverlayUpper } from "./upper.ts";
export type {
  OverlayCheckpointInfo,
  OverlayDirectoryNode,
  OverlayFileNode,
  OverlayNode,
  OverlayOrigin,
  OverlaySource,
  OverlayVisibleNode,
  OverlayWhiteoutNode,
} from "./upper.ts";
export { isOverlayError, OVERLAY_ERROR_CODES, OverlayError } from "./errors.ts";
export type { OverlayErrorCode } from "./errors.ts";
