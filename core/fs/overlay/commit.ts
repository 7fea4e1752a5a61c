// The overlay's commit (docs/notes/0015): every selected change is checked against the base first, and any
// conflict publishes nothing; then each is published through the base's own guarded operations, in an order
// that keeps every step valid: moves (while their old names still hold what the overlay moved), deletions
// of files, deletions of folders deepest first (emptied by then), writes, and empty folders.
import { FsError, isFsError, throwIfAborted } from "../errors.ts";
import { baseName, isWithin, joinPath, parentPath } from "../paths.ts";
import type { FileSystem, FsFence, FsResolveOptions, FsTarget, FsTargetKey, FsWriteGuard } from "../types.ts";
import { OverlayError } from "./errors.ts";
import type { OverlayChange, OverlayCommitOptions, OverlayCommitResult, OverlayConflict, OverlayConflictReason } from "./types.ts";
import type { OverlayOrigin, OverlayUpper } from "./upper.ts";

/** What the commit needs of the overlay. */
export interface CommitSubject {
  readonly base: FileSystem;
  readonly upper: OverlayUpper;
  changes(): OverlayChange[];
  resolve(path: string, options?: FsResolveOptions): Promise<FsTarget>;
}

const ABSENT: OverlayOrigin = { kind: "absent" };
const READ_ALL = Number.MAX_SAFE_INTEGER;

export async function commitChanges(overlay: CommitSubject, options: OverlayCommitOptions | undefined): Promise<OverlayCommitResult> {
  const signal = options?.signal;
  throwIfAborted(signal);
  const selected = inOrder(await select(overlay, options?.paths, signal));
  const conflicts: OverlayConflict[] = [];
  for (const change of selected) {
    throwIfAborted(signal);
    const conflict = await check(overlay, change, selected, signal);
    if (conflict) conflicts.push(conflict);
  }
  if (conflicts.length > 0) return { ok: false, committed: [], conflicts, pending: selected };

  // Between the check and each publication another writer can still change the base; the guard of that
  // publication refuses it, and the commit stops there, reporting what it did publish.
  const committed: OverlayChange[] = [];
  for (const [index, change] of selected.entries()) {
    if (signal?.aborted) return { ok: false, committed, conflicts, pending: selected.slice(index) };
    try {
      await publish(overlay, change, options);
    } catch (error) {
      if (isFsError(error, "FS_ABORTED")) return { ok: false, committed, conflicts, pending: selected.slice(index) };
      const found = await check(overlay, change, selected, signal).catch(() => undefined);
      conflicts.push(found ?? { change, reason: "failed", message: `Cannot commit "${change.path}": ${messageOf(error)}` });
      return { ok: false, committed, conflicts, pending: selected.slice(index + 1) };
    }
    overlay.upper.release(change.key);
    committed.push(change);
  }
  return { ok: true, committed, conflicts, pending: [] };
}

// Moves, file deletions, folder deletions (deepest first), writes, new empty folders.
function inOrder(changes: OverlayChange[]): OverlayChange[] {
  const rank = (c: OverlayChange) => (c.status === "renamed" ? 0 : c.status === "deleted" ? (c.type === "directory" ? 2 : 1) : c.type === "directory" ? 4 : 3);
  return [...changes].sort((a, b) => {
    const r = rank(a) - rank(b);
    if (r !== 0) return r;
    const order = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    return rank(a) === 2 ? -order : order;
  });
}

async function select(overlay: CommitSubject, paths: readonly string[] | undefined, signal: AbortSignal | undefined): Promise<OverlayChange[]> {
  const all = overlay.changes();
  if (paths === undefined) return all;
  // A move is selected by either of its names.
  const touches = (key: string, change: OverlayChange) => isWithin(key, change.key) || (change.fromKey !== undefined && isWithin(key, change.fromKey));
  const keys: string[] = [];
  for (const path of paths) {
    const key = (await overlay.resolve(path, signal ? { signal } : undefined)).key;
    if (!all.some((change) => touches(key, change))) {
      throw new OverlayError("OVERLAY_NOT_CHANGED", `"${path}" has no changes in the overlay; nothing was committed`, { details: { path } });
    }
    keys.push(key);
  }
  return all.filter((change) => keys.some((key) => touches(key, change)));
}

// The base as it is now against what the change started from.
async function check(
  overlay: CommitSubject,
  change: OverlayChange,
  selected: readonly OverlayChange[],
  signal: AbortSignal | undefined,
): Promise<OverlayConflict | undefined> {
  const { upper } = overlay;
  const origin = upper.origin(change.key) ?? ABSENT;
  if (change.status === "renamed") {
    const source = upper.source(change.key);
    const from = change.fromKey as string;
    const moved = source ? await expect(overlay, change, from, change.from ?? from, { kind: "file", version: source.version }, signal) : undefined;
    return moved ?? (await expect(overlay, change, change.key, change.path, origin, signal));
  }
  if (change.type === "directory" && change.status === "created") {
    const info = await overlay.base.lstat(change.key, signal ? { signal } : undefined).catch(() => undefined);
    return info && info.type !== "directory" ? conflict(change, "replaced", change.path, `is now a ${info.type} in the base`) : undefined;
  }
  if (change.type === "directory") {
    const found = await expect(overlay, change, change.key, change.path, { kind: "directory" }, signal);
    if (found) return found;
    // Removed only when this commit empties it: each entry the base holds there must go with it.
    const gone = (key: string) => selected.some((c) => (c.status === "deleted" && c.key === key) || c.fromKey === key);
    for (const entry of await overlay.base.listDir(keyTarget(change.key), signal ? { signal } : undefined)) {
      const key = joinPath(change.key, entry.name);
      if (!gone(key)) {
        const meanwhile = upper.get(key) === undefined;
        return conflict(
          change,
          "not-empty",
          change.path,
          `holds "${entry.name}" in the base, which ${meanwhile ? "another writer added after the overlay deleted the folder" : "this commit does not remove"}`,
        );
      }
    }
    return undefined;
  }
  return expect(overlay, change, change.key, change.path, origin, signal);
}

