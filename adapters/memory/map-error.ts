import { type FsError, toFsError } from "../../core/mod.ts";

// memfs raises Node-style errors with POSIX `code`s, which core's shared table maps. It differs from the
// kernel in places (EPERM for unlinking a directory), but the driver never relies on those calls.

/** Maps a memfs failure to an FsError. */
export function mapMemfsError(error: unknown): FsError {
  return toFsError(error);
}

/** Runs a synchronous memfs call, mapping its failure. */
export function memfsCall<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw mapMemfsError(error);
  }
}
