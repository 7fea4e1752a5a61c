// Removal, moves and folder creation, with publication's guarantees (docs/notes/0020): each names its entries
// by their canonical folder and their own last name (a symlink is acted on itself), asks the fence before
// anything changes, opens and verifies the folders, takes the shared queue and the cross-process lock file of
// every name it changes, judges the entries again as they are now (fence, folder, guard), acts through the
// opened folders only, and counts the change so versions read before are stale.
import type { DriverContext } from "./context.ts";
import type { FsDirectory, FsDriverStat } from "./driver.ts";
import { FsError, isFsError, throwIfAborted } from "./errors.ts";
import { openFolder } from "./folders.ts";
import { KeyedLock } from "./lock.ts";
import { acquireLockFile } from "./lockfile.ts";
import { baseName, isWithin, joinPath, parentPath } from "./paths.ts";
import type {
  FsFence,
  FsMkdirOptions,
  FsMkdirResult,
  FsMoveOptions,
  FsMoveResult,
  FsMutationGuard,
  FsRemoveOptions,
  FsRemoveResult,
  FsTarget,
  FsTargetKey,
} from "./types.ts";

/** One name an operation changes: its canonical folder and its own name there. */
interface Entry {
  readonly target: FsTarget;
  readonly key: string;
  readonly parent: string;
  readonly name: string;
}

/** A name, its opened folder, for the locks. */
interface Held {
  readonly entry: Entry;
  readonly dir: FsDirectory;
}

export class Mutator {
  readonly #ctx: DriverContext;
  // The publication queue shared with every provider (and every write) of the same storage in this process.
  readonly #shared: KeyedLock;

  constructor(ctx: DriverContext) {
    this.#ctx = ctx;
    this.#shared = new KeyedLock(ctx.state.tails);
  }

