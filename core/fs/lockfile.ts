// The cooperative lock every toolfs writer takes from its final guard check through the rename, so that two
// writers in different processes cannot both pass the check and both publish; and the sweep that removes
// what writers killed mid-write left behind. Both judge an owner the same way: dead when it ran on this
// host and its process is gone, or, when that cannot be proven, when its file has not changed for long.
import type { FsDirectory, FsDriverStat, FsProcessInfo, FsStagedFile } from "./driver.ts";
import { FsError, isFsError, throwIfAborted } from "./errors.ts";
import { classifyName, hostTag, lockName, randomHex, stagingName } from "./names.ts";
import type { StorageState } from "./shared.ts";

/**
 * A lock untouched for this long is broken even when its owner may be alive (another host, a recycled pid):
 * locks are held for a rename, so this only fires after a crash that the pid check could not prove.
 */
export const STALE_LOCK_MS: number = 30_000;
/** A staged file of an owner not proven dead is removed once unchanged for this long. */
export const STALE_STAGED_MS: number = 60 * 60_000;
/** A directory is swept at most this often per process. */
export const SWEEP_INTERVAL_MS: number = 10 * 60_000;
const SWEPT_DIRECTORIES = 4096;
const MAX_WAIT_STEP_MS = 50;
const RECORD_BYTES = 4096;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface LockRecord {
  readonly pid: number;
  readonly host: string | undefined;
  readonly id: string;
}

interface HeldLock {
  readonly record: LockRecord | undefined;
  readonly stat: FsDriverStat;
}

/** Writes all of `bytes`, however the file splits it. */
export async function writeAll(file: FsStagedFile, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) offset += await file.write(bytes.subarray(offset));
}

/**
 * Takes the lock file of `name` in `dir` and returns its release. Waits while another writer holds it, and
 * breaks it when its owner is dead (see {@link isStale}).
 */
export async function acquireLockFile(dir: FsDirectory, name: string, me: FsProcessInfo, signal: AbortSignal | undefined): Promise<() => Promise<void>> {
  const file = lockName(name);
  const id = randomHex(8);
  // The record is written under a staged name first and linked into place, so a lock file always holds a
  // whole record, and a writer killed before the link leaves a staged file that names its owner.
  const staged = stagingName(file, { pid: me.pid, host: hostTag(me.host) });
  let mine: string | undefined;
  const record = await dir.createFile(staged, 0o600);
  if (!record) throw new FsError("FS_IO_ERROR", `the lock record name "${staged}" is taken`);
  try {
    try {
      await writeAll(record, encoder.encode(`${JSON.stringify({ toolfs: "lock", pid: me.pid, host: me.host ?? null, id, since: Date.now() })}\n`));
    } finally {
      await record.close();
    }
    // The record's identity tells, at release, that the lock file is still this one.
    mine = (await dir.lstat(staged))?.id;
    let step = 1;
    for (;;) {
      throwIfAborted(signal);
      if (await dir.link(staged, file)) break;
      const held = await readLock(dir, file);
      if (!held) continue; // released meanwhile
      if (isStale(held, me)) {
        await breakLock(dir, file, held, me);
        continue;
      }
      await pause(step * (0.5 + Math.random()));
      step = Math.min(step * 2, MAX_WAIT_STEP_MS);
    }
  } finally {
    await dir.unlink(staged).catch(() => undefined);
  }
  return async () => {
    if (mine !== undefined && (await dir.lstat(file))?.id === mine) await dir.unlink(file);
  };
}

/**
 * Removes the staged files and lock files of dead writers from `dir`, at most once per
 * {@link SWEEP_INTERVAL_MS} per directory and process. Best effort: a failure here never fails a write.
 */
export async function sweepDirectory(dir: FsDirectory, dirKey: string, me: FsProcessInfo, state: StorageState): Promise<void> {
  const now = Date.now();
  const last = state.swept.get(dirKey);
  if (last !== undefined && now - last < SWEEP_INTERVAL_MS) return;
  state.swept.delete(dirKey);
  state.swept.set(dirKey, now);
  if (state.swept.size > SWEPT_DIRECTORIES) {
    const oldest = state.swept.keys().next();
    if (!oldest.done) state.swept.delete(oldest.value);
  }
  try {
    const tag = hostTag(me.host);
    for (const name of await dir.readdir()) {
      const kind = classifyName(name);
      if (!kind) continue;
      if (kind.kind === "lock") {
        const held = await readLock(dir, name);
        if (held && isStale(held, me)) await breakLock(dir, name, held, me);
        continue;
      }
      const owner = kind.owner;
      if (owner && tag !== undefined && owner.host === tag) {
        if (owner.pid === me.pid) continue; // this process: a write in progress
        if (me.alive(owner.pid) === false) {
          await dir.unlink(name);
          continue;
        }
      }
      const stat = await dir.lstat(name);
      if (stat?.type === "file" && Date.now() - stat.mtimeMs > STALE_STAGED_MS) await dir.unlink(name);
    }
  } catch (error) {
    if (!isFsError(error)) throw error;
  }
}

/**
 * A lock is stale when its owner ran on this host and is gone, or when its file has not changed for
 * {@link STALE_LOCK_MS} (an owner on another host or whose death cannot be proven, a file that holds no
 * record). The file's time is the storage's clock, not the owner's.
 */
function isStale(held: HeldLock, me: FsProcessInfo): boolean {
  const owner = held.record;
  if (owner && me.host !== undefined && owner.host === me.host && owner.pid !== me.pid && me.alive(owner.pid) === false) {
    return true;
  }
  return Date.now() - held.stat.mtimeMs > STALE_LOCK_MS;
}

// Moves the lock aside under a fresh name and checks that what moved is the lock judged stale. If a new
// owner took the lock in the meantime, its file is what moved: it is put back unless yet another writer has
// taken the name since, which needs three writers within microseconds of a stale lock (note 0009).
async function breakLock(dir: FsDirectory, file: string, judged: HeldLock, me: FsProcessInfo): Promise<void> {
  const aside = stagingName(file, { pid: me.pid, host: hostTag(me.host) });
  try {
    await dir.rename(file, aside);
  } catch (error) {
    if (isFsError(error, "FS_NOT_FOUND")) return;
    throw error;
  }
  try {
    const moved = await readLock(dir, aside);
    const same = moved !== undefined && (judged.record ? moved.record?.id === judged.record.id : moved.stat.id === judged.stat.id);
    if (!same && moved !== undefined) await dir.link(aside, file);
  } finally {
    await dir.unlink(aside).catch(() => undefined);
  }
}

async function readLock(dir: FsDirectory, file: string): Promise<HeldLock | undefined> {
  const stat = await dir.lstat(file);
  if (!stat) return undefined;
  if (stat.type !== "file") {
    throw new FsError("FS_IO_ERROR", `"${file}" is in the way of the lock file toolfs takes for this write`, { details: { lock: file } });
  }
  const bytes = await dir.readFile(file, RECORD_BYTES);
  if (bytes === undefined) return undefined; // released since the lstat
  return { stat, record: parseRecord(bytes) };
}

function parseRecord(bytes: Uint8Array): LockRecord | undefined {
  try {
    const value = JSON.parse(decoder.decode(bytes)) as { toolfs?: unknown; pid?: unknown; host?: unknown; id?: unknown };
    if (value.toolfs !== "lock" || typeof value.pid !== "number" || typeof value.id !== "string") return undefined;
    return { pid: value.pid, host: typeof value.host === "string" ? value.host : undefined, id: value.id };
  } catch {
    return undefined; // not a toolfs record: judged by the file's age
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
