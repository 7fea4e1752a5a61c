// The publication pipeline, the security core of every write: stage the bytes beside the destination, take
// the shared and cross-process locks, judge the destination again as it is now, publish by rename or link,
// re-verify the folder, clean up (docs/notes/0009). Written once here, over directory handles, for every
// backend.
import { type DriverContext, notRegular } from "./context.ts";
import type { FsDirectory, FsDriverStat } from "./driver.ts";
import { FsError, isFsError, throwIfAborted } from "./errors.ts";
import { KeyedLock } from "./lock.ts";
import { openFolder } from "./folders.ts";
import { acquireLockFile, sweepDirectory } from "./lockfile.ts";
import { stagingName } from "./names.ts";
import { baseName, joinPath, parentPath } from "./paths.ts";
import type { FsFence, FsTarget, FsTargetKey, FsVersion, FsWriteGuard, FsWriteOptions, FsWriteResult } from "./types.ts";
import type { WriteSource } from "./write-source.ts";

const WRITE_CHUNK = 1 << 20;

/** One write on its way to publication. */
interface Publication {
  readonly target: FsTarget;
  /** The canonical destination approved by the first fence check, its parent and its name. */
  readonly key: string;
  readonly parent: string;
  readonly name: string;
  readonly source: WriteSource;
  readonly guard: FsWriteGuard | undefined;
  readonly fence: FsFence | undefined;
  readonly signal: AbortSignal | undefined;
  readonly durable: boolean;
  readonly private: boolean;
}

/** Writes through one provider: call order per file, then publication. */
export class Publisher {
  readonly #ctx: DriverContext;
  // Call order of this provider's writes to one file.
  readonly #order = new KeyedLock();
  // The publication queue shared with every provider of the same storage in this process.
  readonly #shared: KeyedLock;

  constructor(ctx: DriverContext) {
    this.#ctx = ctx;
    this.#shared = new KeyedLock(ctx.state.tails);
  }

