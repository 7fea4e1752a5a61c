// A copy-on-write overlay over any FileSystem: the change set, the patch, checkpoints, and a commit that
// publishes to the base only what nobody else changed meanwhile (docs/notes/0015).
import { isFsError, FsError, throwIfAborted } from "../errors.ts";
import { isWithin, relativeWithin } from "../paths.ts";
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
  FsWriteData,
  FsWriteGuard,
  FsWriteOptions,
  FsWriteResult,
} from "../types.ts";
import { OverlayDriver } from "./driver.ts";
import { OverlayError } from "./errors.ts";
import { filePatch } from "./patch.ts";
import {
  filesOf,
  type OverlayCheckpointInfo,
  type OverlayFileNode,
  type OverlayNode,
  type OverlayOrigin,
  type OverlaySnapshot,
  OverlayUpper,
} from "./upper.ts";
import type {
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

  // Through the overlay's driver, which does not carry removals and moves yet (issue 20 item 5).
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
    if (options?.since === undefined) {
      return filesOf(now.nodes).map(([key, node]) => this.#change(key, now.origins.get(key) ?? ABSENT, node.bytes.length, undefined));
    }
    const then = this.upper.checkpointState(options.since);
    return this.#between(then, now).map((step) => step.change);
  }

  async patch(options?: OverlayPatchOptions): Promise<string> {
    const root = options?.root ?? this.cwd;
    const signal = options?.signal;
    const parts: string[] = [];
    const name = (key: string) => relativeWithin(root, key) ?? key;
    if (options?.since === undefined) {
      const now = this.upper.snapshot();
      // Against the base as it is now, for created files too: the patch turns the base into the overlay.
      for (const [key, node] of filesOf(now.nodes)) {
        throwIfAborted(signal);
        parts.push(filePatch(name(key), await this.#baseBytes(key, signal), node.bytes));
      }
    } else {
      const then = this.upper.checkpointState(options.since);
      for (const step of this.#between(then, this.upper.snapshot())) {
        throwIfAborted(signal);
        const key = step.change.key;
        const fromBase = step.origin.kind === "file";
        const before = step.before ?? (fromBase ? await this.#baseBytes(key, signal) : undefined);
        const after = step.after ?? (fromBase ? await this.#baseBytes(key, signal) : undefined);
        parts.push(filePatch(name(key), before, after));
      }
    }
    return parts.join("");
  }

  commit(options?: OverlayCommitOptions): Promise<OverlayCommitResult> {
    return this.upper.gate.exclusive(() => this.#commit(options));
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

  async #commit(options: OverlayCommitOptions | undefined): Promise<OverlayCommitResult> {
    const signal = options?.signal;
    throwIfAborted(signal);
    const selected = await this.#select(options?.paths, signal);
    const conflicts: OverlayConflict[] = [];
    for (const change of selected) {
      throwIfAborted(signal);
      const conflict = await this.#check(change, signal);
      if (conflict) conflicts.push(conflict);
    }
    if (conflicts.length > 0) return { ok: false, committed: [], conflicts, pending: selected };

    // Between the check and each publication another writer can still change the base; the guard of that
    // publication refuses it, and the commit stops there, reporting what it did publish.
    const committed: OverlayChange[] = [];
    for (const [index, change] of selected.entries()) {
      const node = this.upper.get(change.key);
      if (signal?.aborted || node?.type !== "file") return { ok: false, committed, conflicts, pending: selected.slice(index) };
      const origin = this.upper.origin(change.key) ?? ABSENT;
      const guard: FsWriteGuard = origin.kind === "file" ? { kind: "replaceIfVersion", version: origin.version } : { kind: "createIfAbsent" };
      try {
        await this.base.write(keyTarget(change.key), node.bytes, { guard, fence: pinned(change, options?.fence), ...(signal ? { signal } : {}) });
      } catch (error) {
        if (isFsError(error, "FS_ABORTED")) return { ok: false, committed, conflicts, pending: selected.slice(index) };
        const found = await this.#check(change, signal).catch(() => undefined);
        conflicts.push(found ?? { change, reason: "failed", message: `Cannot commit "${change.path}": ${messageOf(error)}` });
        return { ok: false, committed, conflicts, pending: selected.slice(index + 1) };
      }
      this.upper.release(change.key);
      committed.push(change);
    }
    return { ok: true, committed, conflicts, pending: [] };
  }

  async #select(paths: readonly string[] | undefined, signal: AbortSignal | undefined): Promise<OverlayChange[]> {
    const all = this.changes();
    if (paths === undefined) return all;
    const keys: string[] = [];
    for (const path of paths) {
      const key = (await this.resolve(path, signal ? { signal } : undefined)).key;
      if (!all.some((change) => isWithin(key, change.key))) {
        throw new OverlayError("OVERLAY_NOT_CHANGED", `"${path}" has no changes in the overlay; nothing was committed`, { details: { path } });
      }
      keys.push(key);
    }
    return all.filter((change) => keys.some((key) => isWithin(key, change.key)));
  }

  // The base as it is now against what the change started from.
  async #check(change: OverlayChange, signal: AbortSignal | undefined): Promise<OverlayConflict | undefined> {
    const origin = this.upper.origin(change.key) ?? ABSENT;
    const conflict = (reason: OverlayConflictReason, what: string): OverlayConflict => ({ change, reason, message: `"${change.path}" ${what}` });
    let resolved: FsTarget;
    try {
      resolved = await this.base.resolve(change.key, signal ? { signal } : undefined);
    } catch (error) {
      if (isFsError(error, "FS_NOT_FOUND")) return conflict("replaced", "cannot be reached any more: a folder on its path is now a file");
      throw error;
    }
    if (resolved.key !== change.key) return conflict("moved", `now leads to "${resolved.key}": a folder on its path was replaced by a symbolic link`);
    const info = await this.base.stat(resolved, signal ? { signal } : undefined);
    if (origin.kind === "absent") {
      if (!info) return undefined;
      return info.type === "file"
        ? conflict("created", "was created in the base by another writer meanwhile")
        : conflict("replaced", `is now a ${info.type} in the base`);
    }
    if (!info) return conflict("deleted", "was deleted from the base after the overlay read it");
    if (info.type !== "file") return conflict("replaced", `is now a ${info.type} in the base`);
    if (info.version !== origin.version) return conflict("modified", "was changed in the base by another writer after the overlay read it");
    return undefined;
  }

  #change(key: string, origin: OverlayOrigin, size: number, status: OverlayChange["status"] | undefined): OverlayChange {
    return {
      path: relativeWithin(this.cwd, key) ?? key,
      key: key as FsTargetKey,
      status: status ?? (origin.kind === "file" ? "modified" : "created"),
      ...(origin.kind === "file" ? { baseVersion: origin.version } : {}),
      size,
    };
  }

  // Per file that differs between two states of the upper: its bytes in each (undefined where the base shows
  // through) and what the base held under it.
  #between(then: OverlaySnapshot, now: OverlaySnapshot): { change: OverlayChange; origin: OverlayOrigin; before?: Uint8Array; after?: Uint8Array }[] {
    const keys = new Set([...filesOf(then.nodes).map(([k]) => k), ...filesOf(now.nodes).map(([k]) => k)]);
    const out: { change: OverlayChange; origin: OverlayOrigin; before?: Uint8Array; after?: Uint8Array }[] = [];
    for (const key of [...keys].sort(byCodeUnit)) {
      const before = fileNode(then.nodes.get(key));
      const after = fileNode(now.nodes.get(key));
      if (before === after) continue;
      const origin = now.origins.get(key) ?? then.origins.get(key) ?? ABSENT;
      const status = after && before ? "modified" : origin.kind === "file" ? "modified" : after ? "created" : "deleted";
      out.push({
        change: this.#change(key, origin, after?.bytes.length ?? 0, status),
        origin,
        ...(before ? { before: before.bytes } : {}),
        ...(after ? { after: after.bytes } : {}),
      });
    }
    return out;
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

const ABSENT: OverlayOrigin = { kind: "absent" };

// The commit publishes exactly where the overlay's write was fenced: if the path now resolves elsewhere, the
// publication is refused before the caller's fence is even asked.
function pinned(change: OverlayChange, fence: FsFence | undefined): FsFence {
  return async (destination) => {
    if (destination.key !== change.key) {
      throw new FsError("FS_STALE_VERSION", `Cannot commit "${change.path}": its path now leads to "${destination.key}"`, {
        details: { path: change.key, destination: destination.key },
      });
    }
    await fence?.(destination);
  };
}

function keyTarget(key: string): FsTarget {
  return { key: key as FsTargetKey, displayPath: key };
}

function fileNode(node: OverlayNode | undefined): OverlayFileNode | undefined {
  return node?.type === "file" ? node : undefined;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
