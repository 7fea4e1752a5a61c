// Opening the folder an operation acts in, as publication and the other mutations do it: the deepest existing
// ancestor, checked to be where its canonical path says, then each missing level created (when asked), opened
// without following symlinks and checked before the next. A folder swapped for a symlink after the first fence
// check is caught here, before anything is created.
import type { DriverContext } from "./context.ts";
import type { FsDirectory } from "./driver.ts";
import { FsError, isFsError, throwIfAborted } from "./errors.ts";
import { baseName, joinPath, parentPath } from "./paths.ts";

export interface FolderRequest {
  /** The display path the operation concerns, for errors. */
  readonly path: string;
  readonly verb: string;
  readonly signal: AbortSignal | undefined;
  /** Create missing levels with this mode (before the umask); `undefined` to fail `FS_NOT_FOUND` instead. */
  readonly create: number | undefined;
  /** The error for a folder that moved meanwhile. */
  changed(): Promise<FsError>;
}

/** Opens the canonical folder `folder`, verified, creating missing levels when the request says so. */
export async function openFolder(ctx: DriverContext, folder: string, request: FolderRequest): Promise<FsDirectory> {
  const { path, verb } = request;
  const missing: string[] = [];
  let at = folder;
  let dir: FsDirectory;
  for (;;) {
    try {
      dir = await ctx.call(verb, path, () => ctx.driver.openDirectory(at));
      break;
    } catch (error) {
      if (!isFsError(error, "FS_NOT_FOUND") || at === "/") throw error;
      if (request.create === undefined) {
        throw new FsError("FS_NOT_FOUND", `Cannot ${verb} "${path}": the folder "${at}" does not exist`, { cause: error, details: { path } });
      }
      missing.push(baseName(at));
      at = parentPath(at);
    }
  }
  try {
    if ((await ctx.call(verb, path, () => dir.currentPath())) !== at) throw await request.changed();
    for (const name of missing.reverse()) {
      throwIfAborted(request.signal, path);
      await ctx.call(verb, path, () => dir.mkdir(name, request.create ?? 0o777));
      const child = await ctx
        .call(verb, path, () => dir.openDirectory(name))
        .catch((error: unknown) => {
          // Not a directory any more (a symlink swapped in): the path changed under the operation.
          if (isFsError(error, "FS_NOT_FOUND") || isFsError(error, "FS_NOT_DIRECTORY")) return undefined;
          throw error;
        });
      if (!child) throw await request.changed();
      await dir.close().catch(() => undefined);
      dir = child;
      at = joinPath(at, name);
      if ((await ctx.call(verb, path, () => dir.currentPath())) !== at) throw await request.changed();
    }
    return dir;
  } catch (error) {
    await dir.close().catch(() => undefined);
    throw error;
  }
}
