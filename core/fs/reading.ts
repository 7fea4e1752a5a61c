// Reads and listings: each reaches the canonical key the caller judged and nothing else (docs/notes/0009,
// "Reads"), however the folders on its path are swapped or moved meanwhile.
import { type DriverContext, notRegular } from "./context.ts";
import type { FsDirectory, FsDriverHandle, FsDriverStat } from "./driver.ts";
import { FsError, isFsError, throwIfAborted } from "./errors.ts";
import { baseName, compareUtf8, joinPath, parentPath } from "./paths.ts";
import type { FsBytes, FsDirEntry, FsReadStream, FsReadStreamOptions, FsSignalOptions, FsTarget, FsTargetKey } from "./types.ts";

const DEFAULT_CHUNK = 64 * 1024;
const LIST_BATCH = 64;
// Opening a file meets a folder swapped on its path at most this many times before the read is refused.
const READ_ATTEMPTS = 3;
// A file other writers keep replacing (each publication renames a new file over the name) is not an attack,
// only busy: it gets far more attempts before the read gives up.
const REPLACED_ATTEMPTS = 100;

export async function readBytes(ctx: DriverContext, target: FsTarget, options: { readonly maxBytes: number; readonly signal?: AbortSignal }): Promise<FsBytes> {
  const { maxBytes, signal } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(`maxBytes must be a non-negative safe integer, got ${String(maxBytes)}`);
  }
  const path = target.displayPath;
  throwIfAborted(signal, path);
  const { handle, stat } = await openFile(ctx, target, signal);
  try {
    if (stat.size > maxBytes) throw tooLarge(path, maxBytes, stat.size);
    // One spare byte past the cap reveals a file that grew after the stat, without reading any further.
    let buffer = new Uint8Array(Math.min(stat.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      throwIfAborted(signal, path);
      if (filled === buffer.length) {
        if (filled > maxBytes) throw tooLarge(path, maxBytes);
        const grown = new Uint8Array(Math.min(maxBytes + 1, buffer.length * 2));
        grown.set(buffer);
        buffer = grown;
      }
      const n = await ctx.call("read", path, () => handle.read(buffer.subarray(filled), filled));
      if (n === 0) break;
      filled += n;
    }
    if (filled > maxBytes) throw tooLarge(path, maxBytes);
    // A view, not a copy: the spare byte past the end is all the buffer holds besides.
    return { bytes: buffer.subarray(0, filled), version: ctx.version(stat, target.key) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

export async function readStream(ctx: DriverContext, target: FsTarget, options?: FsReadStreamOptions): Promise<FsReadStream> {
  const signal = options?.signal;
  const chunkSize = options?.chunkSize ?? DEFAULT_CHUNK;
  if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) {
    throw new RangeError(`chunkSize must be a positive safe integer, got ${String(chunkSize)}`);
  }
  const path = target.displayPath;
  throwIfAborted(signal, path);
  const { handle, stat } = await openFile(ctx, target, signal);
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => undefined);
  };
  return {
    info: ctx.info(stat, target.key),
    close,
    async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array, void, undefined> {
      let position = 0;
      const shared = options?.reuseBuffer ? new Uint8Array(chunkSize) : undefined;
      try {
        while (!closed) {
          throwIfAborted(signal, path);
          const buffer = shared ?? new Uint8Array(chunkSize);
          const n = await ctx.call("read", path, () => handle.read(buffer, position));
          if (n === 0) return;
          position += n;
          yield n === chunkSize ? buffer : buffer.subarray(0, n);
        }
      } finally {
        await close();
      }
    },
  };
}

// Listed through the opened directory, checked to be at the canonical key before and after, so a folder
// swapped on the path cannot show another folder's names (or their sizes and times) under this one.
export async function listDir(ctx: DriverContext, target: FsTarget, options?: FsSignalOptions): Promise<FsDirEntry[]> {
  const signal = options?.signal;
  const path = target.displayPath;
  const key: string = target.key;
  const call = <T>(work: () => Promise<T>): Promise<T> => ctx.call("list", path, work);
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal, path);
    let dir: FsDirectory;
    try {
      dir = await call(() => ctx.driver.openDirectory(key));
    } catch (error) {
      if (!isFsError(error, "FS_NOT_FOUND")) throw error;
      const stat = await call(() => ctx.driver.stat(key));
      if (!stat) throw new FsError("FS_NOT_FOUND", `Cannot list "${path}": no such directory`, { cause: error, details: { path } });
      if (stat.type !== "directory") {
        throw new FsError("FS_NOT_DIRECTORY", `Cannot list "${path}": it is not a directory`, { cause: error, details: { path } });
      }
      if (attempt === READ_ATTEMPTS) throw error;
      continue; // a directory again by now
    }
    try {
      if ((await call(() => dir.currentPath())) === key) {
        const names = await call(() => dir.readdir());
        names.sort(compareUtf8);
        const found: [string, FsDriverStat][] = [];
        for (let start = 0; start < names.length; start += LIST_BATCH) {
          throwIfAborted(signal, path);
          const batch = names.slice(start, start + LIST_BATCH);
          const stats = await Promise.all(batch.map((name) => ctx.call("list", joinPath(path, name), () => dir.lstat(name))));
          batch.forEach((name, i) => {
            const stat = stats[i];
            if (stat) found.push([name, stat]); // else removed while listing
          });
        }
        if ((await call(() => dir.currentPath())) === key) {
          const entries: FsDirEntry[] = [];
          for (let start = 0; start < found.length; start += LIST_BATCH) {
            throwIfAborted(signal, path);
            entries.push(...(await Promise.all(found.slice(start, start + LIST_BATCH).map(([name, stat]) => entry(ctx, target, name, stat)))));
          }
          return entries;
        }
      }
    } finally {
      await dir.close().catch(() => undefined);
    }
    if (attempt === READ_ATTEMPTS) {
      throw new FsError(
        "FS_STALE_VERSION",
        `Cannot list "${path}": it, or a folder on its path, was moved or replaced while it was being listed; list it again`,
        {
          details: { path },
        },
      );
    }
  }
}