  async remove(target: FsTarget, options: FsRemoveOptions | undefined): Promise<FsRemoveResult> {
    const { signal, fence, guard } = options ?? {};
    const verb = "remove";
    const path = target.displayPath;
    throwIfAborted(signal, path);
    const entry = await this.#entry(target, verb);
    if (fence) await fence(entry.target);
    const dir = await this.#open(entry, verb, fence, signal, undefined);
    try {
      return await this.#locked([{ entry, dir }], verb, path, signal, async () => {
        await this.#recheck(target, entry, dir, verb, fence);
        const current = await this.#call(verb, path, () => dir.lstat(entry.name));
        this.#judge(path, entry, current, guard, verb);
        if (!current) throw notFound(path, verb);
        if (current.type === "directory" && !options?.directory) {
          throw new FsError("FS_NOT_REGULAR_FILE", `Cannot remove "${path}": it is a directory; remove it as a directory (it must be empty)`, {
            details: { path, type: "directory" },
          });
        }
        throwIfAborted(signal, path);
        const gone = await this.#call(verb, path, () => (current.type === "directory" ? dir.rmdir(entry.name) : dir.unlink(entry.name)));
        if (!gone) throw notFound(path, verb);
        this.#ctx.bump(entry.key);
        return { type: current.type, target: entry.target };
      });
    } finally {
      await dir.close().catch(() => undefined);
    }
  }

  async move(from: FsTarget, to: FsTarget, options: FsMoveOptions | undefined): Promise<FsMoveResult> {
    const { signal, fence, guard, replace } = options ?? {};
    const verb = "move";
    const path = from.displayPath;
    const toPath = to.displayPath;
    throwIfAborted(signal, path);
    const source = await this.#entry(from, verb);
    const destination = await this.#entry(to, verb);
    if (source.key === destination.key) {
      throw new FsError("FS_EXISTS", `Cannot move "${path}" to "${toPath}": they name the same entry`, { details: { path, destination: toPath } });
    }
    if (isWithin(source.key, destination.key)) {
      throw new FsError("FS_IO_ERROR", `Cannot move "${path}" into itself ("${toPath}")`, { details: { path, destination: toPath } });
    }
    if (fence) {
      await fence(source.target);
      await fence(destination.target);
    }
    const from_ = await this.#open(source, verb, fence, signal, undefined);
    try {
      const into = destination.parent === source.parent ? from_ : await this.#open(destination, verb, fence, signal, options?.parents ? 0o777 : undefined);
      try {
        const moved = await this.#locked(
          [
            { entry: source, dir: from_ },
            { entry: destination, dir: into },
          ],
          verb,
          path,
          signal,
          async () => {
            await this.#recheck(from, source, from_, verb, fence);
            await this.#recheck(to, destination, into, verb, fence);
            const current = await this.#call(verb, path, () => from_.lstat(source.name));
            this.#judge(path, source, current, guard, verb);
            if (!current) throw notFound(path, verb);
            const existing = await this.#call(verb, toPath, () => into.lstat(destination.name));
            if (existing) {
              if (!replace) throw exists(toPath, "pass replace to replace it");
              if (existing.type === "directory" || current.type === "directory") {
                throw exists(toPath, existing.type === "directory" ? "a directory is never replaced" : "a directory never replaces another entry");
              }
            }
            if (typeof replace === "object") this.#ctx.checkVersion(toPath, existing, destination.key, replace.version, "replace");
            throwIfAborted(signal, path);
            const done = await this.#call(verb, path, () => from_.move(source.name, into, destination.name, existing !== undefined));
            if (!done) throw exists(toPath, "it appeared while moving");
            this.#ctx.bump(source.key);
            this.#ctx.bump(destination.key);
            const after = current.type === "file" ? await this.#call(verb, toPath, () => into.lstat(destination.name)) : undefined;
            return { type: current.type, replaced: existing !== undefined, after };
          },
        );
        if (fence) await this.#verifyMoved(source, destination, from_, into, fence);
        return {
          type: moved.type,
          source: source.target,
          destination: destination.target,
          replaced: moved.replaced,
          ...(moved.after ? { version: this.#ctx.version(moved.after, destination.key) } : {}),
        };
      } finally {
        if (into !== from_) await into.close().catch(() => undefined);
      }
    } finally {
      await from_.close().catch(() => undefined);
    }
  }

  async mkdir(target: FsTarget, options: FsMkdirOptions | undefined): Promise<FsMkdirResult> {
    const { signal, fence, guard } = options ?? {};
    const verb = "create the folder";
    const path = target.displayPath;
    throwIfAborted(signal, path);
    // A symlink at the last segment is followed, as a write follows it: an existing folder through it is there.
    const resolved = await this.#ctx.destination(target);
    const key = resolved.target.key;
    if (fence) await fence(resolved.target);
    if (resolved.dangling) throw exists(path, `it is a symbolic link to "${key}", which does not exist`);
    const entry: Entry = { target: resolved.target, key, parent: parentPath(key), name: baseName(key) };
    if (key === "/") return this.#existingFolder(path, resolved.target, guard !== undefined, await this.#ctx.driver.lstat("/"));
    const dir = await this.#open(entry, verb, fence, signal, options?.parents ? 0o777 : undefined);
    try {
      return await this.#locked([{ entry, dir }], verb, path, signal, async () => {
        const now = await this.#ctx.destination(target);
        if (fence) await fence(now.target);
        if (now.target.key !== key || (await this.#call(verb, path, () => dir.currentPath())) !== entry.parent) {
          throw await this.#changed(target, verb, fence);
        }
        throwIfAborted(signal, path);
        if (await this.#call(verb, path, () => dir.mkdir(entry.name, 0o777))) {
          this.#ctx.bump(key);
          return { operation: "create" as const, target: resolved.target };
        }
        return this.#existingFolder(path, resolved.target, guard !== undefined, await this.#call(verb, path, () => dir.lstat(entry.name)));
      });
    } finally {
      await dir.close().catch(() => undefined);
    }
  }

  #existingFolder(path: string, target: FsTarget, guarded: boolean, found: FsDriverStat | undefined): FsMkdirResult {
    if (found?.type !== "directory")
      throw exists(path, found ? `it is ${found.type === "file" ? "a file" : `a ${found.type}`}` : "it appeared while creating it");
    if (guarded) throw exists(path, "the folder already exists");
    return { operation: "exists", target };
  }

  // The entry a display path names: its canonical folder plus its own last segment, which is not followed.
  async #entry(target: FsTarget, verb: string): Promise<Entry> {
    const path = target.displayPath;
    if (path === "/") throw new FsError("FS_PERMISSION_DENIED", `Cannot ${verb} "/"`, { details: { path } });
    const folder = await this.#ctx.canonical(parentPath(path), verb, path);
    const name = baseName(path);
    const key = joinPath(folder.path, name);
    return { target: { key: key as FsTargetKey, displayPath: path }, key, parent: folder.path, name };
  }

  #open(entry: Entry, verb: string, fence: FsFence | undefined, signal: AbortSignal | undefined, create: number | undefined): Promise<FsDirectory> {
    const path = entry.target.displayPath;
    return openFolder(this.#ctx, entry.parent, { path, verb, signal, create, changed: () => this.#changed(entry.target, verb, fence) });
  }

  // Under the locks: the name must still lead to the same canonical entry, approved by the fence, in the
  // folder that was opened.
  async #recheck(target: FsTarget, entry: Entry, dir: FsDirectory, verb: string, fence: FsFence | undefined): Promise<void> {
    const now = await this.#entry(target, verb);
    if (fence) await fence(now.target);
    if (now.key !== entry.key || (await this.#call(verb, target.displayPath, () => dir.currentPath())) !== entry.parent) {
      throw await this.#changed(target, verb, fence);
    }
  }

  // The guard: only a file has a version, and only the one read may be acted on.
  #judge(path: string, entry: Entry, current: FsDriverStat | undefined, guard: FsMutationGuard | undefined, verb: string): void {
    if (!guard) return;
    if (current && current.type !== "file") {
      throw new FsError(
        "FS_NOT_REGULAR_FILE",
        `Cannot ${verb} "${path}" at a version: it is ${current.type === "symlink" ? "a symbolic link" : `a ${current.type}`}, which has none`,
        {
          details: { path, type: current.type },
        },
      );
    }
    this.#ctx.checkVersion(path, current, entry.key, guard.version, verb);
  }

  // Takes the shared queue and, where other processes reach the storage, the lock file of every name, in
  // one order (by canonical key) everywhere, so two operations never wait on each other.
  async #locked<T>(names: readonly Held[], verb: string, path: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    const sorted = [...names].sort((a, b) => (a.entry.key < b.entry.key ? -1 : a.entry.key > b.entry.key ? 1 : 0));
    const processes = this.#ctx.driver.processes;
    const take = async (index: number): Promise<T> => {
      const held = sorted[index];
      if (!held) return work();
      return this.#shared.run(held.entry.key, async () => {
        const release = processes ? await this.#call(verb, path, () => acquireLockFile(held.dir, held.entry.name, processes, signal)) : undefined;
        try {
          return await take(index + 1);
        } finally {
          await release?.().catch(() => undefined);
        }
      });
    };
    return take(0);
  }

  // After the move the destination folder must still be where the fence approved it; if it was moved out
  // meanwhile, the entry is moved back to its source name and the operation fails.
  async #verifyMoved(source: Entry, destination: Entry, from: FsDirectory, into: FsDirectory, fence: FsFence): Promise<void> {
    const where = await into.currentPath().catch(() => undefined);
    if (where === destination.parent) return;
    const path = destination.target.displayPath;
    try {
      if (where === undefined) throw await this.#changed(destination.target, "move", fence);
      await fence({ key: joinPath(where, destination.name) as FsTargetKey, displayPath: path });
    } catch (error) {
      await into.move(destination.name, from, source.name, false).catch(() => undefined);
      throw error;
    }
  }

  async #changed(target: FsTarget, verb: string, fence: FsFence | undefined): Promise<FsError> {
    const path = target.displayPath;
    try {
      const now = await this.#entry(target, verb);
      if (fence) await fence(now.target);
    } catch (error) {
      if (isFsError(error)) return error;
    }
    return new FsError("FS_STALE_VERSION", `Cannot ${verb} "${path}": the path changed meanwhile; look at it again`, { details: { path } });
  }

  #call<T>(verb: string, path: string, work: () => Promise<T>): Promise<T> {
    return this.#ctx.call(verb, path, work);
  }
}

function notFound(path: string, verb: string): FsError {
  return new FsError("FS_NOT_FOUND", `Cannot ${verb} "${path}": nothing has that name`, { details: { path } });
}

function exists(path: string, why: string): FsError {
  return new FsError("FS_EXISTS", `"${path}" already exists: ${why}`, { details: { path } });
}
