import type { FsCapabilities } from "./capabilities.ts";

/** Opaque identity of a file: every alias of one file (through symlinks, `..`, `./`) shares it. */
export type FsTargetKey = string & { readonly __brand: "FsTargetKey" };

/** Opaque freshness token: changes whenever the file's bytes change. Compare only through a guard. */
export type FsVersion = string & { readonly __brand: "FsVersion" };

/** A resolved path: the canonical key plus the spelling to show to a model or a user. */
export interface FsTarget {
  readonly key: FsTargetKey;
  /** The absolute path as the caller spelled it, `.` and `..` collapsed, symlinks not followed. */
  readonly displayPath: string;
}

export type FsFileType = "file" | "directory" | "other";
export type FsEntryType = FsFileType | "symlink";

/** Metadata of a followed path (`stat`). */
export interface FsInfo {
  readonly type: FsFileType;
  /** Size in bytes. */
  readonly size: number;
  /** Modification time in milliseconds since the epoch, as precise as the backend stores it. */
  readonly mtimeMs: number;
  readonly version: FsVersion;
}

/** Metadata of a path whose last segment is not followed (`lstat`). */
export interface FsPathInfo {
  readonly type: FsEntryType;
  readonly size: number;
  readonly mtimeMs: number;
}

/** One entry of a directory listing; `type` describes the entry itself, so a symlink lists as `symlink`. */
export interface FsDirEntry {
  readonly name: string;
  readonly type: FsEntryType;
  readonly target: FsTarget;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * What `write` publishes: the whole content, or its chunks as they are produced (streamed into the staged
 * copy, so the content never has to be held at once). Either way readers see all of it or none of it.
 */
export type FsWriteData = Uint8Array | AsyncIterable<Uint8Array>;

/** A bounded read: the bytes and the version they were read at. */
export interface FsBytes {
  readonly bytes: Uint8Array;
  readonly version: FsVersion;
}

/** An open streaming read. Iterating it yields the file's bytes in chunks; leaving the loop early closes it. */
export interface FsReadStreamOptions {
  readonly signal?: AbortSignal;
  /** Most bytes per chunk. */
  readonly chunkSize?: number;
  /**
   * The caller copies whatever it keeps of a chunk before asking for the next one, so the stream may hand out
   * one buffer again and again (a scan through a large file then allocates nothing per chunk). A stream may
   * ignore this and hand out fresh chunks; a caller that sets it must work either way.
   */
  readonly reuseBuffer?: boolean;
}

export interface FsReadStream extends AsyncIterable<Uint8Array> {
  /** Metadata of the opened file, taken from the open handle. */
  readonly info: FsInfo;
  /** Releases the handle; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * A precondition on publication. Omitting the guard publishes unconditionally (still atomically).
 * - `createIfAbsent`: publish only if nothing exists at the destination, decided by the publication itself.
 * - `replaceIfVersion`: publish only over the file at exactly this version.
 */
export type FsWriteGuard = { readonly kind: "createIfAbsent" } | { readonly kind: "replaceIfVersion"; readonly version: FsVersion };

/**
 * Called with the freshly re-resolved canonical destination before any directory is created and again
 * immediately before the new bytes are published. Throwing refuses the write; nothing is published.
 */
export type FsFence = (destination: FsTarget) => void | Promise<void>;

export interface FsWriteOptions {
  readonly guard?: FsWriteGuard;
  readonly signal?: AbortSignal;
  readonly fence?: FsFence;
  /**
   * Flush the bytes to stable storage before publishing (default true). Scratch files that a crash may lose
   * (spilled search results) turn it off; atomicity does not depend on it.
   */
  readonly durable?: boolean;
  /**
   * Keep the file to its owner: a new file is created with mode 0600 and missing folders with 0700, and the
   * write fails `FS_PERMISSION_DENIED` when other users can write to the folder it lands in, or (where the
   * backend has owners, `capabilities.owners`) when another user owns that folder. A replaced file
   * keeps its mode. For scratch results that copy what only this user can read (spilled search output).
   */
  readonly private?: boolean;
}

export interface FsWriteResult {
  readonly operation: "create" | "update";
  /** The version of the published bytes; a valid `replaceIfVersion` guard for the next write. */
  readonly version: FsVersion;
  /** The canonical destination the bytes were published to. */
  readonly target: FsTarget;
}

/** A precondition on removing or moving a file: act only on the file at exactly this version (the one read). */
export type FsMutationGuard = { readonly kind: "ifVersion"; readonly version: FsVersion };

/**
 * What every removal, move and folder creation takes. The fence is `write`'s: it is called with each canonical
 * name the operation changes (a move: the source, then the destination) before anything changes and again
 * immediately before the change, under the locks; throwing refuses the operation and changes nothing.
 */
export interface FsMutationOptions {
  readonly signal?: AbortSignal;
  readonly fence?: FsFence;
}

export interface FsRemoveOptions extends FsMutationOptions {
  /** Remove an empty directory; without it a directory is refused (`FS_NOT_REGULAR_FILE`). */
  readonly directory?: boolean;
  /** Remove only this version of the file (a symlink or a directory has none: the guard refuses them). */
  readonly guard?: FsMutationGuard;
}

export interface FsRemoveResult {
  /** What was removed: a file, a symlink itself, a directory, or another entry (a FIFO, a socket). */
  readonly type: FsEntryType;
  /** The removed name: its canonical folder plus its own name (a symlink's, not its target's). */
  readonly target: FsTarget;
}

export interface FsMoveOptions extends FsMutationOptions {
  /** Move only this version of the source file. */
  readonly guard?: FsMutationGuard;
  /**
   * Replace a file or symlink at the destination (`FS_EXISTS` without it): `true` whatever it holds,
   * `{ version }` only that version of the file (`FS_STALE_VERSION` otherwise). A directory there is never replaced.
   */
  readonly replace?: boolean | { readonly version: FsVersion };
  /** Create the destination's missing folders first, one verified level at a time. */
  readonly parents?: boolean;
}

export interface FsMoveResult {
  readonly type: FsEntryType;
  /** The canonical name moved from and the one moved to (a symlink is moved itself, not its target). */
  readonly source: FsTarget;
  readonly destination: FsTarget;
  /** Whether something at the destination was replaced. */
  readonly replaced: boolean;
  /** For a file: its version at the destination, a valid guard for the next write. */
  readonly version?: FsVersion;
}

export interface FsMkdirOptions extends FsMutationOptions {
  /** Create missing parents too, one verified level at a time (without it a missing parent is `FS_NOT_FOUND`). */
  readonly parents?: boolean;
  /** `createIfAbsent`: refuse (`FS_EXISTS`) a directory that already exists; without it that is success. */
  readonly guard?: { readonly kind: "createIfAbsent" };
}

export interface FsMkdirResult {
  readonly operation: "create" | "exists";
  /** The canonical directory. */
  readonly target: FsTarget;
}

export interface FsResolveOptions {
  /** Base for a relative path; defaults to the provider's cwd. Must be absolute. */
  readonly cwd?: string;
  readonly signal?: AbortSignal;
}

export interface FsSignalOptions {
  readonly signal?: AbortSignal;
}

/**
 * The provider seam. Every adapter implements exactly this; decoding, windowing, policy and rendering are
 * built on top of it in core, so they behave the same on every backend.
 */
export interface FileSystem {
  readonly capabilities: FsCapabilities;
  /** Absolute base directory for relative paths. Not a boundary: `..` and absolute paths leave it. */
  readonly cwd: string;

