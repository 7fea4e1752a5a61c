import { type BigIntStats, constants, existsSync, promises as fsp } from "node:fs";
import { hostname } from "node:os";
import process from "node:process";
import {
  createFileSystem,
  type FileSystem,
  type FsCapabilities,
  type FsDirectory,
  type FsDriver,
  type FsDriverHandle,
  type FsDriverStat,
  FsError,
  type FsProcessInfo,
  type FsStagedFile,
  isAbsentError,
  joinPath,
  localDiskStorage,
} from "../../core/mod.ts";
import { mapNodeError, nodeCall } from "./map-error.ts";

export interface NodeProviderOptions {
  /** Absolute base directory for relative paths; defaults to `process.cwd()`. */
  readonly cwd?: string;
}

/** A FileSystem over `node:fs` on the local disk. */
export function createNodeProvider(options?: NodeProviderOptions): FileSystem {
  return createFileSystem(createNodeDriver(), { cwd: options?.cwd ?? process.cwd() });
}

/** The native operations behind {@link createNodeProvider}, for wrapping (tracing, fault injection). */
export function createNodeDriver(): FsDriver {
  return new NodeDriver();
}

// O_NONBLOCK keeps open() of a FIFO from waiting for a writer; it changes nothing for regular files.
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
const STAGE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
// Linux's O_PATH (one value on every Linux architecture Node runs on): a handle that names a directory
// without needing permission to read it.
const O_PATH = 0o10000000;
const PINNED = process.platform === "linux" && existsSync("/proc/self/fd");
const DIRECTORY_FLAGS = (PINNED ? O_PATH : constants.O_RDONLY) | constants.O_DIRECTORY;

class NodeDriver implements FsDriver {
  readonly capabilities: FsCapabilities = {
    symlinks: true,
    fileModes: true,
    owners: process.platform !== "win32",
    permissionErrors: process.getuid?.() !== 0,
    // Nanosecond fields, but the kernel stamps them from a clock that may advance once per tick.
    timestampResolutionMs: 10,
    pinnedPublication: PINNED,
    detectsDeadWriters: true,
    atomicNoReplaceMove: false,
  };
  // New files get the mode an editor would give them, not the owner-only mode of the staged copy.
  readonly newFileMode: number = 0o666 & ~umask();
  readonly storage: object = localDiskStorage();
  readonly processes: FsProcessInfo = { pid: process.pid, host: hostname(), alive };

  async realpath(path: string): Promise<string | undefined> {
    try {
      return await fsp.realpath(path);
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return undefined;
      throw mapNodeError(error);
    }
  }

  stat(path: string): Promise<FsDriverStat | undefined> {
    return probe(() => fsp.stat(path, { bigint: true }));
  }

  lstat(path: string): Promise<FsDriverStat | undefined> {
    return probe(() => fsp.lstat(path, { bigint: true }));
  }

  readlink(path: string): Promise<string> {
    return nodeCall(() => fsp.readlink(path));
  }

  readdir(path: string): Promise<string[]> {
    return nodeCall(() => fsp.readdir(path));
  }

  async open(path: string): Promise<FsDriverHandle> {
    return readHandle(await nodeCall(() => fsp.open(path, READ_FLAGS)));
  }

  async openDirectory(path: string): Promise<FsDirectory> {
    return new NodeDirectory(await nodeCall(() => fsp.open(path, DIRECTORY_FLAGS)), path);
  }
}

// On Linux a directory is opened with O_PATH and reached through its /proc/self/fd entry: the kernel
// resolves that magic link to the opened directory itself, so `<entry>/<name>` acts on the opened directory
// wherever it has been moved, and a symlink swapped in for it or for an ancestor redirects nothing.
// Elsewhere the directory's path is used, after checking that it still leads to the opened directory.
class NodeDirectory implements FsDirectory {
  readonly #handle: fsp.FileHandle;
  readonly #path: string;
  readonly #base: string;
  // The opened directory's device and inode, which never change.
  #opened: BigIntStats | undefined;

  constructor(handle: fsp.FileHandle, path: string) {
    this.#handle = handle;
    this.#path = path;
    this.#base = PINNED ? `/proc/self/fd/${handle.fd}` : path;
  }

