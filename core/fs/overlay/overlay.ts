// A copy-on-write overlay over any FileSystem: the change set, the patch, checkpoints, and a commit that
// publishes to the base only what nobody else changed meanwhile (docs/notes/0015).
import { isFsError, throwIfAborted } from "../errors.ts";
import { relativeWithin } from "../paths.ts";
import { createFileSystem } from "../provider.ts";
import type {
  FileSystem,
  FsBytes,
  FsDirEntry,
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
  FsWriteData,
  FsWriteOptions,
  FsWriteResult,
} from "../types.ts";
import { changesOf, stepsBetween } from "./changes.ts";
import { commitChanges } from "./commit.ts";
import { OverlayDriver } from "./driver.ts";
import { filePatch, renamePatch } from "./patch.ts";
import type {
  OverlayChange,
  OverlayChangesOptions,
  OverlayCommitOptions,
  OverlayCommitResult,
  OverlayFileSystem,
  OverlayOptions,
  OverlayPatchOptions,
} from "./types.ts";
import { type OverlayCheckpointInfo, OverlayUpper } from "./upper.ts";

// The contract lives in types.ts; mod.ts and older imports take it from here.
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
} from "./types.ts";

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
