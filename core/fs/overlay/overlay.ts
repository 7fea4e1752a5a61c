// A copy-on-write overlay over any FileSystem: the change set, the patch, checkpoints, and a commit that
// publishes to the base only what nobody else changed meanwhile (docs/notes/0015).
import { isFsError, throwIfAborted } from "../errors.ts";
import { relativeWithin } from "../paths.ts";
import { createFileSystem } from "../provider.ts";
import type {
  FileSystem,
  FsBytes,
  FsDirEntry,
  FsFence,
  FsInfo,
  FsMkdirOptions,
  FsMkdirResult,
  FsMoveOptions,
  FsMoveResult,
  FsPathInfo,
  FsReadStream,
  FsRemoveOptions,
  FsRemoveResult,
  FsResolveOptions,
  FsSignalOptions,
  FsTarget,
  FsTargetKey,
  FsVersion,
  FsWriteData,
  FsWriteOptions,
  FsWriteResult,
} from "../types.ts";
import { changesOf, stepsBetween } from "./changes.ts";
import { commitChanges } from "./commit.ts";
import { OverlayDriver } from "./driver.ts";
import { filePatch, renamePatch } from "./patch.ts";
import { type OverlayCheckpointInfo, OverlayUpper } from "./upper.ts";

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

/** An overlay over `base`: opening it costs nothing in the size of the base. */
export function createOverlayProvider(options: OverlayOptions): OverlayFileSystem {
  return new Overlay(options);
}

const READ_ALL = Number.MAX_SAFE_INTEGER;

class Overlay implements OverlayFileSystem {
  readonly base: FileSystem;
  readonly upper: OverlayUpper;
  readonly #inner: FileSystem;

  constructor(options: OverlayOptions) {
    this.base = options.base;
    this.upper = options.upper ?? new OverlayUpper();
    this.#inner = createFileSystem(new OverlayDriver(this.base, this.upper), { cwd: options.cwd ?? this.base.cwd });
  }

  get capabilities(): FileSystem["capabilities"] {
    return this.#inner.capabilities;
  }

  get cwd(): string {
    return this.#inner.cwd;
  }

  resolve(path: string, options?: FsResolveOptions): Promise<FsTarget> {
    return this.#inner.resolve(path, options);
  }

  stat(target: FsTarget, options?: FsSignalOptions): Promise<FsInfo | undefined> {
    return this.#inner.stat(target, options);
  }

  lstat(path: string, options?: FsResolveOptions): Promise<FsPathInfo | undefined> {
    return this.#inner.lstat(path, options);
  }

  readBytes(target: FsTarget, options: { readonly maxBytes: number; readonly signal?: AbortSignal }): Promise<FsBytes> {
    return this.#inner.readBytes(target, options);
  }

  readStream(target: FsTarget, options?: { readonly signal?: AbortSignal; readonly chunkSize?: number }): Promise<FsReadStream> {
    return this.#inner.readStream(target, options);
  }

  listDir(target: FsTarget, options?: FsSignalOptions): Promise<FsDirEntry[]> {
    return this.#inner.listDir(target, options);
  }

  write(target: FsTarget, data: FsWriteData, options?: FsWriteOptions): Promise<FsWriteResult> {
    return this.upper.gate.shared(() => this.#inner.write(target, data, options));
  }

  // Deletions and moves land in the upper as whiteouts and moved nodes (mutate.ts), under the same gate.
  remove(target: FsTarget, options?: FsRemoveOptions): Promise<FsRemoveResult> {
    return this.upper.gate.shared(() => this.#inner.remove(target, options));
  }

  move(from: FsTarget, to: FsTarget, options?: FsMoveOptions): Promise<FsMoveResult> {
    return this.upper.gate.shared(() => this.#inner.move(from, to, options));
  }

  mkdir(target: FsTarget, options?: FsMkdirOptions): Promise<FsMkdirResult> {
    return this.upper.gate.shared(() => this.#inner.mkdir(target, options));
  }

  contains(parent: FsTarget, child: FsTarget): boolean {
    return this.#inner.contains(parent, child);
  }

  changes(options?: OverlayChangesOptions): OverlayChange[] {
    const now = this.upper.snapshot();
    const name = (key: string) => relativeWithin(this.cwd, key) ?? key;
    if (options?.since === undefined) return changesOf(now, name);
    const then = this.upper.checkpointState(options.since);
    return stepsBetween(then, now, name).map((step) => step.change);
  }

  async patch(options?: OverlayPatchOptions): Promise<string> {
    const root = options?.root ?? this.cwd;
    const signal = options?.signal;
    const parts: string[] = [];
    const name = (key: string) => relativeWithin(root, key) ?? key;
    const base = (key: string) => this.#baseBytes(key, signal);
    const now = this.upper.snapshot();
    if (options?.since === undefined) {
      // Against the base as it is now, for created files too: the patch turns the base into the overlay.
      for (const change of changesOf(now, name)) {
        throwIfAborted(signal);
        const { key } = change;
        // Folders are not in a patch (git tracks files); a deleted symbolic link is not shown either.
        if (change.type === "directory" || (change.status === "deleted" && now.origins.get(key)?.kind !== "file")) continue;
        const node = now.nodes.get(key);
        const after = change.status === "deleted" || node?.type !== "file" ? undefined : node.bytes;
        const from = change.fromKey;
        const before = from === undefined ? undefined : await base(from);
        if (from === undefined || before === undefined) {
          parts.push(filePatch(name(key), await base(key), after));
          continue;
        }
        // Moved over a base file: git deletes it first.
        if (now.origins.get(key)?.kind === "file") parts.push(filePatch(name(key), await base(key), undefined));
        parts.push(renamePatch(name(from), name(key), before, after as Uint8Array));
      }
    } else {
      const then = this.upper.checkpointState(options.since);
      for (const step of stepsBetween(then, now, name)) {
        throwIfAborted(signal);
        const key = step.change.key;
        const before = step.before === "base" ? await base(step.fromKey ?? key) : step.before;
        const after = step.after === "base" ? await base(key) : step.after;
        if (step.fromKey !== undefined && before !== undefined && after !== undefined) parts.push(renamePatch(name(step.fromKey), name(key), before, after));
        else parts.push(filePatch(name(key), before, after));
      }
    }
    return parts.join("");
  }

  commit(options?: OverlayCommitOptions): Promise<OverlayCommitResult> {
    return this.upper.gate.exclusive(() => commitChanges(this, options));
  }

  discard(): Promise<void> {
    return this.upper.gate.exclusive(async () => this.upper.clear());
  }

  checkpoint(label?: string): string {
    return this.upper.checkpoint(label).id;
  }

  async restore(id: string): Promise<void> {
    // Refused before waiting for the writes under way.
    this.upper.checkpointState(id);
    await this.upper.gate.exclusive(async () => this.upper.restore(id));
  }

  checkpoints(): OverlayCheckpointInfo[] {
    return this.upper.checkpoints();
  }

  // The base's bytes now; undefined when it has no file there any more.
  async #baseBytes(key: string, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    try {
      return (await this.base.readBytes(keyTarget(key), { maxBytes: READ_ALL, ...(signal ? { signal } : {}) })).bytes;
    } catch (error) {
      if (isFsError(error, "FS_NOT_FOUND") || isFsError(error, "FS_NOT_REGULAR_FILE")) return undefined;
      throw error;
    }
  }
}

function keyTarget(key: string): FsTarget {
  return { key: key as FsTargetKey, displayPath: key };
}