  /** Resolves a user path. Blank paths, NUL bytes and paths through a regular file fail `FS_NOT_FOUND`. */
  resolve(path: string, options?: FsResolveOptions): Promise<FsTarget>;
  /** Follows symlinks; `undefined` when nothing exists there. */
  stat(target: FsTarget, options?: FsSignalOptions): Promise<FsInfo | undefined>;
  /** Does not follow a final symlink; `undefined` when nothing exists there. */
  lstat(path: string, options?: FsResolveOptions): Promise<FsPathInfo | undefined>;
  /**
   * Reads a whole regular file of at most `maxBytes` bytes, else `FS_TOO_LARGE`; never buffers more. The file
   * read is the one at `target.key`, not wherever the path leads by the time it is opened: where publication
   * is pinned (`capabilities.pinnedPublication`) a folder on the path swapped or moved meanwhile cannot
   * redirect the read; one that keeps changing fails it with `FS_STALE_VERSION`.
   */
  readBytes(target: FsTarget, options: { readonly maxBytes: number; readonly signal?: AbortSignal }): Promise<FsBytes>;
  /** Opens a regular file for streaming, at `target.key` as `readBytes` does; errors (missing, directory) surface from this call. */
  readStream(target: FsTarget, options?: FsReadStreamOptions): Promise<FsReadStream>;
  /** One level of a directory, in UTF-8 byte order of the names. */
  listDir(target: FsTarget, options?: FsSignalOptions): Promise<FsDirEntry[]>;
  /**
   * Atomically publishes `data` at the target: readers see the old bytes or the new, never a mix. A streamed
   * source is consumed while it is staged; when the write fails, its iterator is closed (`return()`).
   */
  write(target: FsTarget, data: FsWriteData, options?: FsWriteOptions): Promise<FsWriteResult>;
  /**
   * Removes a regular file, a symlink itself (never its target) or, with `directory`, an empty directory
   * (`FS_NOT_EMPTY` otherwise). The name removed is the target's last segment in its canonical folder.
   * `FS_NOT_FOUND` when nothing has that name.
   */
  remove(target: FsTarget, options?: FsRemoveOptions): Promise<FsRemoveResult>;
  /**
   * Renames a file, a symlink itself or a directory, within or across folders. Refuses an existing destination
   * (`FS_EXISTS`) unless `replace` asks. A crash at any instant leaves the entry under at least one of the two
   * names: one rename, or for a file a link then an unlink (which may leave both names; see
   * `capabilities.atomicNoReplaceMove` for what a directory move without replace can race).
   */
  move(from: FsTarget, to: FsTarget, options?: FsMoveOptions): Promise<FsMoveResult>;
  /** Creates a directory (and with `parents` its missing parents). An existing directory is success unless guarded. */
  mkdir(target: FsTarget, options?: FsMkdirOptions): Promise<FsMkdirResult>;
  /** True when `child` is `parent` or lies beneath it (by canonical identity). */
  contains(parent: FsTarget, child: FsTarget): boolean;
}
