// What every part of the provider needs from one driver: its calls with errors that name the action and
// path, canonical identity, version tokens, and the errors several parts raise alike.
import type { FsDriver, FsDriverStat } from "./driver.ts";
import { FsError, isFsError } from "./errors.ts";
import { hostTag, type StagingOwner } from "./names.ts";
import { baseName, joinPath, parentPath, resolvePath } from "./paths.ts";
import { type StorageState, storageState } from "./shared.ts";
import type { FileSystem, FsInfo, FsTarget, FsTargetKey, FsVersion } from "./types.ts";

const MAX_LINK_HOPS = 40;

export interface Canonical {
  readonly path: string;
  /** The last segment is a symlink whose target does not exist; `path` is where it points. */
  readonly dangling: boolean;
}

/** One driver as the provider's parts use it; shared by them, never exported from the package. */
export class DriverContext {
  readonly driver: FsDriver;
  // Shared with every provider of the same storage in this process: the publication queue, and the count of
  // publications per canonical key that is part of every version token, so two writes that leave identical
  // metadata (same size, same millisecond, a recycled inode) still give distinct versions.
  readonly state: StorageState;
  readonly owner: StagingOwner | undefined;

  constructor(driver: FsDriver) {
    this.driver = driver;
    this.state = storageState(driver.storage);
    const processes = driver.processes;
    this.owner = processes && { pid: processes.pid, host: hostTag(processes.host) };
  }

  get capabilities(): FileSystem["capabilities"] {
    return this.driver.capabilities;
  }

  async destination(target: FsTarget): Promise<{ target: FsTarget; dangling: boolean }> {
    const canonical = await this.canonical(target.displayPath, "write", target.displayPath);
    return { target: { key: canonical.path as FsTargetKey, displayPath: target.displayPath }, dangling: canonical.dangling };
  }

  // The canonical path of `path`: its realpath when it exists; where it points when it is a dangling
  // symlink; otherwise the canonical parent plus the missing name, so the key of a missing file is the key
  // it will have once created, even beneath a symlinked or not-yet-created directory.
  async canonical(path: string, verb: string, displayPath: string, hops = 0): Promise<Canonical> {
    const real = await this.call(verb, displayPath, () => this.driver.realpath(path));
    if (real !== undefined) return { path: real, dangling: false };
    if (path === "/") return { path, dangling: false };
    const link = await this.call(verb, displayPath, () => this.driver.lstat(path));
    if (link?.type === "symlink") {
      if (hops >= MAX_LINK_HOPS) {
        throw new FsError("FS_IO_ERROR", `Cannot ${verb} "${displayPath}": too many levels of symbolic links`, {
          details: { path: displayPath },
        });
      }
      const destination = await this.call(verb, displayPath, () => this.driver.readlink(path));
      const pointed = await this.canonical(resolvePath(parentPath(path), destination), verb, displayPath, hops + 1);
      return { path: pointed.path, dangling: true };
    }
    const parent = await this.canonical(parentPath(path), verb, displayPath, hops);
    return { path: joinPath(parent.path, baseName(path)), dangling: false };
  }

  /** Counts a change at `key`, so every version read there before is stale. */
  bump(key: string): void {
    this.state.generations.set(key, (this.state.generations.get(key) ?? 0) + 1);
  }

  info(stat: FsDriverStat, key: string): FsInfo {
    const type = stat.type === "file" || stat.type === "directory" ? stat.type : "other";
    return { type, size: stat.size, mtimeMs: stat.mtimeMs, version: this.version(stat, key) };
  }

  version(stat: FsDriverStat, key: string): FsVersion {
    return `${stat.token}#${this.state.generations.get(key) ?? 0}` as FsVersion;
  }

  checkVersion(path: string, current: FsDriverStat | undefined, key: string, expected: FsVersion, verb = "write"): void {
    if (!current) {
      throw new FsError("FS_STALE_VERSION", `Cannot ${verb} "${path}": it no longer exists; it was deleted after it was read`, {
        details: { path },
      });
    }
    if (this.version(current, key) !== expected) {
      throw new FsError("FS_STALE_VERSION", `Cannot ${verb} "${path}": it changed since it was read; read it again`, {
        details: { path },
      });
    }
  }

  // Runs a driver call and gives any failure the action and the display path. Errors raised by core itself
  // already name their path and pass through unchanged.
  async call<T>(verb: string, path: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isFsError(error)) {
        if (error.details.path !== undefined) throw error;
        throw new FsError(error.code, `Cannot ${verb} "${path}": ${error.message}`, {
          cause: error.cause ?? error,
          details: { ...error.details, path },
        });
      }
      throw new FsError("FS_IO_ERROR", `Cannot ${verb} "${path}": ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
        details: { path },
      });
    }
  }
}

export function notRegular(path: string, type: string, verb = "write"): FsError {
  const what = type === "directory" ? "a directory" : type === "symlink" ? "a symbolic link" : "not a regular file";
  return new FsError("FS_NOT_REGULAR_FILE", `Cannot ${verb} "${path}": it is ${what}`, { details: { path, type } });
}
