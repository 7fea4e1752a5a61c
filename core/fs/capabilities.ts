/**
 * What a backend can do, as data. The conformance suite reads it to decide which cases apply and names the
 * reason whenever it skips one.
 */
export interface FsCapabilities {
  /** Symbolic links can be created and are reported as such by `lstat` and `listDir`. */
  readonly symlinks: boolean;
  /** POSIX permission bits are stored: new files are owner-only until published, replacements keep the mode. */
  readonly fileModes: boolean;
  /**
   * Files have owning users, and metadata reports them: a private write (spilled results) refuses a folder
   * that another user owns, whatever its mode, since its owner can rename and replace what is in it.
   */
  readonly owners: boolean;
  /** The backend can refuse access with a permission error (a disk backend run by root cannot). */
  readonly permissionErrors: boolean;
  /**
   * The coarsest resolution, in milliseconds, of the timestamps the version token relies on to notice a
   * change made outside the provider (Deno reports ctime in whole seconds, memfs in milliseconds).
   */
  readonly timestampResolutionMs: number;
  /**
   * Publication acts on opened directories that a concurrent rename cannot redirect (Linux through
   * `/proc/self/fd` or `openat`; memory by identity within one synchronous turn). When false, a local process
   * that swaps a parent directory for a symlink between the last fence check and the rename can redirect a
   * write outside the fence.
   */
  readonly pinnedPublication: boolean;
  /**
   * A writer of this host killed mid-write is recognised as dead at once: the next writer in that folder
   * removes its staged files and breaks its lock without waiting. When false (no other process can reach
   * the storage, or the runtime cannot ask whether a process runs), such files go once they are an hour old
   * and such locks after 30 seconds.
   */
  readonly detectsDeadWriters: boolean;
  /**
   * A move that must not replace its destination is refused by the rename itself (a file through `link`, a
   * directory through `renameat2` with `RENAME_NOREPLACE`). When false, a directory is moved by checking the
   * destination and then renaming, under core's locks, which other toolfs writers honour: another process that
   * creates an empty directory at the destination in the instant between the check and the rename sees it
   * replaced (a file or a non-empty directory there is never replaced).
   */
  readonly atomicNoReplaceMove: boolean;
}