async function entry(ctx: DriverContext, parent: FsTarget, name: string, stat: FsDriverStat): Promise<FsDirEntry> {
  const lexicalKey = joinPath(parent.key, name);
  const displayPath = joinPath(parent.displayPath, name);
  let key = lexicalKey;
  if (stat.type === "symlink") {
    // A loop or an unreadable link keeps its own path as identity rather than failing the whole listing.
    key = await ctx.canonical(lexicalKey, "list", displayPath).then(
      (c) => c.path,
      () => lexicalKey,
    );
  }
  return {
    name,
    type: stat.type,
    target: { key: key as FsTargetKey, displayPath },
    size: stat.size,
    mtimeMs: stat.mtimeMs,
  };
}

// Opens the file at the canonical key, and only that file: its parent is opened and checked to be where the
// key says (the walk publication uses), the file is opened by name inside it without following a symlink,
// and afterwards the parent is checked again and the entry must still be the file opened. A folder on the
// path swapped or moved in between is met by another attempt, then refused; the caller judged the key, so
// bytes from anywhere else are never returned (docs/notes/0009, "Reads").
async function openFile(ctx: DriverContext, target: FsTarget, signal: AbortSignal | undefined): Promise<{ handle: FsDriverHandle; stat: FsDriverStat }> {
  const path = target.displayPath;
  let moved = 0;
  let replaced = 0;
  for (;;) {
    throwIfAborted(signal, path);
    const opened = await openAt(ctx, target);
    if (opened === "moved" || opened === "replaced") {
      if (opened === "moved" ? ++moved === READ_ATTEMPTS : ++replaced === REPLACED_ATTEMPTS) {
        const why =
          opened === "moved"
            ? "a folder on its path was moved or replaced while it was being opened"
            : `it was replaced ${REPLACED_ATTEMPTS} times while it was being opened`;
        throw new FsError("FS_STALE_VERSION", `Cannot read "${path}": ${why}; read it again`, { details: { path } });
      }
      continue;
    }
    const { handle, stat } = opened;
    try {
      if (stat.type !== "file") throw notRegular(path, stat.type, "read");
      throwIfAborted(signal, path);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    return opened;
  }
}

// One attempt: the opened file and its metadata, or why the path changed under it. "moved": the parent was
// not where the key says, or the name held something else (a symlink). "replaced": the parent stayed and the
// name now holds another regular file, as after another writer's publication.
async function openAt(ctx: DriverContext, target: FsTarget): Promise<{ handle: FsDriverHandle; stat: FsDriverStat } | "moved" | "replaced"> {
  const path = target.displayPath;
  const key: string = target.key;
  const call = <T>(work: () => Promise<T>): Promise<T> => ctx.call("read", path, work);
  if (key === "/") throw notRegular(path, "directory", "read");
  const parent = parentPath(key);
  const name = baseName(key);
  const dir = await call(() => ctx.driver.openDirectory(parent));
  try {
    if ((await call(() => dir.currentPath())) !== parent) return "moved";
    const handle = dir.openFile ? await call(() => dir.openFile!(name)) : await call(() => ctx.driver.open(key));
    if (!handle) {
      const there = await call(() => dir.lstat(name));
      if (there) return "moved"; // a symlink, or an entry that appeared since
      throw new FsError("FS_NOT_FOUND", `Cannot read "${path}": no such file or directory`, { details: { path } });
    }
    let verdict: "moved" | "replaced";
    try {
      const stat = await call(() => handle.stat());
      if ((await call(() => dir.currentPath())) !== parent) verdict = "moved";
      else {
        const now = await call(() => dir.lstat(name));
        if (now?.id === stat.id) return { handle, stat };
        verdict = now?.type === "file" && stat.type === "file" ? "replaced" : "moved";
      }
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    await handle.close().catch(() => undefined);
    return verdict;
  } finally {
    await dir.close().catch(() => undefined);
  }
}

function tooLarge(path: string, maxBytes: number, size?: number): FsError {
  const found = size === undefined ? "more than that" : `${size} bytes`;
  return new FsError("FS_TOO_LARGE", `Cannot read "${path}": the limit is ${maxBytes} bytes and it has ${found}`, {
    details: { path, maxBytes, ...(size === undefined ? {} : { size }) },
  });
}
