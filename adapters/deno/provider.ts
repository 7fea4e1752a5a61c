import {
  createFileSystem,
  type FileSystem,
  FsError,
  type FsCapabilities,
  type FsDriver,
  type FsDriverHandle,
  type FsDriverPublishOptions,
  type FsDriverStat,
  stagingPath,
  throwIfAborted,
} from "../../core/mod.ts";
import { type DenoApi, type DenoFileInfo, denoApi } from "./deno-api.ts";
import { denoCall, isAbsent, mapDenoError } from "./map-error.ts";

export interface DenoProviderOptions {
  /** Absolute base directory for relative paths; defaults to `Deno.cwd()`. */
  readonly cwd?: string;
}

/** A FileSystem over `Deno.*` on the local disk. Needs read and write permission for the paths it serves. */
export function createDenoProvider(options?: DenoProviderOptions): FileSystem {
  const deno = denoApi();
  return createFileSystem(new DenoDriver(deno), { cwd: options?.cwd ?? deno.cwd() });
}

const WRITE_CHUNK = 1 << 20;

class DenoDriver implements FsDriver {
  readonly capabilities: FsCapabilities;
  readonly #deno: DenoApi;
  readonly #newFileMode: number;

  constructor(deno: DenoApi) {
    this.#deno = deno;
    this.capabilities = {
      symlinks: true,
      fileModes: true,
      permissionErrors: !mayBeRoot(deno),
      // Deno reports mtime in milliseconds and ctime in whole seconds.
      timestampResolutionMs: 1000,
    };
    let mask = 0o022;
    try {
      mask = deno.umask();
    } catch {
      // Reading the umask needs --allow-sys=umask; without it new files get the common default.
    }
    this.#newFileMode = 0o666 & ~mask;
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
    return denoCall(async () => {
      const names: string[] = [];
      for await (const entry of this.#deno.readDir(path)) names.push(entry.name);
      return names;
    });
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

  mkdirp(path: string): Promise<void> {
    return denoCall(() => this.#deno.mkdir(path, { recursive: true }));
  }

  async publish(path: string, chunks: AsyncIterable<Uint8Array>, options: FsDriverPublishOptions): Promise<"published" | "exists"> {
    const deno = this.#deno;
    const temp = stagingPath(path);
    let file: Awaited<ReturnType<DenoApi["open"]>> | undefined;
    try {
      file = await denoCall(() => deno.open(temp, { write: true, createNew: true, mode: 0o600 }));
      for await (const bytes of chunks) {
        for (let offset = 0; offset < bytes.length; ) {
          throwIfAborted(options.signal);
          const chunk = bytes.subarray(offset, offset + WRITE_CHUNK);
          offset += await denoCall(() => file!.write(chunk));
        }
      }
      if (options.durable) await denoCall(() => file!.sync());
      file.close();
      file = undefined;
      await options.beforeCommit();
      // Owner-only while staged; the final mode only once publication is decided.
      await denoCall(() => deno.chmod(temp, options.mode ?? this.#newFileMode));
      if (!options.exclusive) {
        await denoCall(() => deno.rename(temp, path));
        return "published";
      }
      try {
        await deno.link(temp, path);
        return "published";
      } catch (error) {
        if ((error as { name?: unknown }).name === "AlreadyExists") return "exists";
        throw mapDenoError(error);
      }
    } finally {
      try {
        file?.close();
      } catch {
        // Already closed.
      }
      await deno.remove(temp).catch(() => undefined);
    }
  }
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
    token: `${info.dev}:${info.ino ?? ""}:${info.size}:${mtimeMs}:${info.ctime?.getTime() ?? ""}`,
  };
}

