import { Volume } from "memfs";
import {
  createFileSystem,
  errnoError,
  type FileSystem,
  type FsCapabilities,
  type FsDirectory,
  type FsDriver,
  type FsDriverHandle,
  type FsDriverStat,
  FsError,
  type FsStagedFile,
  isAbsentError,
  joinPath,
  parentPath,
  resolvePath,
} from "../../core/mod.ts";
import { mapMemfsError, memfsCall } from "./map-error.ts";

/** Seed content: file bytes or text by path; `null` makes an empty directory. */
export type MemoryFiles = Readonly<Record<string, string | Uint8Array | null>>;

export interface MemoryProviderOptions {
  /** The memfs volume to serve; a fresh empty one by default. Keep a reference to inspect or seed it. */
  readonly volume?: Volume;
  /** Files to create before the provider is returned; relative paths are taken from `cwd`. */
  readonly files?: MemoryFiles;
  /** Absolute base directory for relative paths; created if missing. Defaults to `/`. */
  readonly cwd?: string;
}

/**
 * A fresh, empty memfs volume. memfs asks the runtime for the user and group ids on every path walk, a
 * system call each; this volume asks once, which makes listing large trees about twice as fast.
 */
export function createMemoryVolume(): Volume {
  const host = (globalThis as { process?: { getuid?(): number; getgid?(): number; platform?: string } }).process;
  const uid = host?.getuid?.() ?? 0;
  const gid = host?.getgid?.() ?? 0;
  return Volume.fromNestedJSON({}, "/", {
    process: { cwd: () => "/", platform: host?.platform ?? "linux", emitWarning: () => {}, env: {}, getuid: () => uid, getgid: () => gid },
  });
}

/** A FileSystem over a memfs volume: no disk, no process, the same behaviour as the disk adapters. */
export function createMemoryProvider(options?: MemoryProviderOptions): FileSystem {
  const volume = options?.volume ?? createMemoryVolume();
  const cwd = resolvePath("/", options?.cwd ?? "/");
  volume.mkdirSync(cwd, { recursive: true });
  for (const [path, content] of Object.entries(options?.files ?? {})) {
    const absolute = resolvePath(cwd, path);
    if (content === null) {
      volume.mkdirSync(absolute, { recursive: true });
    } else {
      volume.mkdirSync(parentPath(absolute), { recursive: true });
      volume.writeFileSync(absolute, content);
    }
  }
  return createFileSystem(createMemoryDriver(volume), { cwd });
}

/** The native operations behind {@link createMemoryProvider}, for wrapping (tracing, fault injection). */
export function createMemoryDriver(volume: Volume): FsDriver {
  return new MemoryDriver(volume);
}

const NEW_FILE_MODE = 0o644;

// memfs runs every call synchronously, so a check followed by a mutation in the same turn cannot be
// interleaved with any other caller; the driver relies on that instead of memfs's rename of symlinks and
// directories, which loses data, and renames only files.
class MemoryDriver implements FsDriver {
  readonly capabilities: FsCapabilities = {
    symlinks: true,
    fileModes: true,
    owners: true,
    permissionErrors: true,
    timestampResolutionMs: 1,
    pinnedPublication: true,
    detectsDeadWriters: false,
    atomicNoReplaceMove: true,
  };
  readonly newFileMode = NEW_FILE_MODE;
  // Providers of one volume share its lock table and publication counters; no other process can reach it.
  readonly storage: object;
  readonly #vol: Volume;

  constructor(volume: Volume) {
    this.#vol = volume;
    this.storage = volume;
  }

