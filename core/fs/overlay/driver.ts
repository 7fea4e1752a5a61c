// Over 400 lines: the driver (OverlayDriver) and its directories (OverlayDirectory) share the merged-view lookups; a split there waits for work under way.
// The overlay as an FsDriver: core's createFileSystem builds the FileSystem on top of it, so identity,
// versions, guards, the fence, the publication lock and listing order are core's, unchanged. Reads consult the
// upper first and fall through to the base; publication acts on the upper only; the base is never written here.
import type { FsCapabilities } from "../capabilities.ts";
import type { FsDirectory, FsDriver, FsDriverHandle, FsDriverStat, FsStagedFile } from "../driver.ts";
import { errnoError } from "../errno.ts";
import { FsError, isFsError } from "../errors.ts";
import { baseName, joinPath, parentPath } from "../paths.ts";
import type { FileSystem, FsInfo, FsPathInfo, FsReadStream, FsTarget, FsTargetKey, FsVersion } from "../types.ts";
import type { OverlayNode, OverlayOrigin, OverlayUpper } from "./upper.ts";

/** Where a path is in the merged view, its last segment not followed. */
export type OverlayFound =
  | { readonly layer: "upper"; readonly key: string; readonly node: OverlayNode }
  | { readonly layer: "base"; readonly key: string; readonly info: FsPathInfo };

const STREAM_CHUNK = 256 * 1024;

export class OverlayDriver implements FsDriver {
  readonly capabilities: FsCapabilities;
  readonly storage: object;
  readonly newFileMode = 0o644;
  readonly base: FileSystem;
  readonly upper: OverlayUpper;

  constructor(base: FileSystem, upper: OverlayUpper) {
    this.base = base;
    this.upper = upper;
    // Providers over one upper share its lock table and publication counters, as providers of one volume do.
    this.storage = upper;
    const inherited = base.capabilities;
    this.capabilities = {
      // The base's symlinks are seen and followed as the base follows them; the upper never holds one.
      symlinks: inherited.symlinks,
      // The upper keeps no permission bits: a commit gives a replaced file its base mode, a new one the base's default.
      fileModes: false,
      // Nor owners: a private write lands in the base (spills go through the base provider).
      owners: false,
      permissionErrors: inherited.permissionErrors,
      timestampResolutionMs: inherited.timestampResolutionMs,
      // Publication lands in the upper at the canonical path the fence approved; nothing else writes the upper.
      pinnedPublication: true,
      // No other process can reach the upper.
      detectsDeadWriters: false,
      atomicNoReplaceMove: false,
    };
  }

