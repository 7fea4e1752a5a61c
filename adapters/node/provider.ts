import { type BigIntStats, constants, promises as fsp } from "node:fs";
import process from "node:process";
import {
  createFileSystem,
  type FileSystem,
  type FsCapabilities,
  type FsDriver,
  type FsDriverHandle,
  type FsDriverPublishOptions,
  type FsDriverStat,
  isAbsentError,
  stagingPath,
  throwIfAborted,
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

const WRITE_CHUNK = 1 << 20;
// O_NONBLOCK keeps open() of a FIFO from waiting for a writer; it changes nothing for regular files.
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
const STAGE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

class NodeDriver implements FsDriver {
  readonly capabilities: FsCapabilities = {
    symlinks: true,
    fileModes: true,
    permissionErrors: process.getuid?.() !== 0,
    // Nanosecond fields, but the kernel stamps them from a clock that may advance once per tick.
    timestampResolutionMs: 10,
  };
  // New files get the mode an editor would give them, not the owner-only mode of the staged copy.
  readonly #newFileMode = 0o666 & ~umask();

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
    const handle = await nodeCall(() => fsp.open(path, READ_FLAGS));
    return {
      stat: () => nodeCall(async () => toStat(await handle.stat({ bigint: true }))),
      read: (buffer, position) => nodeCall(async () => (await handle.read(buffer, 0, buffer.length, position)).bytesRead),
      close: () => nodeCall(() => handle.close()),
    };
  }

  mkdirp(path: string): Promise<void> {
    return nodeCall(async () => void (await fsp.mkdir(path, { recursive: true })));
  }

  async publish(path: string, chunks: AsyncIterable<Uint8Array>, options: FsDriverPublishOptions): Promise<"published" | "exists"> {
    const temp = stagingPath(path);
    let handle: fsp.FileHandle | undefined;
    try {
      handle = await nodeCall(() => fsp.open(temp, STAGE_FLAGS, 0o600));
      let position = 0;
      for await (const bytes of chunks) {
        for (let offset = 0; offset < bytes.length; offset += WRITE_CHUNK) {
          throwIfAborted(options.signal);
          const chunk = bytes.subarray(offset, offset + WRITE_CHUNK);
          let written = 0;
          while (written < chunk.length) {
            const { bytesWritten } = await nodeCall(() => handle!.write(chunk, written, chunk.length - written, position + written));
            written += bytesWritten;
          }
          position += chunk.length;
        }
      }
      if (options.durable) await nodeCall(() => handle!.sync());
      await nodeCall(() => handle!.close());
      handle = undefined;
      await options.beforeCommit();
      // Owner-only while staged; the final mode only once publication is decided.
      await nodeCall(() => fsp.chmod(temp, options.mode ?? this.#newFileMode));
      if (!options.exclusive) {
        await nodeCall(() => fsp.rename(temp, path));
        return "published";
      }
      try {
        await fsp.link(temp, path);
        return "published";
      } catch (error) {
        if ((error as { code?: unknown }).code === "EEXIST") return "exists";
        throw mapNodeError(error);
      }
    } finally {
      await handle?.close().catch(() => undefined);
      await fsp.rm(temp, { force: true }).catch(() => undefined);
    }
  }
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
    token: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`,
  };
}

function umask(): number {
  // The no-argument form is the only one allowed in worker threads.
  return process.umask();
}