  async write(target: FsTarget, source: WriteSource, options: FsWriteOptions | undefined): Promise<FsWriteResult> {
    const guard = options?.guard;
    const signal = options?.signal;
    const fence = options?.fence;
    const path = target.displayPath;
    throwIfAborted(signal, path);
    // Writes through one provider to one file apply in call order; the queue shared with other providers is
    // taken only around publication.
    return await this.#order.run(target.key, async () => {
      const destination = await this.#ctx.destination(target);
      throwIfAborted(signal, path);
      if (fence) await fence(destination.target);
      const key = destination.target.key;
      if (destination.dangling) {
        throw new FsError("FS_NOT_REGULAR_FILE", `Cannot write "${path}": it is a symbolic link to "${key}", which does not exist; write that path instead`, {
          details: { path },
        });
      }
      const existing = await this.#ctx.call("write", path, () => this.#ctx.driver.lstat(key));
      if (existing && existing.type !== "file") throw notRegular(path, existing.type);
      if (guard?.kind === "createIfAbsent" && existing) throw notObserved(path);
      if (guard?.kind === "replaceIfVersion") this.#ctx.checkVersion(path, existing, key, guard.version);
      throwIfAborted(signal, path);
      const job: Publication = {
        target,
        key,
        parent: parentPath(key),
        name: baseName(key),
        source,
        guard,
        fence,
        signal,
        durable: options?.durable ?? true,
        private: options?.private === true,
      };
      const dir = await this.#openParent(job);
      try {
        return await this.#publish(job, dir);
      } finally {
        await dir.close().catch(() => undefined);
      }
    });
  }

  // Opens the destination's parent (see folders.ts), creating missing levels, then checks a private write's folder.
  async #openParent(job: Publication): Promise<FsDirectory> {
    const path = job.target.displayPath;
    const dir = await openFolder(this.#ctx, job.parent, {
      path,
      verb: "write",
      signal: job.signal,
      create: job.private ? 0o700 : 0o777,
      changed: () => this.#changed(job),
    });
    try {
      if (job.private && this.#ctx.capabilities.fileModes) {
        const { mode: dirMode } = await this.#ctx.call("write", path, () => dir.stat());
        if ((dirMode & 0o022) !== 0) {
          throw new FsError("FS_PERMISSION_DENIED", `Cannot write "${path}" privately: other users can write to its folder (mode ${dirMode.toString(8)})`, {
            details: { path, mode: dirMode },
          });
        }
      }
      return dir;
    } catch (error) {
      await dir.close().catch(() => undefined);
      throw error;
    }
  }

  // The folder of a private write must be this user's: its owner can rename and replace any entry, whatever
  // its mode. The staged file was just created by this process, so its owner is who this process writes as
  // (no runtime call needed to ask, and root's view of it is exact). Checked before any byte is staged.
  async #checkFolderOwner(job: Publication, dir: FsDirectory, staged: string): Promise<void> {
    const path = job.target.displayPath;
    const [mine, folder] = await Promise.all([this.#ctx.call("write", path, () => dir.lstat(staged)), this.#ctx.call("write", path, () => dir.stat())]);
    if (mine?.owner === undefined || folder.owner === undefined || mine.owner === folder.owner) return;
    throw new FsError("FS_PERMISSION_DENIED", `Cannot write "${path}" privately: its folder belongs to another user (uid ${folder.owner}, not ${mine.owner})`, {
      details: { path, owner: folder.owner },
    });
  }

  // Stage, lock, check, publish, release, re-verify, clean up (docs/notes/0009).
  async #publish(job: Publication, dir: FsDirectory): Promise<FsWriteResult> {
    const { target, key, parent, name, guard, fence, signal } = job;
    const path = target.displayPath;
    const processes = this.#ctx.driver.processes;
    const call = <T>(work: () => Promise<T>): Promise<T> => this.#ctx.call("write", path, work);
    if (processes) await sweepDirectory(dir, parent, processes, this.#ctx.state);

    const staged = stagingName(name, this.#ctx.owner);
    const file = await call(() => dir.createFile(staged, 0o600));
    if (!file) throw new FsError("FS_IO_ERROR", `Cannot write "${path}": the staging name "${staged}" is taken`, { details: { path } });
    let open = true;
    let stagedLeft = true;
    try {
      if (job.private && this.#ctx.capabilities.owners) await this.#checkFolderOwner(job, dir, staged);
      for await (const bytes of job.source) {
        for (let offset = 0; offset < bytes.length; ) {
          throwIfAborted(signal, path);
          offset += await call(() => file.write(bytes.subarray(offset, offset + WRITE_CHUNK)));
        }
      }
      if (job.durable) await call(() => file.sync());
      throwIfAborted(signal, path);

      const published = await this.#shared.run(key, async () => {
        const release = processes ? await call(() => acquireLockFile(dir, name, processes, signal)) : undefined;
        try {
          // Judge the destination as it is now: a parent swapped for a symlink since the first check moves
          // the canonical path, and the fence or the comparisons below catch it.
          const now = await this.#ctx.destination(target);
          if (fence) await fence(now.target);
          if (now.target.key !== key || (await call(() => dir.currentPath())) !== parent) throw await this.#changed(job);
          const current = await call(() => dir.lstat(name));
          if (current && current.type !== "file") throw notRegular(path, current.type);
          if (guard?.kind === "createIfAbsent" && current) throw notObserved(path);
          if (guard?.kind === "replaceIfVersion") this.#ctx.checkVersion(path, current, key, guard.version);
          throwIfAborted(signal, path);
          // Owner-only while staged; the final mode only once publication is decided, set through the open file.
          if (this.#ctx.capabilities.fileModes) {
            const mode = current ? current.mode : job.private ? 0o600 : this.#ctx.driver.newFileMode;
            await call(() => file.chmod(mode));
          }
          open = false;
          await call(() => file.close());
          if (guard?.kind === "createIfAbsent") {
            if (!(await call(() => dir.link(staged, name)))) return undefined;
            // Dropping the staged name changes the file's ctime: done before the version is read.
            await call(() => dir.unlink(staged));
            stagedLeft = false;
          } else {
            await call(() => dir.rename(staged, name));
            stagedLeft = false;
          }
          this.#ctx.bump(key);
          return { existed: current !== undefined, after: await call(() => dir.lstat(name)) };
        } finally {
          await release?.().catch(() => undefined);
        }
      });
      if (!published) {
        const found = await call(() => dir.lstat(name));
        if (found && found.type !== "file") throw notRegular(path, found.type);
        throw notObserved(path);
      }
      if (fence) await this.#verifyPublished(job, dir, published.after, published.existed);
      return {
        operation: published.existed ? "update" : "create",
        version: published.after ? this.#ctx.version(published.after, key) : (`gone:${key}` as FsVersion),
        target: { key: key as FsTargetKey, displayPath: path },
      };
    } finally {
      if (open) await file.close().catch(() => undefined);
      if (stagedLeft) await dir.unlink(staged).catch(() => undefined);
    }
  }

  // After publication, the folder must still be where the fence approved it. If it was moved out meanwhile,
  // a new file is taken back; a replaced file cannot be, and the error says where its new bytes now are.
  async #verifyPublished(job: Publication, dir: FsDirectory, after: FsDriverStat | undefined, existed: boolean): Promise<void> {
    const where = await dir.currentPath().catch(() => undefined);
    if (where === job.parent || !job.fence) return;
    const path = job.target.displayPath;
    const moved = where === undefined ? undefined : joinPath(where, job.name);
    try {
      if (moved === undefined) throw await this.#changed(job);
      await job.fence({ key: moved as FsTargetKey, displayPath: path });
    } catch (error) {
      if (!existed) {
        const now = await dir.lstat(job.name).catch(() => undefined);
        if (now && after && now.id === after.id) await dir.unlink(job.name).catch(() => undefined);
        throw error;
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new FsError(
        isFsError(error) ? error.code : "FS_SANDBOX_DENIED",
        `"${path}" was replaced, but its folder was moved while the write was published${moved ? `; the new bytes are at "${moved}"` : ""}: ${reason}`,
        { cause: error, details: { path, ...(moved ? { destination: moved } : {}) } },
      );
    }
  }

  // The error for a destination that moved during the write: the fence's refusal when it now resolves
  // outside, otherwise a stale-path error that asks for a fresh read.
  async #changed(job: Publication): Promise<FsError> {
    const path = job.target.displayPath;
    try {
      const now = await this.#ctx.destination(job.target);
      if (job.fence) await job.fence(now.target);
    } catch (error) {
      if (isFsError(error)) return error;
    }
    return new FsError("FS_STALE_VERSION", `Cannot write "${path}": the path changed while writing; read it again`, {
      details: { path },
    });
  }
}

function notObserved(path: string): FsError {
  return new FsError("FS_NOT_OBSERVED", `Cannot create "${path}": it already exists; read it before replacing it`, {
    details: { path },
  });
}