  async realpath(path: string): Promise<string | undefined> {
    if (this.upper.get(path)) {
      await this.#pause();
      return path;
    }
    if (this.upper.fileAbove(path)) throw notDirectoryAbove();
    const key = (await this.#base(() => this.base.resolve(path))).key;
    if (key !== path && this.upper.get(key)) return key;
    if (this.upper.fileAbove(key)) throw notDirectoryAbove();
    return (await this.#baseLstat(key)) ? key : undefined;
  }

  async stat(path: string): Promise<FsDriverStat | undefined> {
    const found = await this.#follow(path);
    return found && (await this.statOf(found)).stat;
  }

  async lstat(path: string): Promise<FsDriverStat | undefined> {
    const found = await this.#find(path);
    return found && (await this.statOf(found)).stat;
  }

  // The seam has no readlink; the base's resolution of the link is as good for core, which only asks where a
  // dangling link points and resolves the answer against the link's folder (an absolute answer stands).
  async readlink(path: string): Promise<string> {
    return (await this.#base(() => this.base.resolve(path))).key;
  }

  async readdir(path: string): Promise<string[]> {
    const names = new Set(this.upper.children(path));
    const mine = this.upper.get(path);
    if (mine?.type === "file") throw errnoError("ENOTDIR", undefined);
    try {
      for (const entry of await this.#base(() => this.base.listDir(target(path)))) names.add(entry.name);
    } catch (error) {
      // A folder only the upper has.
      if (!(mine && (isFsError(error, "FS_NOT_FOUND") || isFsError(error, "FS_NOT_DIRECTORY")))) throw error;
    }
    return [...names];
  }

  async open(path: string): Promise<FsDriverHandle> {
    const found = await this.#follow(path);
    if (!found) throw errnoError("ENOENT", undefined);
    const epoch = this.upper.epoch;
    if (found.layer === "upper") return nodeHandle(found.node, epoch);
    if (found.info.type !== "file") return statOnlyHandle((await this.statOf(found)).stat);
    const stream = await this.#base(() => this.base.readStream(target(found.key), { chunkSize: STREAM_CHUNK }));
    return streamHandle(stream, baseStat(stream.info, found.key, epoch));
  }

  async openDirectory(path: string): Promise<FsDirectory> {
    const key = await this.realpath(path);
    if (key === undefined) throw errnoError("ENOENT", undefined);
    const found = await this.#find(key);
    if (!found) throw errnoError("ENOENT", undefined);
    if (kind(found) !== "directory") throw errnoError("ENOTDIR", undefined);
    return new OverlayDirectory(this, key);
  }

  /**
   * The metadata of a found entry, and for a base entry that is not a symlink the base's own version (which
   * its token carries).
   */
  async statOf(found: OverlayFound): Promise<{ readonly stat: FsDriverStat; readonly version?: FsVersion }> {
    const epoch = this.upper.epoch;
    if (found.layer === "upper") return { stat: nodeStat(found.node, epoch) };
    const { info, key } = found;
    if (info.type === "symlink") {
      return { stat: { type: "symlink", size: info.size, mtimeMs: info.mtimeMs, mode: 0, token: `l${info.size}:${info.mtimeMs}@${epoch}`, id: `b:${key}` } };
    }
    // The entry is not a symlink, so following it changes nothing; stat gives its version.
    const full = await this.#base(() => this.base.stat(target(key)));
    if (!full) throw errnoError("ENOENT", undefined);
    return { stat: baseStat(full, key, epoch), version: full.version };
  }

  /** The entry at `path` in the merged view, not following a final symlink. */
  async find(path: string): Promise<OverlayFound | undefined> {
    return this.#find(path);
  }

  /** The version the base holds at a canonical path now, as a publication's origin. */
  async origin(key: string): Promise<OverlayOrigin> {
    const info = await this.#base(() => this.base.stat(target(key)));
    return info?.type === "file" ? { kind: "file", version: info.version } : { kind: "absent" };
  }

  async #find(path: string): Promise<OverlayFound | undefined> {
    const node = this.upper.get(path);
    if (node) {
      await this.#pause();
      return { layer: "upper", key: path, node };
    }
    // Through an alias of a folder (a symlink on the way), the upper can only hold this entry under its own
    // name; only then is it worth finding the folder's canonical path.
    const name = baseName(path);
    if (path !== "/" && this.upper.holdsName(name)) {
      const parent = await this.realpath(parentPath(path)).catch(() => undefined);
      if (parent !== undefined && parent !== parentPath(path)) {
        const key = joinPath(parent, name);
        const aliased = this.upper.get(key);
        if (aliased) return { layer: "upper", key, node: aliased };
      }
    }
    if (this.upper.fileAbove(path)) return undefined;
    const info = await this.#baseLstat(path);
    return info && { layer: "base", key: path, info };
  }

  /** As #find, but a base symlink is followed through the merged view (its target may be in the upper). */
  async #follow(path: string): Promise<OverlayFound | undefined> {
    const found = await this.#find(path);
    if (found?.layer !== "base" || found.info.type !== "symlink") return found;
    const key = await this.realpath(path);
    if (key === undefined) return undefined;
    const target = await this.#find(key);
    return target?.layer === "base" && target.info.type === "symlink" ? undefined : target;
  }

  // An answer from the upper waits for no I/O, so a loop of reads of the overlay's own files never lets the
  // event loop turn, and a writer waiting meanwhile starves: for the base's I/O, or for a timer (a lock file
  // held, waited for with backoff). Every 64th such answer waits for the next turn (setTimeout is in every
  // runtime core supports) while some call to the base is under way, and every 4,096th in any case: counted,
  // not timed, and a matter of scheduling only.
  async #pause(): Promise<void> {
    const traffic = trafficOf(this.upper);
    const answered = ++traffic.answered;
    if (answered % 64 !== 0 || (traffic.pending === 0 && answered % 4096 !== 0)) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }

  async #baseLstat(path: string): Promise<FsPathInfo | undefined> {
    return this.#base(() => this.base.lstat(path));
  }

  // A base failure as a driver failure: the code and the reason, without the base's own "Cannot <verb>
  // "<path>":" prefix, so core names the action and the path the caller used.
  async #base<T>(work: () => Promise<T>): Promise<T> {
    const traffic = trafficOf(this.upper);
    traffic.pending++;
    try {
      return await work();
    } catch (error) {
      throw fromBase(error);
    } finally {
      traffic.pending--;
    }
  }
}

