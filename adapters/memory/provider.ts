import { Volume } from "memfs";
import {
  createFileSystem,
  errnoError,
  type FileSystem,
  type FsCapabilities,
  type FsDriver,
  type FsDriverHandle,
  type FsDriverPublishOptions,
  type FsDriverStat,
  isAbsentError,
  parentPath,
  stagingPath,
  resolvePath,
  throwIfAborted,
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
// directories, which loses data.
class MemoryDriver implements FsDriver {
  readonly capabilities: FsCapabilities = {
    symlinks: true,
    fileModes: true,
    permissionErrors: true,
    timestampResolutionMs: 1,
  };
  readonly #vol: Volume;

  constructor(volume: Volume) {
    this.#vol = volume;
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
    const vol = this.#vol;
    const fd = memfsCall(() => vol.openSync(path, "r"));
    return {
      stat: async () => toStat(memfsCall((): MemfsStats => vol.fstatSync(fd))),
      read: async (buffer, position) => memfsCall(() => vol.readSync(fd, buffer, 0, buffer.length, position)),
      close: async () => memfsCall(() => vol.closeSync(fd)),
    };
  }

  async mkdirp(path: string): Promise<void> {
    memfsCall(() => this.#vol.mkdirSync(path, { recursive: true }));
  }

  async publish(path: string, chunks: AsyncIterable<Uint8Array>, options: FsDriverPublishOptions): Promise<"published" | "exists"> {
    const vol = this.#vol;
    // A fresh node per publication: a reader holding the old one keeps reading the old bytes, as on disk.
    const temp = stagingPath(path);
    let fd: number | undefined;
    try {
      fd = memfsCall(() => vol.openSync(temp, "wx", 0o600));
      for await (const bytes of chunks) {
        throwIfAborted(options.signal);
        for (let offset = 0; offset < bytes.length; ) offset += memfsCall(() => vol.writeSync(fd!, bytes, offset));
      }
      memfsCall(() => vol.closeSync(fd!));
      fd = undefined;
      throwIfAborted(options.signal);
      await options.beforeCommit();
      const existing = this.#probe(() => vol.lstatSync(path));
      if (existing && options.exclusive) return "exists";
      if (existing && existing.type !== "file") throw errnoError("EISDIR", undefined);
      memfsCall(() => vol.chmodSync(temp, options.mode ?? NEW_FILE_MODE));
      memfsCall(() => vol.renameSync(temp, path));
      return "published";
    } finally {
      if (fd !== undefined) {
        try {
          vol.closeSync(fd);
        } catch {
          // Already closed.
        }
      }
      try {
        vol.unlinkSync(temp);
      } catch {
        // Already renamed into place, or never created.
      }
    }
  }

  #probe(work: () => MemfsStats): FsDriverStat | undefined {
    try {
      return toStat(work());
    } catch (error) {
      if (isAbsentError(error)) return undefined;
      throw mapMemfsError(error);
    }
  }
}

// The fields read from memfs's Stats (its own type is generic over number and bigint).
interface MemfsStats {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly mode: number;
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
    token: `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`,
  };
}

