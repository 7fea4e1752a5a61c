import type { FsDirectory, FsDriver, FsDriverHandle, FsDriverStat } from "./driver.ts";
import { FsError, isFsError, throwIfAborted } from "./errors.ts";
import { KeyedLock } from "./lock.ts";
import { acquireLockFile, sweepDirectory } from "./lockfile.ts";
import { hostTag, type StagingOwner, stagingName } from "./names.ts";
import { type StorageState, storageState } from "./shared.ts";
import { baseName, compareUtf8, isAbsolutePath, isWithin, joinPath, parentPath, resolvePath } from "./paths.ts";
import type {
  FileSystem,
  FsBytes,
  FsDirEntry,
  FsInfo,
  FsPathInfo,
  FsReadStream,
  FsReadStreamOptions,
  FsResolveOptions,
  FsSignalOptions,
  FsTarget,
  FsTargetKey,
  FsVersion,
  FsFence,
  FsWriteData,
  FsWriteGuard,
  FsWriteOptions,
  FsWriteResult,
} from "./types.ts";

export interface CreateFileSystemOptions {
  /** Absolute base directory for relative paths. */
  readonly cwd: string;
}

const DEFAULT_CHUNK = 64 * 1024;
const MAX_LINK_HOPS = 40;
const LIST_BATCH = 64;
const WRITE_CHUNK = 1 << 20;
// Opening a file meets a folder swapped on its path at most this many times before the read is refused.
const READ_ATTEMPTS = 3;

/** One write on its way to publication. */
interface Publication {
  readonly target: FsTarget;
  /** The canonical destination approved by the first fence check, its parent and its name. */
  readonly key: string;
  readonly parent: string;
  readonly name: string;
  readonly source: WriteSource;
  readonly guard: FsWriteGuard | undefined;
  readonly fence: FsFence | undefined;
  readonly signal: AbortSignal | undefined;
  readonly durable: boolean;
  readonly private: boolean;
}

interface Canonical {
  readonly path: string;
  /** The last segment is a symlink whose target does not exist; `path` is where it points. */
  readonly dangling: boolean;
}

/**
 * Builds the FileSystem seam on top of an adapter's native operations. Everything that must behave the
 * same on every backend lives here: path validation, canonical identity, version tokens, guard semantics,
 * per-target serialization, the fence, byte caps and listing order.
 */
export function createFileSystem(driver: FsDriver, options: CreateFileSystemOptions): FileSystem {
  return new CoreFileSystem(driver, checkedCwd(options.cwd));
}

