// The FileSystem seam built from a driver. Its parts live beside it: context.ts (driver calls, canonical
// identity, versions), reading.ts (reads and listings), publication.ts (writes), write-source.ts,
// mutations.ts (removal, moves, folders) and folders.ts (opening verified folders).
import { DriverContext, type Canonical } from "./context.ts";
import type { FsDriver } from "./driver.ts";
import { FsError, isFsError, throwIfAborted } from "./errors.ts";
import { Mutator } from "./mutations.ts";
import { isAbsolutePath, isWithin, resolvePath } from "./paths.ts";
import { Publisher } from "./publication.ts";
import { listDir, readBytes, readStream } from "./reading.ts";
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
  FsReadStreamOptions,
  FsRemoveOptions,
  FsRemoveResult,
  FsResolveOptions,
  FsSignalOptions,
  FsTarget,
  FsTargetKey,
  FsWriteData,
  FsWriteOptions,
  FsWriteResult,
} from "./types.ts";
import { WriteSource } from "./write-source.ts";

export interface CreateFileSystemOptions {
  /** Absolute base directory for relative paths. */
  readonly cwd: string;
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
  readonly #ctx: DriverContext;
  readonly #publisher: Publisher;
  readonly #mutator: Mutator;
  readonly cwd: string;

  constructor(driver: FsDriver, cwd: string) {
    this.#ctx = new DriverContext(driver);
    this.#publisher = new Publisher(this.#ctx);
    this.#mutator = new Mutator(this.#ctx);
    this.cwd = cwd;
  }

  get capabilities(): FileSystem["capabilities"] {
    return this.#ctx.capabilities;
  }

  async resolve(path: string, options?: FsResolveOptions): Promise<FsTarget> {
    throwIfAborted(options?.signal);
    const displayPath = this.#absolute(path, options?.cwd);
    let canonical: Canonical;
    try {
      canonical = await this.#ctx.canonical(displayPath, "resolve", displayPath);
    } catch (error) {
      // canonical() fails FS_NOT_FOUND only for a path through something that is not a directory.
      throw isFsError(error, "FS_NOT_FOUND") ? ((await this.#throughNonDirectory(displayPath, error)) ?? error) : error;
    }
    throwIfAborted(options?.signal, displayPath);
    return { key: canonical.path as FsTargetKey, displayPath };
  }

  // Names the segment that is not a directory ("/ws/sub/x.txt" in "/ws/sub/x.txt/y"), so the fix is obvious.
  async #throughNonDirectory(displayPath: string, cause: FsError): Promise<FsError | undefined> {
    for (let end = displayPath.indexOf("/", 1); end !== -1; end = displayPath.indexOf("/", end + 1)) {
      const ancestor = displayPath.slice(0, end);
      const stat = await this.#ctx.driver.stat(ancestor).catch(() => undefined);
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
    const stat = await this.#ctx.call("stat", target.displayPath, () => this.#ctx.driver.stat(target.key));
    throwIfAborted(options?.signal, target.displayPath);
    return stat && this.#ctx.info(stat, target.key);
  }

  async lstat(path: string, options?: FsResolveOptions): Promise<FsPathInfo | undefined> {
    throwIfAborted(options?.signal);
    const displayPath = this.#absolute(path, options?.cwd);
    const stat = await this.#ctx.call("stat", displayPath, () => this.#ctx.driver.lstat(displayPath));
    throwIfAborted(options?.signal, displayPath);
    return stat && { type: stat.type, size: stat.size, mtimeMs: stat.mtimeMs };
  }

  readBytes(target: FsTarget, options: { readonly maxBytes: number; readonly signal?: AbortSignal }): Promise<FsBytes> {
    return readBytes(this.#ctx, target, options);
  }

  readStream(target: FsTarget, options?: FsReadStreamOptions): Promise<FsReadStream> {
    return readStream(this.#ctx, target, options);
  }

  listDir(target: FsTarget, options?: FsSignalOptions): Promise<FsDirEntry[]> {
    return listDir(this.#ctx, target, options);
  }

  async write(target: FsTarget, data: FsWriteData, options?: FsWriteOptions): Promise<FsWriteResult> {
    const source = new WriteSource(data, options?.signal, target.displayPath);
    try {
      return await this.#publisher.write(target, source, options);
    } finally {
      await source.close();
    }
  }

  remove(target: FsTarget, options?: FsRemoveOptions): Promise<FsRemoveResult> {
    return this.#mutator.remove(target, options);
  }

  move(from: FsTarget, to: FsTarget, options?: FsMoveOptions): Promise<FsMoveResult> {
    return this.#mutator.move(from, to, options);
  }

  mkdir(target: FsTarget, options?: FsMkdirOptions): Promise<FsMkdirResult> {
    return this.#mutator.mkdir(target, options);
  }

  contains(parent: FsTarget, child: FsTarget): boolean {
    return isWithin(parent.key, child.key);
  }

  #absolute(path: string, cwd: string | undefined): string {
    if (typeof path !== "string") throw new TypeError(`path must be a string, got ${typeof path}`);
    if (path.includes("\0")) {
      throw new FsError("FS_NOT_FOUND", `Invalid path ${JSON.stringify(path)}: it contains a NUL byte`);
    }
    if (path.trim() === "") throw new FsError("FS_NOT_FOUND", "Invalid path: it is empty");
    return resolvePath(cwd === undefined ? this.cwd : checkedCwd(cwd), path);
  }
}