/** Whether the base holds at `key` what the overlay saw there (`origin`); a conflict naming `shown` if not. */
async function expect(
  overlay: CommitSubject,
  change: OverlayChange,
  key: string,
  shown: string,
  origin: OverlayOrigin,
  signal: AbortSignal | undefined,
): Promise<OverlayConflict | undefined> {
  const options = signal ? { signal } : undefined;
  const { base } = overlay;
  let resolved: string;
  try {
    // A symbolic link or folder is judged itself: its folder must resolve to itself.
    resolved =
      origin.kind === "symlink" || origin.kind === "directory"
        ? joinPath((await base.resolve(parentPath(key), options)).key, baseName(key))
        : (await base.resolve(key, options)).key;
  } catch (error) {
    if (isFsError(error, "FS_NOT_FOUND")) return conflict(change, "replaced", shown, "cannot be reached any more: a folder on its path is now a file");
    throw error;
  }
  if (resolved !== key) return conflict(change, "moved", shown, `now leads to "${resolved}": a folder on its path was replaced by a symbolic link`);
  if (origin.kind === "symlink" || origin.kind === "directory") {
    const info = await base.lstat(key, options);
    if (!info) return conflict(change, "deleted", shown, "was deleted from the base meanwhile");
    return info.type === origin.kind ? undefined : conflict(change, "replaced", shown, `is now a ${info.type} in the base`);
  }
  const info = await base.stat(keyTarget(key), options);
  if (origin.kind === "absent") {
    if (!info) return undefined;
    return info.type === "file"
      ? conflict(change, "created", shown, "was created in the base by another writer meanwhile")
      : conflict(change, "replaced", shown, `is now a ${info.type} in the base`);
  }
  if (!info) return conflict(change, "deleted", shown, "was deleted from the base after the overlay read it");
  if (info.type !== "file") return conflict(change, "replaced", shown, `is now a ${info.type} in the base`);
  if (info.version !== origin.version) return conflict(change, "modified", shown, "was changed in the base by another writer after the overlay read it");
  return undefined;
}

function conflict(change: OverlayChange, reason: OverlayConflictReason, shown: string, what: string): OverlayConflict {
  return { change, reason, message: `"${shown}" ${what}` };
}

async function publish(overlay: CommitSubject, change: OverlayChange, options: OverlayCommitOptions | undefined): Promise<void> {
  const { base, upper } = overlay;
  const signal = options?.signal;
  const common = { fence: pinned(change, options?.fence), ...(signal ? { signal } : {}) };
  const target = keyTarget(change.key);
  const origin = upper.origin(change.key) ?? ABSENT;
  if (change.status === "renamed") {
    const source = upper.source(change.key);
    const node = upper.get(change.key);
    if (!source || node?.type !== "file") throw new FsError("FS_IO_ERROR", "the overlay no longer holds this move");
    const moved = await base.move(keyTarget(source.key), target, {
      ...common,
      guard: { kind: "ifVersion", version: source.version },
      ...(origin.kind === "file" ? { replace: { version: origin.version } } : {}),
      parents: true,
    });
    // The move is in the base now: from here on the file is a modification of what it moved.
    const now = await base.readBytes(target, { maxBytes: READ_ALL, ...(signal ? { signal } : {}) });
    upper.settle(change.key, { kind: "file", version: moved.version ?? now.version });
    if (sameBytes(now.bytes, node.bytes)) return;
    await base.write(target, node.bytes, { ...common, guard: { kind: "replaceIfVersion", version: moved.version ?? now.version } });
    return;
  }
  if (change.status === "deleted") {
    if (change.type === "directory") await base.remove(target, { ...common, directory: true });
    else await base.remove(target, { ...common, ...(origin.kind === "file" ? { guard: { kind: "ifVersion", version: origin.version } } : {}) });
    return;
  }
  if (change.type === "directory") {
    await base.mkdir(target, { ...common, parents: true });
    return;
  }
  const node = upper.get(change.key);
  if (node?.type !== "file") throw new FsError("FS_IO_ERROR", "the overlay no longer holds this file");
  const guard: FsWriteGuard = origin.kind === "file" ? { kind: "replaceIfVersion", version: origin.version } : { kind: "createIfAbsent" };
  await base.write(target, node.bytes, { ...common, guard });
}

// The commit acts exactly where the overlay's change was fenced: if a name now resolves elsewhere, the base
// operation is refused before the caller's fence is even asked. A move's old name and the folders made for a
// new name are its names too.
function pinned(change: OverlayChange, fence: FsFence | undefined): FsFence {
  return async (destination) => {
    const key = destination.key;
    if (key !== change.key && key !== change.fromKey && !isWithin(key, change.key)) {
      throw new FsError("FS_STALE_VERSION", `Cannot commit "${change.path}": its path now leads to "${key}"`, {
        details: { path: change.key, destination: key },
      });
    }
    await fence?.(destination);
  };
}

function keyTarget(key: string): FsTarget {
  return { key: key as FsTargetKey, displayPath: key };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
