// The overlay's contract: what createOverlayProvider takes and the FileSystem it returns, with its change
// set, patch, checkpoints and commit (docs/notes/0015). overlay.ts implements it.
import type { FileSystem, FsFence, FsTargetKey, FsVersion } from "../types.ts";
import type { OverlayCheckpointInfo, OverlayUpper } from "./upper.ts";

export interface OverlayOptions {
  /** The tree the overlay reads through to; it is written only by `commit`. */
  readonly base: FileSystem;
  /** Where writes land; a fresh in-memory upper by default. Pass one to share it between providers. */
  readonly upper?: OverlayUpper;
  /** Absolute base directory for relative paths; the base's cwd by default. */
  readonly cwd?: string;
}

/** One file (or folder) the overlay changed. */
export interface OverlayChange {
  /** Relative to the overlay's cwd when inside it, else absolute. */
  readonly path: string;
  /** The canonical path, in the base's terms. */
  readonly key: FsTargetKey;
  /**
   * Against the base when the overlay first changed the path (or, with `since`, against the checkpoint):
   * `created` (nothing was there), `modified`, `deleted`, or `renamed` (moved from `from`, its content
   * changed or not).
   */
  readonly status: "created" | "modified" | "deleted" | "renamed";
  /** `directory` for a folder created empty or deleted (listed without `since` only); absent for a file. */
  readonly type?: "directory";
  /** For a renamed file: where it was, as `path` is shown, and its canonical path. */
  readonly from?: string;
  readonly fromKey?: FsTargetKey;
  /**
   * For a file that replaced or deleted a base file: the base's version the overlay's first change replaced
   * (the version read); for a renamed file, the version of the base file it was moved from.
   */
  readonly baseVersion?: FsVersion;
  /** Bytes the overlay holds now (0 when deleted). */
  readonly size: number;
}

/** Why a change cannot be committed, in terms of what happened to the base. */
export type OverlayConflictReason =
  /** The base file changed since the overlay started from it. */
  | "modified"
  /** The base file the overlay changed is gone. */
  | "deleted"
  /** Another writer created a file where the overlay created one. */
  | "created"
  /** Something other than a regular file is there now. */
  | "replaced"
  /** The path now leads elsewhere (a folder on the way became a symbolic link). */
  | "moved"
  /** A folder the overlay deleted holds something in the base that this commit does not remove. */
  | "not-empty"
  /** Publication failed for another reason (permissions, the fence, an I/O error); `message` says which. */
  | "failed";

export interface OverlayConflict {
  readonly change: OverlayChange;
  readonly reason: OverlayConflictReason;
  /** One sentence for a person or a model. */
  readonly message: string;
}

export interface OverlayCommitResult {
  /** Every selected change was published. */
  readonly ok: boolean;
  /** Published to the base (and dropped from the overlay, whose reads now fall through to them). */
  readonly committed: readonly OverlayChange[];
  /**
   * What stopped the commit. Found while checking: nothing was published. Found while publishing (another
   * writer raced the commit after the check): the changes before it were published, the rest are `pending`.
   */
  readonly conflicts: readonly OverlayConflict[];
  /** Selected but not published: still in the overlay. */
  readonly pending: readonly OverlayChange[];
}

export interface OverlayChangesOptions {
  /** A checkpoint id: compare with the overlay as it was then instead of with the base. */
  readonly since?: string;
}

export interface OverlayPatchOptions extends OverlayChangesOptions {
  /** Names in the patch are relative to this absolute directory; the overlay's cwd by default. */
  readonly root?: string;
  readonly signal?: AbortSignal;
}

export interface OverlayCommitOptions {
  /** Paths (files, or folders for everything beneath) to commit; every change by default. */
  readonly paths?: readonly string[];
  /** Judges each destination in the base right before it is published, as a write's fence does. */
  readonly fence?: FsFence;
  readonly signal?: AbortSignal;
}

/**
 * A FileSystem whose writes land in an upper layer while reads fall through to the base; the base stays
 * untouched until `commit`.
 */
export interface OverlayFileSystem extends FileSystem {
  readonly base: FileSystem;
  readonly upper: OverlayUpper;
  /** The files (and empty or deleted folders) the overlay changed, by canonical path. */
  changes(options?: OverlayChangesOptions): OverlayChange[];
  /**
   * The changes as one git-style unified diff against the base as it is now (or against a checkpoint):
   * deletions as `deleted file mode`, moves as `rename from`/`rename to` (with `similarity index`).
   */
  patch(options?: OverlayPatchOptions): Promise<string>;
  /**
   * Publishes the changes to the base, each under a guard: a modified or deleted file only over the base
   * version the overlay started from, a created file only where nothing is, a moved file only from the version
   * it moved and onto nothing (or the version it replaced), a deleted folder only when the commit empties it.
   * Every guard is checked before anything is published; any conflict then publishes nothing.
   */
  commit(options?: OverlayCommitOptions): Promise<OverlayCommitResult>;
  /** Empties the upper: every change is thrown away, and every version observed before is stale. */
  discard(): Promise<void>;
  /** Remembers the overlay as it is now; returns the checkpoint's id. Costs a copy of the upper's index, not of its bytes. */
  checkpoint(label?: string): string;
  /** Puts the overlay back exactly as it was at the checkpoint; every version observed before is stale. */
  restore(id: string): Promise<void>;
  /** The checkpoints taken, oldest first. */
  checkpoints(): OverlayCheckpointInfo[];
}
