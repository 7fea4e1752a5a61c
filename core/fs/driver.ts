import type { FsCapabilities } from "./capabilities.ts";
import type { FsEntryType } from "./types.ts";

/** What a driver reports about one path. */
export interface FsDriverStat {
  readonly type: FsEntryType;
  readonly size: number;
  readonly mtimeMs: number;
  /** Permission bits (the low nine mode bits); 0 where the backend has none. */
  readonly mode: number;
  /**
   * Metadata that changes whenever the backend can see the file change (for example device, inode, size,
   * mtime and ctime). Core adds its own publication counter on top.
   */
  readonly token: string;
}

/** An open file. */
export interface FsDriverHandle {
  stat(): Promise<FsDriverStat>;
  /** Reads into `buffer` from `position`; returns the number of bytes read, 0 at end of file. */
  read(buffer: Uint8Array, position: number): Promise<number>;
  close(): Promise<void>;
}

export interface FsDriverPublishOptions {
  /** Publish without replacing anything that exists at the path (link or exclusive create). */
  readonly exclusive: boolean;
  /** Permission bits for the published file; `undefined` means a new file with the backend's default. */
  readonly mode: number | undefined;
  readonly signal: AbortSignal | undefined;
  /** Flush the staged bytes to stable storage before publishing. */
  readonly durable: boolean;
  /**
   * Called once the new bytes are staged and flushed, immediately before they are published. It may throw to
   * cancel the publication; the driver then removes what it staged.
   */
  readonly beforeCommit: () => Promise<void>;
}

/**
 * The native operations an adapter supplies. Paths are absolute and normalized. Errors are `FsError`s
 * mapped by the adapter's own map-error module.
 */
export interface FsDriver {
  readonly capabilities: FsCapabilities;
  /** The canonical path, or `undefined` when the path does not exist. A file-valued parent is `FS_NOT_FOUND`. */
  realpath(path: string): Promise<string | undefined>;
  /** Follows symlinks. `undefined` when missing, or when a parent segment is not a directory. */
  stat(path: string): Promise<FsDriverStat | undefined>;
  /** Does not follow a final symlink. `undefined` as for `stat`. */
  lstat(path: string): Promise<FsDriverStat | undefined>;
  readlink(path: string): Promise<string>;
  /** Entry names of one directory, in any order. */
  readdir(path: string): Promise<string[]>;
  /** Opens a file for reading. */
  open(path: string): Promise<FsDriverHandle>;
  /** Creates a directory and its missing parents. */
  mkdirp(path: string): Promise<void>;
  /**
   * Stages the chunks beside `path` in order, flushes them, calls `beforeCommit`, then publishes atomically. Returns
   * `"exists"` when an exclusive publication found something at the path (which is left untouched).
   * Nothing staged may remain afterwards, whatever happens.
   */
  publish(path: string, chunks: AsyncIterable<Uint8Array>, options: FsDriverPublishOptions): Promise<"published" | "exists">;
}