  async realpath(path: string): Promise<string | undefined> {
    try {
      return String(this.#vol.realpathSync(path));
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return undefined;
      throw mapMemfsError(error);
    }
  }

  async stat(path: string): Promise<FsDriverStat | undefined> {
    return this.#probe(() => this.#vol.statSync(path));
  }

  async lstat(path: string): Promise<FsDriverStat | undefined> {
    return this.#probe(() => this.#vol.lstatSync(path));
  }

  async readlink(path: string): Promise<string> {
    return memfsCall(() => String(this.#vol.readlinkSync(path)));
  }

  async readdir(path: string): Promise<string[]> {
    return memfsCall(() => this.#vol.readdirSync(path).map((name) => String(name)));
  }

  async open(path: string): Promise<FsDriverHandle> {
    return readHandle(
      this.#vol,
      memfsCall(() => this.#vol.openSync(path, "r")),
    );
  }

  async openDirectory(path: string): Promise<FsDirectory> {
    const vol = this.#vol;
    const real = memfsCall(() => String(vol.realpathSync(path)));
    const stat = memfsCall((): MemfsStats => vol.statSync(real));
    if (!stat.isDirectory()) throw errnoError("ENOTDIR", undefined);
    return new MemoryDirectory(vol, real, stat);
  }

  #probe(work: () => MemfsStats): FsDriverStat | undefined {
    return probe(work);
  }
}

// A directory pinned by identity (inode and birth time), as a descriptor pins one on disk: every operation
// finds the opened directory, through no symlink, and acts on it in the same synchronous turn, so no other
// code runs between finding and acting. A directory moved elsewhere is found again by a walk of the volume
// (rare: only a rename racing the write moves it).
class MemoryDirectory implements FsDirectory {
  readonly #vol: Volume;
  readonly #ino: number;
  readonly #born: number;
  #path: string;

  constructor(vol: Volume, path: string, stat: MemfsStats) {
    this.#vol = vol;
    this.#path = path;
    this.#ino = stat.ino;
    this.#born = stat.birthtimeMs;
  }

  async currentPath(): Promise<string | undefined> {
    return this.#locate();
  }

  async stat(): Promise<FsDriverStat> {
    return toStat(memfsCall((): MemfsStats => this.#vol.lstatSync(this.#here())));
  }

  async lstat(name: string): Promise<FsDriverStat | undefined> {
    return probe(() => this.#vol.lstatSync(this.#at(name)));
  }

  async openDirectory(name: string): Promise<FsDirectory | undefined> {
    const path = this.#at(name);
    const stat = probeRaw(() => this.#vol.lstatSync(path));
    if (!stat) return undefined;
    if (!stat.isDirectory()) throw new FsError("FS_NOT_DIRECTORY", "it is not a directory");
    return new MemoryDirectory(this.#vol, path, stat);
  }

  async mkdir(name: string, mode: number): Promise<boolean> {
    this.#mayChange();
    const path = this.#at(name);
    if (probeRaw(() => this.#vol.lstatSync(path))) return false;
    memfsCall(() => this.#vol.mkdirSync(path, { mode }));
    return true;
  }

  async createFile(name: string, mode: number): Promise<FsStagedFile | undefined> {
    const vol = this.#vol;
    const path = this.#at(name);
    if (probeRaw(() => vol.lstatSync(path))) return undefined;
    const fd = memfsCall(() => vol.openSync(path, "wx", mode));
    return {
      write: async (bytes) => memfsCall(() => vol.writeSync(fd, bytes)),
      sync: async () => undefined,
      chmod: async (to) => memfsCall(() => vol.fchmodSync(fd, to)),
      close: async () => memfsCall(() => vol.closeSync(fd)),
    };
  }

  async readFile(name: string, maxBytes: number): Promise<Uint8Array | undefined> {
    const vol = this.#vol;
    const path = this.#at(name);
    if (!probeRaw(() => vol.lstatSync(path))?.isFile()) return undefined;
    const buffer = new Uint8Array(maxBytes);
    const fd = memfsCall(() => vol.openSync(path, "r"));
    try {
      return buffer.subarray(
        0,
        memfsCall(() => vol.readSync(fd, buffer, 0, maxBytes, 0)),
      );
    } finally {
      vol.closeSync(fd);
    }
  }

  // Found, looked at and opened in one synchronous turn: nothing can swap the entry in between.
  async openFile(name: string): Promise<FsDriverHandle | undefined> {
    const vol = this.#vol;
    const path = this.#at(name);
    const stat = probeRaw(() => vol.lstatSync(path));
    if (!stat || stat.isSymbolicLink()) return undefined;
    return readHandle(
      vol,
      memfsCall(() => vol.openSync(path, "r")),
    );
  }

  async rename(from: string, to: string): Promise<void> {
    const here = this.#here();
    const destination = joinPath(here, to);
    // memfs would replace a directory (or misplace a symlink); the kernel refuses the first.
    if (probeRaw(() => this.#vol.lstatSync(destination))?.isDirectory()) throw errnoError("EISDIR", undefined);
    memfsCall(() => this.#vol.renameSync(joinPath(here, from), destination));
  }

  async link(from: string, to: string): Promise<boolean> {
    const here = this.#here();
    const destination = joinPath(here, to);
    if (probeRaw(() => this.#vol.lstatSync(destination))) return false;
    memfsCall(() => this.#vol.linkSync(joinPath(here, from), destination));
    return true;
  }

  async unlink(name: string): Promise<boolean> {
    this.#mayChange();
    const path = this.#at(name);
    const stat = probeRaw(() => this.#vol.lstatSync(path));
    if (!stat) return false;
    if (stat.isDirectory()) throw errnoError("EISDIR", undefined);
    memfsCall(() => this.#vol.unlinkSync(path));
    return true;
  }

  // Looked at and removed in one synchronous turn.
  async rmdir(name: string): Promise<boolean> {
    this.#mayChange();
    const path = this.#at(name);
    const stat = probeRaw(() => this.#vol.lstatSync(path));
    if (!stat) return false;
    if (!stat.isDirectory()) throw new FsError("FS_NOT_DIRECTORY", "it is not a directory");
    if (memfsCall(() => this.#vol.readdirSync(path)).length > 0) throw errnoError("ENOTEMPTY", undefined);
    memfsCall(() => this.#vol.rmdirSync(path));
    return true;
  }

  // Both folders found, the destination checked and the entry renamed in one synchronous turn: the check
  // cannot race, so a move that must not replace never does (atomicNoReplaceMove).
  async move(from: string, into: FsDirectory, to: string, replace: boolean): Promise<boolean> {
    if (!(into instanceof MemoryDirectory)) throw new FsError("FS_IO_ERROR", "the destination folder was not opened by this driver");
    this.#mayChange();
    into.#mayChange();
    const source = this.#at(from);
    const destination = into.#at(to);
    const moving = probeRaw(() => this.#vol.lstatSync(source));
    if (!moving) throw errnoError("ENOENT", undefined);
    const there = probeRaw(() => this.#vol.lstatSync(destination));
    if (there && !replace) return false;
    // memfs would replace a directory, or put a directory over a file; the kernel refuses both.
    if (there?.isDirectory()) throw errnoError(moving.isDirectory() ? "ENOTEMPTY" : "EISDIR", undefined);
    if (there && moving.isDirectory()) throw errnoError("ENOTDIR", undefined);
    if (moving.isSymbolicLink()) {
      // memfs's rename follows a symlink and moves what it points to: the link is made again instead.
      const pointsTo = String(memfsCall(() => this.#vol.readlinkSync(source)));
      if (there) memfsCall(() => this.#vol.unlinkSync(destination));
      memfsCall(() => this.#vol.symlinkSync(pointsTo, destination));
      memfsCall(() => this.#vol.unlinkSync(source));
      return true;
    }
    // Nor does it replace a symlink itself: it is removed first, in the same turn.
    if (there?.isSymbolicLink()) memfsCall(() => this.#vol.unlinkSync(destination));
    memfsCall(() => this.#vol.renameSync(source, destination));
    return true;
  }

  async readdir(): Promise<string[]> {
    return memfsCall(() => this.#vol.readdirSync(this.#here()).map((name) => String(name)));
  }

  async close(): Promise<void> {}

  #is(path: string): boolean {
    try {
      const stat = this.#vol.lstatSync(path) as MemfsStats;
      return stat.isDirectory() && stat.ino === this.#ino && stat.birthtimeMs === this.#born && String(this.#vol.realpathSync(path)) === path;
    } catch {
      return false;
    }
  }

  #locate(): string | undefined {
    if (this.#is(this.#path)) return this.#path;
    const pending = ["/"];
    for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
      if (this.#is(dir)) return (this.#path = dir);
      let names: string[];
      try {
        names = this.#vol.readdirSync(dir).map(String);
      } catch {
        continue;
      }
      for (const name of names) {
        const child = joinPath(dir, name);
        if (probeRaw(() => this.#vol.lstatSync(child))?.isDirectory()) pending.push(child);
      }
    }
    return undefined;
  }

  // memfs checks a folder's permission bits when it is read, not when an entry of it is created, removed or
  // renamed; the kernel does, so this driver asks memfs's access check first.
  #mayChange(): void {
    const here = this.#here();
    memfsCall(() => this.#vol.accessSync(here, 2 /* W_OK */));
  }

  #here(): string {
    const here = this.#locate();
    if (here === undefined) throw new FsError("FS_NOT_FOUND", "its folder was removed while writing");
    return here;
  }

  #at(name: string): string {
    return joinPath(this.#here(), name);
  }
}

function readHandle(vol: Volume, fd: number): FsDriverHandle {
  return {
    stat: async () => toStat(memfsCall((): MemfsStats => vol.fstatSync(fd))),
    read: async (buffer, position) => memfsCall(() => vol.readSync(fd, buffer, 0, buffer.length, position)),
    close: async () => memfsCall(() => vol.closeSync(fd)),
  };
}

function probeRaw(work: () => unknown): MemfsStats | undefined {
  try {
    return work() as MemfsStats;
  } catch (error) {
    if (isAbsentError(error)) return undefined;
    throw mapMemfsError(error);
  }
}

function probe(work: () => MemfsStats): FsDriverStat | undefined {
  try {
    return toStat(work());
  } catch (error) {
    if (isAbsentError(error)) return undefined;
    throw mapMemfsError(error);
  }
}

// The fields read from memfs's Stats (its own type is generic over number and bigint).
interface MemfsStats {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly birthtimeMs: number;
  readonly mode: number;
  readonly uid: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

function toStat(s: MemfsStats): FsDriverStat {
  return {
    type: s.isFile() ? "file" : s.isDirectory() ? "directory" : s.isSymbolicLink() ? "symlink" : "other",
    size: s.size,
    mtimeMs: s.mtimeMs,
    mode: s.mode & 0o777,
    owner: Number(s.uid),
    token: `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`,
    id: String(s.ino),
  };
}
