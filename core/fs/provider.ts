import type { FsDriver, FsDriverHandle, FsDriverStat } from "./driver.ts";
import { FsError, isFsError, throwIfAborted } from "./errors.ts";
import { KeyedLock } from "./lock.ts";
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
  FsWriteData,
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
  readonly #lock = new KeyedLock();
  // Publications through this provider, per canonical key. Part of every version token, so two writes that
  // leave identical metadata (same size, same millisecond, a recycled inode) still give distinct versions.
  readonly #generations = new Map<string, number>();

  constructor(driver: FsDriver, cwd: string) {
    this.#driver = driver;
    this.cwd = cwd;
  }

  get capabilities(): FileSystem["capabilities"] {
    return this.#driver.capabilities;
  }

  async resolve(path: string, options?: FsResolveOptions): Promise<FsTarget> {
    throwIfAborted(options?.signal);
    const displayPath = this.#absolute(path, options?.cwd);
    const canonical = await this.#canonical(displayPath, "resolve", displayPath);
    throwIfAborted(options?.signal, displayPath);
    return { key: canonical.path as FsTargetKey, displayPath };
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

  async listDir(target: FsTarget, options?: FsSignalOptions): Promise<FsDirEntry[]> {
    const signal = options?.signal;
    const dir = target.displayPath;
    throwIfAborted(signal, dir);
    const stat = await this.#call("list", dir, () => this.#driver.stat(target.key));
    if (!stat) throw new FsError("FS_NOT_FOUND", `Cannot list "${dir}": no such directory`, { details: { path: dir } });
    if (stat.type !== "directory") {
      throw new FsError("FS_NOT_DIRECTORY", `Cannot list "${dir}": it is not a directory`, { details: { path: dir } });
    }
    const names = await this.#call("list", dir, () => this.#driver.readdir(target.key));
    names.sort(compareUtf8);
    const entries: FsDirEntry[] = [];
    for (let start = 0; start < names.length; start += LIST_BATCH) {
      throwIfAborted(signal, dir);
      const batch = await Promise.all(names.slice(start, start + LIST_BATCH).map((name) => this.#entry(target, name)));
      for (const entry of batch) if (entry) entries.push(entry);
    }
    throwIfAborted(signal, dir);
    return entries;
  }

  async #entry(parent: FsTarget, name: string): Promise<FsDirEntry | undefined> {
    const lexicalKey = joinPath(parent.key, name);
    const displayPath = joinPath(parent.displayPath, name);
    const stat = await this.#call("list", displayPath, () => this.#driver.lstat(lexicalKey));
    if (!stat) return undefined; // removed while listing
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
    return await this.#lock.run(target.key, async () => {
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
      if (!existing) await this.#call("write", path, () => this.#driver.mkdirp(parentPath(key)));

      const outcome = await this.#call("write", path, () =>
        this.#driver.publish(key, source, {
          exclusive: guard?.kind === "createIfAbsent",
          mode: existing && this.capabilities.fileModes ? existing.mode : undefined,
          signal,
          durable: options?.durable ?? true,
          beforeCommit: async () => {
            throwIfAborted(signal, path);
            // Judge the destination as it is now: a parent swapped for a symlink since the first check
            // moves the canonical path, and the fence or the comparison below catches it.
            const now = await this.#destination(target);
            if (fence) await fence(now.target);
            if (now.target.key !== key) {
              throw new FsError("FS_STALE_VERSION", `Cannot write "${path}": the path changed while writing; read it again`, {
                details: { path },
              });
            }
            if (guard?.kind === "replaceIfVersion") {
              this.#checkVersion(path, await this.#driver.lstat(key), key, guard.version);
            }
            throwIfAborted(signal, path);
          },
        }),
      );
      if (outcome === "exists") {
        const found = await this.#call("write", path, () => this.#driver.lstat(key));
        if (found && found.type !== "file") throw notRegular(path, found.type);
        throw notObserved(path);
      }
      this.#generations.set(key, (this.#generations.get(key) ?? 0) + 1);
      const after = await this.#call("write", path, () => this.#driver.stat(key));
      return {
        operation: existing ? "update" : "create",
        version: after ? this.#version(after, key) : (`gone:${key}` as FsVersion),
        target: destination.target,
      };
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

  async #openFile(target: FsTarget, signal: AbortSignal | undefined): Promise<{ handle: FsDriverHandle; stat: FsDriverStat }> {
    const path = target.displayPath;
    const handle = await this.#call("read", path, () => this.#driver.open(target.key));
    try {
      const stat = await this.#call("read", path, () => handle.stat());
      if (stat.type !== "file") throw notRegular(path, stat.type, "read");
      throwIfAborted(signal, path);
      return { handle, stat };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
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
    return `${stat.token}#${this.#generations.get(key) ?? 0}` as FsVersion;
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
