import { type FsError, toFsError } from "../../core/mod.ts";

// node:fs reports failures with POSIX `code`s, which core's shared table maps; AbortError from a signalled
// call arrives without one and becomes FS_ABORTED there too.

/** Maps a node:fs failure to an FsError. */
export function mapNodeError(error: unknown): FsError {
  return toFsError(error);
}

/** Runs a node:fs call, mapping its failure. */
export async function nodeCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw mapNodeError(error);
  }
}