function checkedCwd(cwd: string): string {
  if (typeof cwd !== "string" || !isAbsolutePath(cwd) || cwd.includes("\0")) {
    throw new TypeError(`cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  }
  return resolvePath("/", cwd);
}

class CoreFileSystem implements FileSystem {
  readonly #driver: FsDriver;
  readonly cwd: string;
  // Call order of this provider's writes to one file.
  readonly #order = new KeyedLock();
  // Shared with every provider of the same storage in this process: the publication queue, and the count of
  // publications per canonical key that is part of every version token, so two writes that leave identical
  // metadata (same size, same millisecond, a recycled inode) still give distinct versions.
  readonly #state: StorageState;
  readonly #shared: KeyedLock;
  readonly #owner: StagingOwner | undefined;

  constructor(driver: FsDriver, cwd: string) {
    this.#driver = driver;
    this.cwd = cwd;
    this.#state = storageState(driver.storage);
    this.#shared = new KeyedLock(this.#state.tails);
    const processes = driver.processes;
    this.#owner = processes && { pid: processes.pid, host: hostTag(processes.host) };
  }

  get capabilities(): FileSystem["capabilities"] {
    return this.#driver.capabilities;
  }

  async resolve(path: string, options?: FsResolveOptions): Promise<FsTarget> {
    throwIfAborted(options?.signal);
    const displayPath = this.#absolute(path, options?.cwd);
    let canonical: Canonical;
    try {
      canonical = await this.#canonical(displayPath, "resolve", displayPath);
    } catch (error) {
      // #canonical fails FS_NOT_FOUND only for a path through something that is not a directory.
      throw isFsError(error, "FS_NOT_FOUND") ? ((await this.#throughNonDirectory(displayPath, error)) ?? error) : error;
    }
    throwIfAborted(options?.signal, displayPath);
    return { key: canonical.path as FsTargetKey, displayPath };
  }

  // Names the segment that is not a directory ("/ws/sub/x.txt" in "/ws/sub/x.txt/y"), so the fix is obvious.
  async #throughNonDirectory(displayPath: string, cause: FsError): Promise<FsError | undefined> {
    for (let end = displayPath.indexOf("/", 1); end !== -1; end = displayPath.indexOf("/", end + 1)) {
      const ancestor = displayPath.slice(0, end);
      const stat = await this.#driver.stat(ancestor).catch(() => undefined);
      if (stat && stat.type !== "directory") {
        const what = stat.type === "file" ? "a file, not a directory" : "not a directory";
        return new FsError("FS_NOT_FOUND", `Cannot resolve "${displayPath}": "${ancestor}" is ${what}`, {
          cause,
          details: { ...cause.details, path: displayPath, notDirectory: ancestor },
        });
      }
    }
    return undefined;
  }

  async stat(target: FsTarget, options?: FsSignalOptions): Promise<FsInfo | undefined> {
    throwIfAborted(options?.signal, target.displayPath);
    const stat = await this.#call("stat", target.displayPath, () => this.#driver.stat(target.key));
    throwIfAborted(options?.signal, target.displayPath);
    return stat && this.#info(stat, target.key);
  }

  async lstat(path: string, options?: FsResolveOptions): Promise<FsPathInfo | undefined> {
    throwIfAborted(options?.signal);
    const displayPath = this.#absolute(path, options?.cwd);
    const stat = await this.#call("stat", displayPath, () => this.#driver.lstat(displayPath));
    throwIfAborted(options?.signal, displayPath);
    return stat && { type: stat.type, size: stat.size, mtimeMs: stat.mtimeMs };
  }

  async readBytes(target: FsTarget, options: { readonly maxBytes: number; readonly signal?: AbortSignal }): Promise<FsBytes> {
    const { maxBytes, signal } = options;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative safe integer, got ${String(maxBytes)}`);
    }
    const path = target.displayPath;
    throwIfAborted(signal, path);
    const { handle, stat } = await this.#openFile(target, signal);
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
        const n = await this.#call("read", path, () => handle.read(buffer.subarray(filled), filled));
        if (n === 0) break;
        filled += n;
      }
      if (filled > maxBytes) throw tooLarge(path, maxBytes);
      // A view, not a copy: the spare byte past the end is all the buffer holds besides.
      return { bytes: buffer.subarray(0, filled), version: this.#version(stat, target.key) };
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  async readStream(target: FsTarget, options?: FsReadStreamOptions): Promise<FsReadStream> {
    const signal = options?.signal;
    const chunkSize = options?.chunkSize ?? DEFAULT_CHUNK;
    if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) {
      throw new RangeError(`chunkSize must be a positive safe integer, got ${String(chunkSize)}`);
    }
    const path = target.displayPath;
    throwIfAborted(signal, path);
    const { handle, stat } = await this.#openFile(target, signal);
    const call = this.#call.bind(this);
    let closed = false;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await handle.close().catch(() => undefined);
    };
    return {
      info: this.#info(stat, target.key),
      close,
      async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array, void, undefined> {
        let position = 0;
        const shared = options?.reuseBuffer ? new Uint8Array(chunkSize) : undefined;
        try {
          while (!closed) {
            throwIfAborted(signal, path);
            const buffer = shared ?? new Uint8Array(chunkSize);
            const n = await call("read", path, () => handle.read(buffer, position));
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
  async listDir(target: FsTarget, options?: FsSignalOptions): Promise<FsDirEntry[]> {
    const signal = options?.signal;
    const path = target.displayPath;
    const key: string = target.key;
    const call = <T>(work: () => Promise<T>): Promise<T> => this.#call("list", path, work);
    for (let attempt = 1; ; attempt++) {
      throwIfAborted(signal, path);
      let dir: FsDirectory;
      try {
        dir = await call(() => this.#driver.openDirectory(key));
      } catch (error) {
        if (!isFsError(error, "FS_NOT_FOUND")) throw error;
        const stat = await call(() => this.#driver.stat(key));
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
            const stats = await Promise.all(batch.map((name) => this.#call("list", joinPath(path, name), () => dir.lstat(name))));
            batch.forEach((name, i) => {
              const stat = stats[i];
              if (stat) found.push([name, stat]); // else removed while listing
            });
          }
          if ((await call(() => dir.currentPath())) === key) {
            const entries: FsDirEntry[] = [];
            for (let start = 0; start < found.length; start += LIST_BATCH) {
              throwIfAborted(signal, path);
              entries.push(...(await Promise.all(found.slice(start, start + LIST_BATCH).map(([name, stat]) => this.#entry(target, name, stat)))));
            }
            return entries;
          }
        }
      } finally {
        await dir.close().catch(() => undefined);
      }
      if (attempt === READ_ATTEMPTS) {
        throw new FsError("FS_STALE_VERSION", `Cannot list "${path}": it, or a folder on its path, was moved or replaced while it was being listed; list it again`, {
          details: { path },
        });
      }
    }
  }

  async #entry(parent: FsTarget, name: string, stat: FsDriverStat): Promise<FsDirEntry> {
    const lexicalKey = joinPath(parent.key, name);
    const displayPath = joinPath(parent.displayPath, name);
    let key = lexicalKey;
    if (stat.type === "symlink") {
      // A loop or an unreadable link keeps its own path as identity rather than failing the whole listing.
      key = await this.#canonical(lexicalKey, "list", displayPath).then((c) => c.path, () => lexicalKey);
    }
    return {
      name,
      type: stat.type,
      target: { key: key as FsTargetKey, displayPath },
      size: stat.size,
      mtimeMs: stat.mtimeMs,
    };
  }

  async write(target: FsTarget, data: FsWriteData, options?: FsWriteOptions): Promise<FsWriteResult> {
    const source = new WriteSource(data, options?.signal, target.displayPath);
    try {
      return await this.#write(target, source, options);
    } finally {
      await source.close();
    }
  }

  async #write(target: FsTarget, source: WriteSource, options: FsWriteOptions | undefined): Promise<FsWriteResult> {
    const guard = options?.guard;
    const signal = options?.signal;
    const fence = options?.fence;
    const path = target.displayPath;
    throwIfAborted(signal, path);
    // Writes through one provider to one file apply in call order; the queue shared with other providers is
    // taken only around publication.
    return await this.#order.run(target.key, async () => {
      const destination = await this.#destination(target);
      throwIfAborted(signal, path);
      if (fence) await fence(destination.target);
      const key = destination.target.key;
      if (destination.dangling) {
        throw new FsError(
          "FS_NOT_REGULAR_FILE",
          `Cannot write "${path}": it is a symbolic link to "${key}", which does not exist; write that path instead`,
          { details: { path } },
        );
      }
      const existing = await this.#call("write", path, () => this.#driver.lstat(key));
      if (existing && existing.type !== "file") throw notRegular(path, existing.type);
      if (guard?.kind === "createIfAbsent" && existing) throw notObserved(path);
      if (guard?.kind === "replaceIfVersion") this.#checkVersion(path, existing, key, guard.version);
      throwIfAborted(signal, path);
      const job: Publication = {
        target,
        key,
        parent: parentPath(key),
        name: baseName(key),
        source,
        guard,
        fence,
        signal,
        durable: options?.durable ?? true,
        private: options?.private === true,
      };
      const dir = await this.#openParent(job);
      try {
        return await this.#publish(job, dir);
      } finally {
        await dir.close().catch(() => undefined);
      }
    });
  }

  // Opens the destination's parent: the deepest existing ancestor, checked to be where its canonical path
  // says, then each missing level created, opened without following symlinks and checked before the next.
  // A parent swapped for a symlink after the first fence check is caught here, before anything is created.
  async #openParent(job: Publication): Promise<FsDirectory> {
    const path = job.target.displayPath;
    const missing: string[] = [];
    let at = job.parent;
    let dir: FsDirectory;
    for (;;) {
      try {
        dir = await this.#call("write", path, () => this.#driver.openDirectory(at));
        break;
      } catch (error) {
        if (!isFsError(error, "FS_NOT_FOUND") || at === "/") throw error;
        missing.push(baseName(at));
        at = parentPath(at);
      }
    }
    try {
      if ((await this.#call("write", path, () => dir.currentPath())) !== at) throw await this.#changed(job);
      const mode = job.private ? 0o700 : 0o777;
      for (const name of missing.reverse()) {
        throwIfAborted(job.signal, path);
        await this.#call("write", path, () => dir.mkdir(name, mode));
        const child = await this.#call("write", path, () => dir.openDirectory(name)).catch((error: unknown) => {
          // Not a directory any more (a symlink swapped in): the path changed under the write.
          if (isFsError(error, "FS_NOT_FOUND") || isFsError(error, "FS_NOT_DIRECTORY")) return undefined;
          throw error;
        });
        if (!child) throw await this.#changed(job);
        await dir.close().catch(() => undefined);
        dir = child;
        at = joinPath(at, name);
        if ((await this.#call("write", path, () => dir.currentPath())) !== at) throw await this.#changed(job);
      }
      if (job.private && this.capabilities.fileModes) {
        const { mode: dirMode } = await this.#call("write", path, () => dir.stat());
        if ((dirMode & 0o022) !== 0) {
          throw new FsError(
            "FS_PERMISSION_DENIED",
            `Cannot write "${path}" privately: other users can write to its folder (mode ${dirMode.toString(8)})`,
            { details: { path, mode: dirMode } },
          );
        }
      }
      return dir;
    } catch (error) {
      await dir.close().catch(() => undefined);
      throw error;
    }
  }

  // The folder of a private write must be this user's: its owner can rename and replace any entry, whatever
  // its mode. The staged file was just created by this process, so its owner is who this process writes as
  // (no runtime call needed to ask, and root's view of it is exact). Checked before any byte is staged.
  async #checkFolderOwner(job: Publication, dir: FsDirectory, staged: string): Promise<void> {
    const path = job.target.displayPath;
    const [mine, folder] = await Promise.all([this.#call("write", path, () => dir.lstat(staged)), this.#call("write", path, () => dir.stat())]);
    if (mine?.owner === undefined || folder.owner === undefined || mine.owner === folder.owner) return;
    throw new FsError(
      "FS_PERMISSION_DENIED",
      `Cannot write "${path}" privately: its folder belongs to another user (uid ${folder.owner}, not ${mine.owner})`,
      { details: { path, owner: folder.owner } },
    );
  }

  // Stage, lock, check, publish, release, re-verify, clean up (docs/notes/0009).
  async #publish(job: Publication, dir: FsDirectory): Promise<FsWriteResult> {
    const { target, key, parent, name, guard, fence, signal } = job;
    const path = target.displayPath;
    const processes = this.#driver.processes;
    const call = <T>(work: () => Promise<T>): Promise<T> => this.#call("write", path, work);
    if (processes) await sweepDirectory(dir, parent, processes, this.#state);

    const staged = stagingName(name, this.#owner);
    const file = await call(() => dir.createFile(staged, 0o600));
    if (!file) throw new FsError("FS_IO_ERROR", `Cannot write "${path}": the staging name "${staged}" is taken`, { details: { path } });
    let open = true;
    let stagedLeft = true;
    try {
      if (job.private && this.capabilities.owners) await this.#checkFolderOwner(job, dir, staged);
      for await (const bytes of job.source) {
        for (let offset = 0; offset < bytes.length; ) {
          throwIfAborted(signal, path);
          offset += await call(() => file.write(bytes.subarray(offset, offset + WRITE_CHUNK)));
        }
      }
      if (job.durable) await call(() => file.sync());
      throwIfAborted(signal, path);

      const published = await this.#shared.run(key, async () => {
        const release = processes ? await call(() => acquireLockFile(dir, name, processes, signal)) : undefined;
        try {
          // Judge the destination as it is now: a parent swapped for a symlink since the first check moves
          // the canonical path, and the fence or the comparisons below catch it.
          const now = await this.#destination(target);
          if (fence) await fence(now.target);
          if (now.target.key !== key || (await call(() => dir.currentPath())) !== parent) throw await this.#changed(job);
          const current = await call(() => dir.lstat(name));
          if (current && current.type !== "file") throw notRegular(path, current.type);
          if (guard?.kind === "createIfAbsent" && current) throw notObserved(path);
          if (guard?.kind === "replaceIfVersion") this.#checkVersion(path, current, key, guard.version);
          throwIfAborted(signal, path);
          // Owner-only while staged; the final mode only once publication is decided, set through the open file.
          if (this.capabilities.fileModes) {
            const mode = current ? current.mode : job.private ? 0o600 : this.#driver.newFileMode;
            await call(() => file.chmod(mode));
          }
          open = false;
          await call(() => file.close());
          if (guard?.kind === "createIfAbsent") {
            if (!(await call(() => dir.link(staged, name)))) return undefined;
            // Dropping the staged name changes the file's ctime: done before the version is read.
            await call(() => dir.unlink(staged));
            stagedLeft = false;
          } else {
            await call(() => dir.rename(staged, name));
            stagedLeft = false;
          }
          this.#state.generations.set(key, (this.#state.generations.get(key) ?? 0) + 1);
          return { existed: current !== undefined, after: await call(() => dir.lstat(name)) };
        } finally {
          await release?.().catch(() => undefined);
        }
      });
      if (!published) {
        const found = await call(() => dir.lstat(name));
        if (found && found.type !== "file") throw notRegular(path, found.type);
        throw notObserved(path);
      }
      if (fence) await this.#verifyPublished(job, dir, published.after, published.existed);
      return {
        operation: published.existed ? "update" : "create",
        version: published.after ? this.#version(published.after, key) : (`gone:${key}` as FsVersion),
        target: { key: key as FsTargetKey, displayPath: path },
      };
    } finally {
      if (open) await file.close().catch(() => undefined);
      if (stagedLeft) await dir.unlink(staged).catch(() => undefined);
    }
  }

  // After publication, the folder must still be where the fence approved it. If it was moved out meanwhile,
  // a new file is taken back; a replaced file cannot be, and the error says where its new bytes now are.
  async #verifyPublished(job: Publication, dir: FsDirectory, after: FsDriverStat | undefined, existed: boolean): Promise<void> {
    const where = await dir.currentPath().catch(() => undefined);
    if (where === job.parent || !job.fence) return;
    const path = job.target.displayPath;
    const moved = where === undefined ? undefined : joinPath(where, job.name);
    try {
      if (moved === undefined) throw await this.#changed(job);
      await job.fence({ key: moved as FsTargetKey, displayPath: path });
    } catch (error) {
      if (!existed) {
        const now = await dir.lstat(job.name).catch(() => undefined);
        if (now && after && now.id === after.id) await dir.unlink(job.name).catch(() => undefined);
        throw error;
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new FsError(
        isFsError(error) ? error.code : "FS_SANDBOX_DENIED",
        `"${path}" was replaced, but its folder was moved while the write was published${moved ? `; the new bytes are at "${moved}"` : ""}: ${reason}`,
        { cause: error, details: { path, ...(moved ? { destination: moved } : {}) } },
      );
    }
  }

  // The error for a destination that moved during the write: the fence's refusal when it now resolves
  // outside, otherwise a stale-path error that asks for a fresh read.
  async #changed(job: Publication): Promise<FsError> {
    const path = job.target.displayPath;
    try {
      const now = await this.#destination(job.target);
      if (job.fence) await job.fence(now.target);
    } catch (error) {
      if (isFsError(error)) return error;
    }
    return new FsError("FS_STALE_VERSION", `Cannot write "${path}": the path changed while writing; read it again`, {
      details: { path },
    });
  }

  contains(parent: FsTarget, child: FsTarget): boolean {
    return isWithin(parent.key, child.key);
  }

  #checkVersion(path: string, current: FsDriverStat | undefined, key: string, expected: FsVersion): void {
    if (!current) {
      throw new FsError("FS_STALE_VERSION", `Cannot write "${path}": it no longer exists; it was deleted after it was read`, {
        details: { path },
      });
    }
    if (this.#version(current, key) !== expected) {
      throw new FsError("FS_STALE_VERSION", `Cannot write "${path}": it changed since it was read; read it again`, {
        details: { path },
      });
    }
  }

  async #destination(target: FsTarget): Promise<{ target: FsTarget; dangling: boolean }> {
    const canonical = await this.#canonical(target.displayPath, "write", target.displayPath);
    return { target: { key: canonical.path as FsTargetKey, displayPath: target.displayPath }, dangling: canonical.dangling };
  }

  // The canonical path of `path`: its realpath when it exists; where it points when it is a dangling
  // symlink; otherwise the canonical parent plus the missing name, so the key of a missing file is the key
  // it will have once created, even beneath a symlinked or not-yet-created directory.
  async #canonical(path: string, verb: string, displayPath: string, hops = 0): Promise<Canonical> {
    const real = await this.#call(verb, displayPath, () => this.#driver.realpath(path));
    if (real !== undefined) return { path: real, dangling: false };
    if (path === "/") return { path, dangling: false };
    const link = await this.#call(verb, displayPath, () => this.#driver.lstat(path));
    if (link?.type === "symlink") {
      if (hops >= MAX_LINK_HOPS) {
        throw new FsError("FS_IO_ERROR", `Cannot ${verb} "${displayPath}": too many levels of symbolic links`, {
          details: { path: displayPath },
        });
      }
      const destination = await this.#call(verb, displayPath, () => this.#driver.readlink(path));
      const pointed = await this.#canonical(resolvePath(parentPath(path), destination), verb, displayPath, hops + 1);
      return { path: pointed.path, dangling: true };
    }
    const parent = await this.#canonical(parentPath(path), verb, displayPath, hops);
    return { path: joinPath(parent.path, baseName(path)), dangling: false };
  }

  // Opens the file at the canonical key, and only that file: its parent is opened and checked to be where the
  // key says (the walk publication uses), the file is opened by name inside it without following a symlink,
  // and afterwards the parent is checked again and the entry must still be the file opened. A folder on the
  // path swapped or moved in between is met by another attempt, then refused; the caller judged the key, so
  // bytes from anywhere else are never returned (docs/notes/0009, "Reads").
  async #openFile(target: FsTarget, signal: AbortSignal | undefined): Promise<{ handle: FsDriverHandle; stat: FsDriverStat }> {
    const path = target.displayPath;
    for (let attempt = 1; ; attempt++) {
      throwIfAborted(signal, path);
      const opened = await this.#openAt(target);
      if (opened) {
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
      if (attempt === READ_ATTEMPTS) {
        throw new FsError("FS_STALE_VERSION", `Cannot read "${path}": a folder on its path was moved or replaced while it was being opened; read it again`, {
          details: { path },
        });
      }
    }
  }

  // One attempt: the opened file and its metadata, or `undefined` when the path changed under it.
  async #openAt(target: FsTarget): Promise<{ handle: FsDriverHandle; stat: FsDriverStat } | undefined> {
    const path = target.displayPath;
    const key: string = target.key;
    const call = <T>(work: () => Promise<T>): Promise<T> => this.#call("read", path, work);
    if (key === "/") throw notRegular(path, "directory", "read");
    const parent = parentPath(key);
    const name = baseName(key);
    const dir = await call(() => this.#driver.openDirectory(parent));
    try {
      if ((await call(() => dir.currentPath())) !== parent) return undefined;
      const handle = dir.openFile ? await call(() => dir.openFile!(name)) : await call(() => this.#driver.open(key));
      if (!handle) {
        const there = await call(() => dir.lstat(name));
        if (there) return undefined; // a symlink, or an entry that appeared since
        throw new FsError("FS_NOT_FOUND", `Cannot read "${path}": no such file or directory`, { details: { path } });
      }
      try {
        const stat = await call(() => handle.stat());
        if ((await call(() => dir.currentPath())) === parent && (await call(() => dir.lstat(name)))?.id === stat.id) {
          return { handle, stat };
        }
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
      await handle.close().catch(() => undefined);
      return undefined;
    } finally {
      await dir.close().catch(() => undefined);
    }
  }

  #absolute(path: string, cwd: string | undefined): string {
    if (typeof path !== "string") throw new TypeError(`path must be a string, got ${typeof path}`);
    if (path.includes("\0")) {
      throw new FsError("FS_NOT_FOUND", `Invalid path ${JSON.stringify(path)}: it contains a NUL byte`);
    }
    if (path.trim() === "") throw new FsError("FS_NOT_FOUND", "Invalid path: it is empty");
    return resolvePath(cwd === undefined ? this.cwd : checkedCwd(cwd), path);
  }

  #info(stat: FsDriverStat, key: string): FsInfo {
    const type = stat.type === "file" || stat.type === "directory" ? stat.type : "other";
    return { type, size: stat.size, mtimeMs: stat.mtimeMs, version: this.#version(stat, key) };
  }

  #version(stat: FsDriverStat, key: string): FsVersion {
    return `${stat.token}#${this.#state.generations.get(key) ?? 0}` as FsVersion;
  }

  // Runs a driver call and gives any failure the action and the display path. Errors raised by core itself
  // already name their path and pass through unchanged.
  async #call<T>(verb: string, path: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isFsError(error)) {
        if (error.details.path !== undefined) throw error;
        throw new FsError(error.code, `Cannot ${verb} "${path}": ${error.message}`, {
          cause: error.cause ?? error,
          details: { ...error.details, path },
        });
      }
      throw new FsError("FS_IO_ERROR", `Cannot ${verb} "${path}": ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
        details: { path },
      });
    }
  }
}

// The content of one write as the driver consumes it: a whole buffer is one chunk; a stream is read once, checked
// for type and abort on every chunk, and its iterator closed if the write ends before the stream does.
class WriteSource implements AsyncIterable<Uint8Array> {
  readonly #data: FsWriteData;
  readonly #signal: AbortSignal | undefined;
  readonly #path: string;
  #iterator: AsyncIterator<Uint8Array> | undefined;
  #done = false;

  constructor(data: FsWriteData, signal: AbortSignal | undefined, path: string) {
    if (!(data instanceof Uint8Array) && typeof (data as Partial<AsyncIterable<Uint8Array>>)?.[Symbol.asyncIterator] !== "function") {
      throw new TypeError("write data must be a Uint8Array or an AsyncIterable of Uint8Array chunks");
    }
    this.#data = data;
    this.#signal = signal;
    this.#path = path;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array, void, undefined> {
    if (this.#iterator || this.#done) throw new Error("a write source can be consumed only once");
    if (this.#data instanceof Uint8Array) {
      this.#done = true;
      yield this.#data;
      return;
    }
    const iterator = (this.#iterator = this.#data[Symbol.asyncIterator]());
    for (;;) {
      throwIfAborted(this.#signal, this.#path);
      const next = await iterator.next();
      if (next.done) {
        this.#done = true;
        return;
      }
      if (!(next.value instanceof Uint8Array)) throw new TypeError("write data chunks must be Uint8Arrays");
      yield next.value;
    }
  }

  async close(): Promise<void> {
    if (this.#done || this.#data instanceof Uint8Array) return;
    this.#done = true;
    const iterator = this.#iterator ?? this.#data[Symbol.asyncIterator]();
    await iterator.return?.().catch(() => undefined);
  }
}

function tooLarge(path: string, maxBytes: number, size?: number): FsError {
  const found = size === undefined ? "more than that" : `${size} bytes`;
  return new FsError("FS_TOO_LARGE", `Cannot read "${path}": the limit is ${maxBytes} bytes and it has ${found}`, {
    details: { path, maxBytes, ...(size === undefined ? {} : { size }) },
  });
}

function notRegular(path: string, type: string, verb = "write"): FsError {
  const what = type === "directory" ? "a directory" : type === "symlink" ? "a symbolic link" : "not a regular file";
  return new FsError("FS_NOT_REGULAR_FILE", `Cannot ${verb} "${path}": it is ${what}`, { details: { path, type } });
}

function notObserved(path: string): FsError {
  return new FsError("FS_NOT_OBSERVED", `Cannot create "${path}": it already exists; read it before replacing it`, {
    details: { path },
  });
}