  async currentPath(): Promise<string | undefined> {
    try {
      // The link says where the directory is now; comparing identities rules out a removed one (" (deleted)").
      const now = PINNED ? await fsp.readlink(this.#base) : await fsp.realpath(this.#path);
      const opened = (this.#opened ??= await this.#handle.stat({ bigint: true }));
      const there = await fsp.stat(now, { bigint: true });
      return there.dev === opened.dev && there.ino === opened.ino ? now : undefined;
    } catch {
      return undefined;
    }
  }

  stat(): Promise<FsDriverStat> {
    return nodeCall(async () => toStat(await this.#handle.stat({ bigint: true })));
  }

  async lstat(name: string): Promise<FsDriverStat | undefined> {
    const at = await this.#at(name);
    return probe(() => fsp.lstat(at, { bigint: true }));
  }

  async openDirectory(name: string): Promise<FsDirectory | undefined> {
    const at = await this.#at(name);
    try {
      return new NodeDirectory(await fsp.open(at, DIRECTORY_FLAGS | constants.O_NOFOLLOW), joinPath(this.#path, name));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ENOENT") return undefined;
      if (code === "ENOTDIR" || code === "ELOOP") throw new FsError("FS_NOT_DIRECTORY", "it is not a directory", { cause: error });
      throw mapNodeError(error);
    }
  }

  async mkdir(name: string, mode: number): Promise<boolean> {
    const at = await this.#at(name);
    return nodeCall(() => fsp.mkdir(at, { mode }).then(() => true, ifExists(false)));
  }

  async createFile(name: string, mode: number): Promise<FsStagedFile | undefined> {
    const at = await this.#at(name);
    const handle = await nodeCall(() => fsp.open(at, STAGE_FLAGS, mode).catch(ifExists(undefined)));
    if (!handle) return undefined;
    return {
      write: (bytes) => nodeCall(async () => (await handle.write(bytes, 0, bytes.length)).bytesWritten),
      sync: () => nodeCall(() => handle.sync()),
      chmod: (mode) => nodeCall(() => handle.chmod(mode)),
      close: () => nodeCall(() => handle.close()),
    };
  }

  async readFile(name: string, maxBytes: number): Promise<Uint8Array | undefined> {
    const at = await this.#at(name);
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(at, READ_FLAGS | constants.O_NOFOLLOW);
    } catch (error) {
      if (isAbsentError(error) || (error as { code?: unknown }).code === "ELOOP") return undefined;
      throw mapNodeError(error);
    }
    try {
      if (!(await handle.stat()).isFile()) return undefined;
      const buffer = new Uint8Array(maxBytes);
      const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  async openFile(name: string): Promise<FsDriverHandle | undefined> {
    const at = await this.#at(name);
    try {
      return readHandle(await fsp.open(at, READ_FLAGS | constants.O_NOFOLLOW));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ENOENT" || code === "ELOOP") return undefined;
      throw mapNodeError(error);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    const source = await this.#at(from);
    const destination = await this.#at(to);
    await nodeCall(() => fsp.rename(source, destination));
  }

  async link(from: string, to: string): Promise<boolean> {
    const source = await this.#at(from);
    const destination = await this.#at(to);
    return nodeCall(() => fsp.link(source, destination).then(() => true, ifExists(false)));
  }

  async unlink(name: string): Promise<boolean> {
    const at = await this.#at(name);
    return nodeCall(() =>
      fsp.unlink(at).then(
        () => true,
        (error: unknown) => {
          if ((error as { code?: unknown }).code === "ENOENT") return false;
          throw error;
        },
      ),
    );
  }

  async rmdir(name: string): Promise<boolean> {
    const at = await this.#at(name);
    // rmdir(2) follows no symlink at the last segment: one there fails ENOTDIR.
    return nodeCall(() =>
      fsp.rmdir(at).then(
        () => true,
        (error: unknown) => {
          const code = (error as { code?: unknown }).code;
          if (code === "ENOENT") return false;
          if (code === "ENOTDIR") throw new FsError("FS_NOT_DIRECTORY", "it is not a directory", { cause: error });
          if (code === "EEXIST") throw new FsError("FS_NOT_EMPTY", "the folder is not empty", { cause: error });
          throw error;
        },
      ),
    );
  }

  // Node has no renameat2: a file (or symlink) moves without replacing by link then unlink, which the kernel
  // refuses atomically when the name is taken; a directory by a check then a rename (atomicNoReplaceMove: false).
  async move(from: string, into: FsDirectory, to: string, replace: boolean): Promise<boolean> {
    if (!(into instanceof NodeDirectory)) throw new FsError("FS_IO_ERROR", "the destination folder was not opened by this driver");
    const source = await this.#at(from);
    const destination = await into.#at(to);
    if (replace) {
      await nodeCall(() => fsp.rename(source, destination));
      return true;
    }
    const moving = await probe(() => fsp.lstat(source, { bigint: true }));
    if (!moving) throw new FsError("FS_NOT_FOUND", "no such file or directory");
    if (moving.type !== "directory") {
      const linked = await fsp.link(source, destination).then(
        () => true,
        (error: unknown) => {
          const code = (error as { code?: unknown }).code;
          if (code === "EEXIST") return false;
          // Hard links refused (protected_hardlinks, a filesystem without them): the directory way below.
          if (code === "EPERM" || code === "EMLINK" || code === "ENOTSUP" || code === "EOPNOTSUPP") return undefined;
          throw mapNodeError(error);
        },
      );
      if (linked === false) return false;
      if (linked) {
        // Only the name that still holds the moved file is removed: one replaced meanwhile stays.
        const now = await probe(() => fsp.lstat(source, { bigint: true }));
        if (now?.id === moving.id) await nodeCall(() => fsp.unlink(source).catch(ifGone(undefined)));
        return true;
      }
    }
    if (await probe(() => fsp.lstat(destination, { bigint: true }))) return false;
    return nodeCall(() =>
      fsp.rename(source, destination).then(
        () => true,
        (error: unknown) => {
          // Something took the name in the instant since the check: a non-empty folder or a file is kept.
          const code = (error as { code?: unknown }).code;
          if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR" || code === "EISDIR") return false;
          throw error;
        },
      ),
    );
  }

  async readdir(): Promise<string[]> {
    const at = PINNED ? this.#base : await this.#at(".");
    return nodeCall(() => fsp.readdir(at));
  }

  close(): Promise<void> {
    return nodeCall(() => this.#handle.close());
  }

  // Without the pinned base every operation first checks that the path still leads to the opened directory,
  // which narrows the race to the instant between the check and the call but does not close it.
  async #at(name: string): Promise<string> {
    if (!PINNED && (await this.currentPath()) !== this.#path) {
      throw new FsError("FS_STALE_VERSION", "its folder was moved or removed while writing; read it again");
    }
    return `${this.#base}/${name}`;
  }
}

function readHandle(handle: fsp.FileHandle): FsDriverHandle {
  return {
    stat: () => nodeCall(async () => toStat(await handle.stat({ bigint: true }))),
    read: (buffer, position) => nodeCall(async () => (await handle.read(buffer, 0, buffer.length, position)).bytesRead),
    close: () => nodeCall(() => handle.close()),
  };
}

// Turns ENOENT into a result.
function ifGone<T>(value: T): (error: unknown) => T {
  return (error) => {
    if ((error as { code?: unknown }).code === "ENOENT") return value;
    throw error;
  };
}

// Turns EEXIST into a result.
function ifExists<T>(value: T): (error: unknown) => T {
  return (error) => {
    if ((error as { code?: unknown }).code === "EEXIST") return value;
    throw error;
  };
}

async function probe(work: () => Promise<BigIntStats>): Promise<FsDriverStat | undefined> {
  try {
    return toStat(await work());
  } catch (error) {
    if (isAbsentError(error)) return undefined;
    throw mapNodeError(error);
  }
}

function toStat(s: BigIntStats): FsDriverStat {
  return {
    type: s.isFile() ? "file" : s.isDirectory() ? "directory" : s.isSymbolicLink() ? "symlink" : "other",
    size: Number(s.size),
    mtimeMs: Number(s.mtimeNs / 1000n) / 1000,
    mode: Number(s.mode & 0o777n),
    owner: Number(s.uid),
    token: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`,
    id: `${s.dev}:${s.ino}`,
  };
}

// Signal 0 asks whether a process exists without touching it: ESRCH means none, EPERM one of another user.
function alive(pid: number): boolean | undefined {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === "ESRCH" ? false : code === "EPERM" ? true : undefined;
  }
}

function umask(): number {
  // The no-argument form is the only one allowed in worker threads.
  return process.umask();
}
