// Deletions and moves in the overlay (docs/notes/0015, "Deletions and renames"): they change the upper only.
// A deletion leaves a whiteout that hides the base's entry, with what the base held there as its origin; a
// move copies the moved files up under their new names, each remembering the base file it came from (its
// source), and leaves whiteouts at the old names. The base is written only by a commit.
import { errnoError } from "../errno.ts";
import { FsError } from "../errors.ts";
import { isWithin, joinPath } from "../paths.ts";
import type { FsVersion } from "../types.ts";
import { kind, type OverlayFound } from "./found.ts";
import type { OverlayOrigin, OverlaySource, OverlayUpper } from "./upper.ts";

/** What deletions and moves need of the overlay's driver (driver.ts). */
export interface OverlayDriver {
  readonly upper: OverlayUpper;
  find(path: string): Promise<OverlayFound | undefined>;
  readdir(path: string): Promise<string[]>;
  baseEntry(key: string): Promise<OverlayOrigin>;
  baseBytes(key: string): Promise<{ readonly bytes: Uint8Array; readonly version: FsVersion; readonly mtimeMs: number }>;
}

// A write into a folder can land while a deletion or a move of it reads what it holds (core locks only the names
// it changes); applied after that, the whiteout would hide the write's file. So the reading is done again until
// the upper did not change meanwhile, and the change is then applied without awaiting anything.
const ATTEMPTS = 16;

/**
 * Deletes an entry of the merged view; a folder only when it is empty there (`FS_NOT_EMPTY` otherwise), which is
 * judged again if the upper changes meanwhile.
 */
export async function erase(driver: OverlayDriver, found: OverlayFound): Promise<void> {
  const { upper } = driver;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const revision = upper.revision;
    const origin = await originAt(driver, found.key);
    if (kind(found) === "directory" && (await driver.readdir(found.key)).length > 0) throw errnoError("ENOTEMPTY", undefined);
    if (upper.revision !== revision) continue;
    // Only the overlay had it: nothing of the base to hide.
    if (origin.kind === "absent") upper.remove(found.key);
    else upper.whiteout(found.key, origin);
    return;
  }
  throw busy();
}

function busy(): FsError {
  return new FsError("FS_STALE_VERSION", "the overlay kept changing beneath it; try again");
}

// One entry of a moved subtree, read before the upper changes.
interface Moved {
  readonly from: string;
  readonly to: string;
  readonly type: "file" | "directory";
  /** What the base holds under the old name (the whiteout's origin there). */
  readonly origin: OverlayOrigin;
  readonly bytes?: Uint8Array;
  readonly mtimeMs?: number;
  readonly source?: OverlaySource;
}

/**
 * Moves an entry of the merged view (a file, or a folder with what it holds) to `to`; false when something is
 * there and `replace` is false. Everything is read first, then the upper changes in one synchronous step, so
 * a failure (a base symlink in a moved folder, a read error) changes nothing.
 */
export async function relocate(driver: OverlayDriver, found: OverlayFound, to: string, replace: boolean): Promise<boolean> {
  const from = found.key;
  if (from === to) return true;
  if (isWithin(from, to)) throw new FsError("FS_IO_ERROR", "a folder cannot move into itself");
  const { upper } = driver;
  let replaced: OverlayOrigin | undefined;
  let moved: Moved[] = [];
  for (let attempt = 0; ; attempt++) {
    if (attempt === ATTEMPTS) throw busy();
    const revision = upper.revision;
    const there = await driver.find(to);
    replaced = undefined;
    if (there) {
      if (!replace) return false;
      if (kind(there) === "directory") throw errnoError("EISDIR", undefined);
      if (kind(found) === "directory") throw new FsError("FS_NOT_DIRECTORY", "a folder cannot replace a file");
      replaced = await originAt(driver, to);
    }
    // Found again each time: a write may have replaced the node.
    const current = await driver.find(from);
    if (!current) throw errnoError("ENOENT", undefined);
    moved = [];
    await collect(driver, current, to, moved);
    if (upper.revision === revision) break;
  }

  // The old names, deepest first: a whiteout where the base has (or had) something, else nothing.
  for (const item of [...moved].reverse()) {
    if (item.origin.kind !== "absent") upper.whiteout(item.from, item.origin);
    else if (item.type === "file" || upper.children(item.from).length === 0) upper.remove(item.from);
    else upper.whiteout(item.from, item.origin);
  }
  // The new names, shallowest first; a whiteout there keeps its origin (what the base holds under it).
  for (const item of moved) {
    const origin = upper.origin(item.to) ?? (item.to === to && replaced ? replaced : ABSENT);
    if (item.type === "directory") upper.makeDirectory(item.to, origin);
    // Moved back to where it came from, it is no rename any more.
    else upper.place(item.to, item.bytes as Uint8Array, item.mtimeMs ?? Date.now(), origin, item.source?.key === item.to ? undefined : item.source);
  }
  return true;
}

async function collect(driver: OverlayDriver, found: OverlayFound, to: string, out: Moved[]): Promise<void> {
  const from = found.key;
  const origin = await originAt(driver, from);
  const type = kind(found);
  if (type === "directory") {
    out.push({ from, to, type, origin });
    for (const name of (await driver.readdir(from)).sort()) {
      const child = await driver.find(joinPath(from, name));
      if (child) await collect(driver, child, joinPath(to, name), out);
    }
    return;
  }
  if (type !== "file") throw new FsError("FS_IO_ERROR", `the overlay cannot move "${from}": it holds no symbolic links or special files of its own`);
  if (found.layer === "upper" && found.node.type === "file") {
    // A file moved twice keeps its first source; a base file the overlay changed is moved from its base name.
    const recorded = driver.upper.source(from);
    const source = recorded ?? (origin.kind === "file" ? { key: from, version: origin.version } : undefined);
    out.push({ from, to, type, origin, bytes: found.node.bytes, mtimeMs: found.node.mtimeMs, ...(source ? { source } : {}) });
    return;
  }
  const base = await driver.baseBytes(from);
  const read: OverlayOrigin = driver.upper.origin(from) ?? { kind: "file", version: base.version };
  out.push({ from, to, type, origin: read, bytes: base.bytes, mtimeMs: base.mtimeMs, source: { key: from, version: base.version } });
}

// What the base held under `key` for the overlay: what an earlier change recorded, else what it holds now.
async function originAt(driver: OverlayDriver, key: string): Promise<OverlayOrigin> {
  return driver.upper.origin(key) ?? (await driver.baseEntry(key));
}

const ABSENT: OverlayOrigin = { kind: "absent" };
