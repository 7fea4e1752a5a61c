import {
  createFileSystem,
  type FileSystem,
  FsError,
  type FsCapabilities,
  type FsDirectory,
  type FsDriver,
  type FsDriverHandle,
  type FsDriverStat,
  type FsProcessInfo,
  type FsStagedFile,
  joinPath,
  localDiskStorage,
} from "../../core/mod.ts";
import { type DenoApi, type DenoFileInfo, denoApi } from "./deno-api.ts";
import { type Libc, openLibc } from "./libc.ts";
import { denoCall, isAbsent, mapDenoError } from "./map-error.ts";

export interface DenoProviderOptions {
  /** Absolute base directory for relative paths; defaults to `Deno.cwd()`. */
  readonly cwd?: string;
  /**
   * Publish through libc's `openat` family (Linux, needs `--allow-ffi`), which a rename racing the write
   * cannot redirect. Default: when FFI is granted. `false` keeps to `Deno.*` paths (`pinnedPublication: false`).
   */
  readonly ffi?: boolean;
}

/**
 * A FileSystem over `Deno.*` on the local disk. Needs read and write permission for the paths it serves;
 * with `--allow-ffi` on Linux its writes cannot be redirected by a concurrent rename (see the README).
 */
export function createDenoProvider(options?: DenoProviderOptions): FileSystem {
  const deno = denoApi();
  const libc = options?.ffi === false ? undefined : openLibc(deno);
  return createFileSystem(new DenoDriver(deno, libc), { cwd: options?.cwd ?? deno.cwd() });
}

class DenoDriver implements FsDriver {
  readonly capabilities: FsCapabilities;
  readonly newFileMode: number;
  readonly storage: object = localDiskStorage();
  readonly processes: FsProcessInfo;
  readonly #deno: DenoApi;
  readonly #libc: Libc | undefined;

  constructor(deno: DenoApi, libc: Libc | undefined) {
    this.#deno = deno;
    this.#libc = libc;
    this.capabilities = {
      symlinks: true,
      fileModes: true,
      // Deno reports no uid on Windows.
      owners: deno.build.os !== "windows",
      permissionErrors: !mayBeRoot(deno),
      // Deno reports mtime in milliseconds and ctime in whole seconds.
      timestampResolutionMs: 1000,
      pinnedPublication: libc !== undefined,
      detectsDeadWriters: libc !== undefined,
      // renameat2 through FFI; without it (or on a filesystem that refuses the flag) a folder is checked first.
      atomicNoReplaceMove: libc?.renameNoReplace === true,
    };
    let mask = 0o022;
    try {
      mask = deno.umask();
    } catch {
      // Reading the umask needs --allow-sys=umask; without it new files get the common default.
    }
    this.newFileMode = 0o666 & ~mask;
    let host: string | undefined;
    try {
      host = deno.hostname();
    } catch {
      host = libc?.hostname(); // --allow-sys=hostname not granted
    }
    // Without FFI there is no way to ask whether a pid is running: owners are judged by age alone.
    this.processes = { pid: deno.pid, host, alive: (pid) => libc?.alive(pid) };
  }

  async realpath(path: string): Promise<string | undefined> {
    try {
      return await this.#deno.realPath(path);
    } catch (error) {
      if ((error as { name?: unknown }).name === "NotFound") return undefined;
      throw mapDenoError(error);
    }
  }

