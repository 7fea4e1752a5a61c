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
   * The owning user's id, where the backend has owners. Core compares it with the owner of a file it has just
   * created, so a private write never lands in a folder another user controls.
   */
  readonly owner?: number;
  /**
   * Metadata that changes whenever the backend can see the file change (for example device, inode, size,
   * mtime and ctime). Core adds its own publication counter on top.
   */
  readonly token: string;
  /** Identity of the file object (for example device and inode): the same for every name of one file. */
  readonly id: string;
}

/** An open file. */
export interface FsDriverHandle {
  stat(): Promise<FsDriverStat>;
  /** Reads into `buffer` from `position`; returns the number of bytes read, 0 at end of file. */
  read(buffer: Uint8Array, position: number): Promise<number>;
  close(): Promise<void>;
}

/** A file just created for staging, open for writing. */
export interface FsStagedFile {
  /** Writes from the start of `bytes`; returns how many were written (at least one). */
  write(bytes: Uint8Array): Promise<number>;
  /** Flushes the written bytes to stable storage. */
  sync(): Promise<void>;
  /** Sets the permission bits through the open file, not through a name. */
  chmod(mode: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * An opened directory. Every operation names one entry of it, never a path: on a backend with
 * `pinnedPublication` it acts on the opened directory itself, wherever a concurrent rename has moved it, and
 * a symlink swapped in for it or for one of its ancestors cannot redirect it. Names are single segments
 * (no `/`), and no operation follows a symlink at the entry it names.
 */
export interface FsDirectory {
  /** The absolute path where the opened directory is now; `undefined` when it was removed or cannot be found. */
  currentPath(): Promise<string | undefined>;
  /** The opened directory's own metadata. */
  stat(): Promise<FsDriverStat>;
  /** `undefined` when nothing has that name. */
  lstat(name: string): Promise<FsDriverStat | undefined>;
  /** Opens a child directory; `undefined` when it is missing; `FS_NOT_DIRECTORY` when it is anything else, a symlink included. */
  openDirectory(name: string): Promise<FsDirectory | undefined>;
  /** Creates a child directory with `mode` (before the umask); `false` when something already has that name. */
  mkdir(name: string, mode: number): Promise<boolean>;
  /** Creates a new file exclusively with `mode`, open for writing; `undefined` when something already has that name. */
  createFile(name: string, mode: number): Promise<FsStagedFile | undefined>;
  /** Up to `maxBytes` of a regular file; `undefined` when it is missing or not a regular file. */
  readFile(name: string, maxBytes: number): Promise<Uint8Array | undefined>;
  /**
   * Opens the entry `name` for reading without following a symlink there; a FIFO opens without waiting for a
   * writer, and a directory or other non-file may open too (core reads its type from the handle). `undefined`
   * when nothing has that name or it is a symlink. Optional: without it core opens the entry's path with
   * `FsDriver.open` and then checks through this directory that what it opened is this entry, so no bytes
   * from elsewhere are ever returned, but the open itself may reach another file.
   */
  openFile?(name: string): Promise<FsDriverHandle | undefined>;
  /** Renames an entry, replacing a file at `to`. */
  rename(from: string, to: string): Promise<void>;
  /** Gives the file `from` the additional name `to`; `false` when something already has that name. */
  link(from: string, to: string): Promise<boolean>;
  /** Removes a file or a symlink itself (never a directory); `false` when it was already gone. */
  unlink(name: string): Promise<boolean>;
  /**
   * Removes the child directory `name` if it is empty; `false` when nothing has that name. Never follows a
   * symlink: a symlink or any other non-directory there fails `FS_NOT_DIRECTORY`, a directory with entries
   * fails `FS_NOT_EMPTY`, and either leaves the entry in place. One native step (`rmdir`, `unlinkat` with
   * `AT_REMOVEDIR`), so a directory filled meanwhile is refused, never emptied.
   */
  rmdir(name: string): Promise<boolean>;
  /**
   * Moves the entry `from` of this directory (a file, a symlink itself, or a directory with what it holds) to
   * the name `to` in `into`, which is this directory or another one opened by the same driver (a wrapper passes
   * the directory it wraps; a backend may refuse a foreign one with `FS_IO_ERROR`). At every instant, a crash
   * included, the entry has at least one of the two names: one native rename, or for a file a new link
   * followed by the removal of the old name.
   *
   * With `replace` false nothing at `to` is ever replaced: the result is `false` when something has that name.
   * Where `capabilities.atomicNoReplaceMove` holds this is decided by the move itself (`renameat2` with
   * `RENAME_NOREPLACE`, `link`); otherwise the backend checks just before renaming and core holds its
   * per-destination locks around the call, which leaves only another process's entry created in that instant
   * exposed (an empty directory may then be replaced, a non-empty one or a file never is).
   *
   * With `replace` true a file or symlink at `to` is replaced in the same atomic step. Core asks for it only
   * after checking that `to` is not a directory; a directory that appears there meanwhile is left to the
   * native rename (POSIX replaces an empty one and refuses any other). `FS_NOT_FOUND` when `from` is missing;
   * a move across devices fails `FS_IO_ERROR` and changes nothing.
   */
  move(from: string, into: FsDirectory, to: string, replace: boolean): Promise<boolean>;
  /** Entry names, in any order. */
  readdir(): Promise<string[]>;
  close(): Promise<void>;
}

/** This process as other writers of the same storage see it, for lock owners and staging names. */
export interface FsProcessInfo {
  readonly pid: number;
  /** The host name; `undefined` when it cannot be read (then owners are judged by age alone). */
  readonly host: string | undefined;
  /** Whether a process of this host with that id is running; `undefined` when the driver cannot tell. */
  alive(pid: number): boolean | undefined;
}

/**
 * The native operations an adapter supplies. Paths are absolute and normalized. Errors are `FsError`s
 * mapped by the adapter's own map-error module. Publication (staging, the fence, the guard, the lock,
 * the rename) is core's: a driver only opens directories and acts on their entries.
 */
export interface FsDriver {
  readonly capabilities: FsCapabilities;
  /**
   * The storage served, as an identity: providers whose drivers hand the same object share one lock table
   * and one publication counter (a local disk: one object per process; a memory volume: the volume).
   */
  readonly storage: object;
  /** Present when other processes can reach the storage: core then also takes lock files and sweeps dead writers' files. */
  readonly processes?: FsProcessInfo;
  /** Permission bits a new file gets (an editor's default, such as `0o666` less the umask). */
  readonly newFileMode: number;
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
  /**
   * Opens the directory at `path`, following symlinks (core checks where it landed with `currentPath`).
   * `FS_NOT_FOUND` when it is missing.
   */
  openDirectory(path: string): Promise<FsDirectory>;
}