/** An opened directory of the merged view, pinned to its canonical path; everything it creates lands in the upper. */
class OverlayDirectory implements FsDirectory {
  readonly #driver: OverlayDriver;
  readonly #path: string;
  // The base entry each name had at its last lstat through this handle: core's final guard check is such an
  // lstat, so a first publication records as its origin exactly the version that check judged.
  readonly #seen = new Map<string, OverlayOrigin>();

  constructor(driver: OverlayDriver, path: string) {
    this.#driver = driver;
    this.#path = path;
  }

  get #upper(): OverlayUpper {
    return this.#driver.upper;
  }

  async currentPath(): Promise<string | undefined> {
    const now = await this.#driver.realpath(this.#path).catch(() => undefined);
    if (now !== this.#path) return undefined;
    const found = await this.#driver.find(this.#path).catch(() => undefined);
    return found && kind(found) === "directory" ? this.#path : undefined;
  }

  async stat(): Promise<FsDriverStat> {
    const stat = await this.#driver.stat(this.#path);
    if (!stat) throw new FsError("FS_NOT_FOUND", "its folder was removed while writing");
    return stat;
  }

  async lstat(name: string): Promise<FsDriverStat | undefined> {
    const found = await this.#driver.find(this.#at(name));
    if (!found) {
      this.#seen.set(name, { kind: "absent" });
      return undefined;
    }
    const { stat, version } = await this.#driver.statOf(found);
    if (found.layer === "base") this.#seen.set(name, stat.type === "file" && version ? { kind: "file", version } : { kind: "absent" });
    else this.#seen.delete(name);
    return stat;
  }

  async openDirectory(name: string): Promise<FsDirectory | undefined> {
    const path = this.#at(name);
    const found = await this.#driver.find(path);
    if (!found) return undefined;
    if (kind(found) !== "directory") throw new FsError("FS_NOT_DIRECTORY", "it is not a directory");
    return new OverlayDirectory(this.#driver, path);
  }

  async mkdir(name: string, _mode: number): Promise<boolean> {
    const path = this.#at(name);
    if (this.#upper.staged(path) || (await this.#driver.find(path))) return false;
    this.#upper.mkdir(path);
    return true;
  }

  async createFile(name: string, _mode: number): Promise<FsStagedFile | undefined> {
    const path = this.#at(name);
    if (await this.#driver.find(path)) return undefined;
    const staged = this.#upper.stage(path);
    if (!staged) return undefined;
    return {
      write: async (bytes) => {
        // Copied: the caller may reuse its buffer, and a published node never changes.
        staged.chunks.push(bytes.slice());
        staged.length += bytes.length;
        return bytes.length;
      },
      sync: async () => undefined,
      chmod: async () => undefined,
      close: async () => undefined,
    };
  }

  async readFile(name: string, maxBytes: number): Promise<Uint8Array | undefined> {
    const path = this.#at(name);
    const found = await this.#driver.find(path);
    if (!found || kind(found) !== "file") return undefined;
    if (found.layer === "upper") return (found.node as { bytes: Uint8Array }).bytes.slice(0, maxBytes);
    const handle = await this.#driver.open(path);
    try {
      const buffer = new Uint8Array(maxBytes);
      let filled = 0;
      while (filled < maxBytes) {
        const n = await handle.read(buffer.subarray(filled), filled);
        if (n === 0) break;
        filled += n;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }

  async rename(from: string, to: string): Promise<void> {
    const source = this.#at(from);
    const destination = this.#at(to);
    const found = await this.#driver.find(destination);
    if (found && kind(found) === "directory") throw errnoError("EISDIR", undefined);
    const staged = this.#upper.staged(source);
    if (staged) {
      const seen = this.#seen.get(to);
      const origin = seen ?? (await this.#driver.origin(destination));
      this.#upper.publish(destination, staged, () => origin);
      this.#upper.unstage(source);
      return;
    }
    const node = this.#upper.get(source);
    if (node?.type !== "file") throw new FsError("FS_IO_ERROR", "the overlay can rename only files it wrote");
    this.#upper.move(source, destination);
  }

  async link(from: string, to: string): Promise<boolean> {
    const staged = this.#upper.staged(this.#at(from));
    if (!staged) throw new FsError("FS_IO_ERROR", "the overlay can link only a file it is staging");
    const destination = this.#at(to);
    if (await this.#driver.find(destination)) return false;
    this.#upper.publish(destination, staged, () => ({ kind: "absent" }));
    return true;
  }

  async unlink(name: string): Promise<boolean> {
    const path = this.#at(name);
    if (this.#upper.unstage(path)) return true;
    const node = this.#upper.get(path);
    if (node?.type === "file") return this.#upper.remove(path);
    if (node) throw errnoError("EISDIR", undefined);
    if (await this.#driver.find(path)) throw new FsError("FS_IO_ERROR", "the overlay cannot remove a file of its base");
    return false;
  }

  async rmdir(_name: string): Promise<boolean> {
    throw new FsError("FS_IO_ERROR", "removing a directory is not supported by the overlay yet");
  }

  async move(_from: string, _into: FsDirectory, _to: string, _replace: boolean): Promise<boolean> {
    throw new FsError("FS_IO_ERROR", "moving is not supported by the overlay yet");
  }

  async readdir(): Promise<string[]> {
    return this.#driver.readdir(this.#path);
  }

  async close(): Promise<void> {}

  #at(name: string): string {
    return joinPath(this.#path, name);
  }
}

// Calls to the base under way, and answers given from the upper, per upper (shared by its providers).
const traffics = new WeakMap<OverlayUpper, { pending: number; answered: number }>();

function trafficOf(upper: OverlayUpper): { pending: number; answered: number } {
  let traffic = traffics.get(upper);
  if (!traffic) traffics.set(upper, (traffic = { pending: 0, answered: 0 }));
  return traffic;
}

function kind(found: OverlayFound): "file" | "directory" | "symlink" | "other" {
  return found.layer === "upper" ? found.node.type : found.info.type;
}

function target(key: string): FsTarget {
  return { key: key as FsTargetKey, displayPath: key };
}

// Tokens: `u<serial>` for a node of the upper, `b<base version>` for a base entry, and the upper's epoch on
// both, so that a restore or a discard makes every version observed before it stale.
function nodeStat(node: OverlayNode, epoch: number): FsDriverStat {
  const size = node.type === "file" ? node.bytes.length : 0;
  return { type: node.type, size, mtimeMs: node.mtimeMs, mode: 0, token: `u${node.serial}@${epoch}`, id: `u:${node.serial}` };
}

function baseStat(info: FsInfo, key: string, epoch: number): FsDriverStat {
  return { type: info.type, size: info.size, mtimeMs: info.mtimeMs, mode: 0, token: `b${info.version}@${epoch}`, id: `b:${key}` };
}

function nodeHandle(node: OverlayNode, epoch: number): FsDriverHandle {
  const stat = nodeStat(node, epoch);
  return {
    stat: async () => stat,
    async read(buffer, position) {
      if (node.type !== "file") throw errnoError("EISDIR", undefined);
      const available = node.bytes.subarray(position, position + buffer.length);
      buffer.set(available);
      return available.length;
    },
    close: async () => undefined,
  };
}

function statOnlyHandle(stat: FsDriverStat): FsDriverHandle {
  return {
    stat: async () => stat,
    read: async () => {
      throw errnoError(stat.type === "directory" ? "EISDIR" : "EINVAL", undefined);
    },
    close: async () => undefined,
  };
}

// A base file read through its stream: core reads a handle front to back, so positions arrive in order.
function streamHandle(stream: FsReadStream, stat: FsDriverStat): FsDriverHandle {
  const iterator = stream[Symbol.asyncIterator]();
  let pending: Uint8Array = new Uint8Array(0);
  let consumed = 0;
  let done = false;
  return {
    stat: async () => stat,
    async read(buffer, position) {
      if (position !== consumed) throw new FsError("FS_IO_ERROR", "the overlay reads its base front to back only");
      while (pending.length === 0 && !done) {
        const next = await iterator.next().catch((error: unknown) => {
          throw fromBase(error);
        });
        if (next.done) done = true;
        else pending = next.value;
      }
      const n = Math.min(buffer.length, pending.length);
      buffer.set(pending.subarray(0, n));
      pending = pending.subarray(n);
      consumed += n;
      return n;
    },
    async close() {
      await iterator.return?.().catch(() => undefined);
      await stream.close();
    },
  };
}

function notDirectoryAbove(): FsError {
  return errnoError("ENOTDIR", undefined);
}

/** A base failure without the base's prefix, so core names the action and the caller's path. */
export function fromBase(error: unknown): unknown {
  if (!isFsError(error)) return error;
  const { path, ...details } = error.details;
  if (path === undefined) return error;
  const marker = `"${path}": `;
  const at = error.message.indexOf(marker);
  const reason = error.message.startsWith("Cannot ") && at !== -1 ? error.message.slice(at + marker.length) : error.message;
  return new FsError(error.code, reason, { cause: error, details });
}