  stat(path: string): Promise<FsDriverStat | undefined> {
    return probe(() => this.#deno.stat(path));
  }

  lstat(path: string): Promise<FsDriverStat | undefined> {
    return probe(() => this.#deno.lstat(path));
  }

  readlink(path: string): Promise<string> {
    return denoCall(() => this.#deno.readLink(path));
  }

  readdir(path: string): Promise<string[]> {
    return readNames(this.#deno, path);
  }

  async open(path: string): Promise<FsDriverHandle> {
    // Deno.open has no O_NONBLOCK, and opening a FIFO would wait for a writer: look before opening, and
    // hand core a handle that only reports what is there when it is not a regular file.
    const info = await denoCall(() => this.#deno.stat(path));
    if (!info.isFile) {
      return {
        stat: async () => toStat(info),
        read: async () => {
          throw new FsError("FS_NOT_REGULAR_FILE", "it is not a regular file");
        },
        close: async () => undefined,
      };
    }
    const file = await denoCall(() => this.#deno.open(path, { read: true }));
    let offset = 0;
    return {
      stat: () => denoCall(async () => toStat(await file.stat())),
      read: (buffer, position) =>
        denoCall(async () => {
          if (position !== offset) offset = await file.seek(position, 0);
          const n = (await file.read(buffer)) ?? 0;
          offset += n;
          return n;
        }),
      close: async () => file.close(),
    };
  }

  async openDirectory(path: string): Promise<FsDirectory> {
    const deno = this.#deno;
    // FFI is not bound by Deno's path permissions: the directory keeps to what the process was granted.
    if (this.#libc) return this.#libc.openDirectory(path);
    const info = await denoCall(() => deno.stat(path));
    if (!info.isDirectory) throw new FsError("FS_NOT_FOUND", "a parent segment is not a directory");
    return new PathDirectory(deno, await denoCall(() => deno.realPath(path)), toStat(info).id);
  }
}

// Without FFI a directory can only be named by its path. Every operation first checks that the path still
// leads to the directory that was opened, which narrows the race to the instant between the check and the
// call; it does not close it (`pinnedPublication: false`).
class PathDirectory implements FsDirectory {
  readonly #deno: DenoApi;
  readonly #path: string;
  readonly #id: string;

  constructor(deno: DenoApi, path: string, id: string) {
    this.#deno = deno;
    this.#path = path;
    this.#id = id;
  }

  async currentPath(): Promise<string | undefined> {
    try {
      const now = await this.#deno.realPath(this.#path);
      return toStat(await this.#deno.stat(now)).id === this.#id ? now : undefined;
    } catch {
      return undefined;
    }
  }

  async stat(): Promise<FsDriverStat> {
    return toStat(await denoCall(() => this.#deno.stat(this.#path)));
  }

  async lstat(name: string): Promise<FsDriverStat | undefined> {
    const at = await this.#at(name);
    return probe(() => this.#deno.lstat(at));
  }

  async openDirectory(name: string): Promise<FsDirectory | undefined> {
    const at = await this.#at(name);
    const stat = await probe(() => this.#deno.lstat(at));
    if (!stat) return undefined;
    if (stat.type !== "directory") throw new FsError("FS_NOT_DIRECTORY", "it is not a directory");
    return new PathDirectory(this.#deno, at, stat.id);
  }

  async mkdir(name: string, mode: number): Promise<boolean> {
    const at = await this.#at(name);
    return denoCall(() => this.#deno.mkdir(at, { mode }).then(() => true, ifExists(false)));
  }

  async createFile(name: string, mode: number): Promise<FsStagedFile | undefined> {
    const deno = this.#deno;
    const at = await this.#at(name);
    const file = await denoCall(() => deno.open(at, { write: true, createNew: true, mode }).catch(ifExists(undefined)));
    if (!file) return undefined;
    let closed = false;
    return {
      write: (bytes) => denoCall(() => file.write(bytes)),
      sync: () => denoCall(() => file.sync()),
      // Deno files have no fchmod: by path, after the same check as every other operation.
      chmod: async (to) => denoCall(async () => deno.chmod(await this.#at(name), to)),
      close: async () => {
        if (closed) return;
        closed = true;
        file.close();
      },
    };
  }

  async readFile(name: string, maxBytes: number): Promise<Uint8Array | undefined> {
    const at = await this.#at(name);
    if ((await probe(() => this.#deno.lstat(at)))?.type !== "file") return undefined;
    let file: Awaited<ReturnType<DenoApi["open"]>>;
    try {
      file = await this.#deno.open(at, { read: true });
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw mapDenoError(error);
    }
    try {
      const buffer = new Uint8Array(maxBytes);
      return buffer.subarray(0, (await denoCall(() => file.read(buffer))) ?? 0);
    } finally {
      file.close();
    }
  }

  async rename(from: string, to: string): Promise<void> {
    const source = await this.#at(from);
    await denoCall(() => this.#deno.rename(source, joinPath(this.#path, to)));
  }

  async link(from: string, to: string): Promise<boolean> {
    const source = await this.#at(from);
    return denoCall(() => this.#deno.link(source, joinPath(this.#path, to)).then(() => true, ifExists(false)));
  }

  async unlink(name: string): Promise<boolean> {
    const at = await this.#at(name);
    const stat = await probe(() => this.#deno.lstat(at));
    if (!stat) return false;
    if (stat.type === "directory") throw new FsError("FS_NOT_REGULAR_FILE", "it is a directory");
    try {
      await this.#deno.remove(at);
      return true;
    } catch (error) {
      if (isAbsent(error)) return false;
      throw mapDenoError(error);
    }
  }

  async rmdir(name: string): Promise<boolean> {
    const at = await this.#at(name);
    const stat = await probe(() => this.#deno.lstat(at));
    if (!stat) return false;
    if (stat.type !== "directory") throw new FsError("FS_NOT_DIRECTORY", "it is not a directory");
    // Not recursive: rmdir(2), which refuses a folder that is not empty.
    return denoCall(() => this.#deno.remove(at).then(() => true, ifAbsent(false)));
  }

  // As on Node: a file or symlink moves without replacing by link then unlink, a directory by a check then a
  // rename (atomicNoReplaceMove: false without FFI).
  async move(from: string, into: FsDirectory, to: string, replace: boolean): Promise<boolean> {
    if (!(into instanceof PathDirectory)) throw new FsError("FS_IO_ERROR", "the destination folder was not opened by this driver");
    const deno = this.#deno;
    const source = await this.#at(from);
    const destination = await into.#at(to);
    if (replace) {
      await denoCall(() => deno.rename(source, destination));
      return true;
    }
    const moving = await probe(() => deno.lstat(source));
    if (!moving) throw new FsError("FS_NOT_FOUND", "no such file or directory");
    if (moving.type !== "directory") {
      const linked = await deno.link(source, destination).then(
        () => true,
        (error: unknown) => {
          if ((error as { name?: unknown }).name === "AlreadyExists") return false;
          if ((error as { name?: unknown }).name === "PermissionDenied" || (error as { code?: unknown }).code === "EPERM") return undefined;
          throw mapDenoError(error);
        },
      );
      if (linked === false) return false;
      if (linked) {
        if ((await probe(() => deno.lstat(source)))?.id === moving.id) await denoCall(() => deno.remove(source).catch(ifAbsent(undefined)));
        return true;
      }
    }
    if (await probe(() => deno.lstat(destination))) return false;
    return denoCall(() =>
      deno.rename(source, destination).then(
        () => true,
        (error: unknown) => {
          const code = (error as { code?: unknown }).code;
          const taken = code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR" || code === "EISDIR";
          if (taken || ["AlreadyExists", "NotADirectory", "IsADirectory"].includes(String((error as { name?: unknown }).name))) return false;
          throw error;
        },
      ),
    );
  }

  async readdir(): Promise<string[]> {
    return readNames(this.#deno, await this.#at("."));
  }

  async close(): Promise<void> {}

  async #at(name: string): Promise<string> {
    if ((await this.currentPath()) !== this.#path) {
      throw new FsError("FS_STALE_VERSION", "its folder was moved or removed while writing; read it again");
    }
    return name === "." ? this.#path : joinPath(this.#path, name);
  }
}

function ifAbsent<T>(value: T): (error: unknown) => T {
  return (error) => {
    if (isAbsent(error)) return value;
    throw error;
  };
}

function ifExists<T>(value: T): (error: unknown) => T {
  return (error) => {
    if ((error as { name?: unknown }).name === "AlreadyExists") return value;
    throw error;
  };
}

async function readNames(deno: DenoApi, path: string): Promise<string[]> {
  return denoCall(async () => {
    const names: string[] = [];
    for await (const entry of deno.readDir(path)) names.push(entry.name);
    return names;
  });
}

// Root bypasses permission bits. Asking needs --allow-sys=uid; when refused, claim nothing.
function mayBeRoot(deno: DenoApi): boolean {
  try {
    return deno.uid() === 0;
  } catch {
    return true;
  }
}

async function probe(work: () => Promise<DenoFileInfo>): Promise<FsDriverStat | undefined> {
  try {
    return toStat(await work());
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw mapDenoError(error);
  }
}

function toStat(info: DenoFileInfo): FsDriverStat {
  const mtimeMs = info.mtime?.getTime() ?? 0;
  return {
    type: info.isFile ? "file" : info.isDirectory ? "directory" : info.isSymlink ? "symlink" : "other",
    size: info.size,
    mtimeMs,
    mode: (info.mode ?? 0) & 0o777,
    ...(info.uid === null ? {} : { owner: info.uid }),
    token: `${info.dev}:${info.ino ?? ""}:${info.size}:${mtimeMs}:${info.ctime?.getTime() ?? ""}`,
    id: `${info.dev}:${info.ino ?? ""}`,
  };
}
