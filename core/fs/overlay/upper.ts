// The upper layer of an overlay: the files written through it, as immutable nodes keyed by canonical path.
// Every publication makes a new node and never changes an old one, so a checkpoint is a copy of the map of
// references (no bytes are copied), and a reader that opened a node keeps reading the bytes it opened.
// Over 400 lines: one class whose maps (nodes, origins, move sources, the name index) change together in every
// method; split, they would have to be exposed to each other.
import { FsError } from "../errors.ts";
import { baseName, isWithin, joinPath, parentPath } from "../paths.ts";
import type { FsVersion } from "../types.ts";
import { OverlayError } from "./errors.ts";
import { Gate } from "./gate.ts";

/** A file of the upper: its bytes, never changed once published. */
export interface OverlayFileNode {
  readonly type: "file";
  readonly bytes: Uint8Array;
  readonly mtimeMs: number;
  /** Unique within the upper; a new one for every publication. */
  readonly serial: number;
}

/** A directory of the upper: one the overlay created, or the mirror of a base directory it wrote beneath. */
export interface OverlayDirectoryNode {
  readonly type: "directory";
  readonly mtimeMs: number;
  readonly serial: number;
  /**
   * Made where the overlay had deleted something of the base: nothing of the base beneath it shows through
   * (the base's entries there were deleted, and their whiteouts are kept beneath it).
   */
  readonly opaque?: boolean;
}

/**
 * A deletion: the base's entry at this path (and everything beneath it) is hidden. The whiteouts beneath a
 * deleted folder are kept, each with its origin, so the commit knows what it deletes in the base.
 */
export interface OverlayWhiteoutNode {
  readonly type: "whiteout";
  readonly mtimeMs: number;
  readonly serial: number;
}

/** What the merged view can show of the upper. */
export type OverlayVisibleNode = OverlayFileNode | OverlayDirectoryNode;

export type OverlayNode = OverlayVisibleNode | OverlayWhiteoutNode;

/** A file moved from the base: its name there and the version moved (which the commit moves only if unchanged). */
export interface OverlaySource {
  readonly key: string;
  readonly version: FsVersion;
}

/**
 * What the base held at a path when the overlay first published there: nothing, or a file at a version (the
 * version that publication's guard judged, so under read-before-write the version the actor had read).
 */
export type OverlayOrigin =
  | { readonly kind: "absent" }
  | { readonly kind: "file"; readonly version: FsVersion }
  /** A base folder or symbolic link the overlay deleted, moved away or made a folder over. */
  | { readonly kind: "directory" }
  | { readonly kind: "symlink" };

/** A checkpoint as listed. */
export interface OverlayCheckpointInfo {
  readonly id: string;
  readonly label: string | undefined;
  /** Files in the upper when it was taken. */
  readonly files: number;
  readonly createdAtMs: number;
}

/** A frozen state of the upper: references to nodes, never copies of their bytes. */
export interface OverlaySnapshot {
  readonly nodes: ReadonlyMap<string, OverlayNode>;
  readonly origins: ReadonlyMap<string, OverlayOrigin>;
  readonly sources: ReadonlyMap<string, OverlaySource>;
}

interface Checkpoint extends OverlaySnapshot {
  readonly info: OverlayCheckpointInfo;
}

/** A file being staged by a write: hidden from every listing until it is published. */
export interface OverlayStaged {
  readonly path: string;
  /** The upper's epoch when staging began; a restore in between refuses its publication. */
  readonly epoch: number;
  readonly chunks: Uint8Array[];
  length: number;
}

/**
 * The upper layer of an overlay, in memory. Several overlay providers may share one (they then share its
 * checkpoints, its write gate and their publication lock). The mutating methods that take a path
 * (`writeFile`, `mkdir`, `remove`, `move`, `setMtime`) change it as another writer would, for seeding and for
 * test probes; writes through the overlay never need them.
 */
export class OverlayUpper {
  #nodes = new Map<string, OverlayNode>();
  #origins = new Map<string, OverlayOrigin>();
  #sources = new Map<string, OverlaySource>();
  // Derived from #nodes: the names in each directory, and how many nodes carry each name (an alias of a
  // folder can only lead into the upper under a name the upper holds).
  #children = new Map<string, Set<string>>();
  #names = new Map<string, number>();
  readonly #staged = new Map<string, OverlayStaged>();
  readonly #checkpoints = new Map<string, Checkpoint>();
  #serial = 0;
  #revision = 0;
  #epoch = 0;
  #nextCheckpoint = 1;
  /** Writes share it; restore, discard and commit take it alone. */
  readonly gate: Gate = new Gate();

  /** Moves on with every restore and discard: every version observed before it is stale after it. */
  /** Moves on with every change of a node: a deletion or a move that read the upper can tell it still holds. */
  get revision(): number {
    return this.#revision;
  }

  get epoch(): number {
    return this.#epoch;
  }

  get(path: string): OverlayNode | undefined {
    return this.#nodes.get(path);
  }

  /** Names of the entries the upper shows in `dir` (unsorted; whiteouts are not entries). */
  children(dir: string): string[] {
    const names: string[] = [];
    for (const name of this.#children.get(dir) ?? []) if (this.#nodes.get(joinPath(dir, name))?.type !== "whiteout") names.push(name);
    return names;
  }

  /**
   * What lies above `path` in the upper: a file (so `path` goes through a regular file), a deletion or a
   * folder made over one (so the base beneath is hidden), or neither.
   */
  above(path: string): "file" | "hidden" | undefined {
    if (this.#nodes.size === 0 || path === "/") return undefined;
    for (let dir = parentPath(path); ; dir = parentPath(dir)) {
      const node = this.#nodes.get(dir);
      if (node?.type === "file") return "file";
      if (node?.type === "whiteout" || (node?.type === "directory" && node.opaque)) return "hidden";
      if (dir === "/") return undefined;
    }
  }

  /** Whether anything of the base is hidden: a whiteout, or a folder made over one. */
  hidesAny(): boolean {
    for (const node of this.#nodes.values()) if (node.type === "whiteout" || (node.type === "directory" && node.opaque)) return true;
    return false;
  }

  /** True when the merged view hides the base's entry at `path` (deleted, or beneath a deletion). */
  hides(path: string): boolean {
    const node = this.#nodes.get(path);
    if (node) return node.type === "whiteout";
    return this.above(path) === "hidden";
  }

  /** Whether some node of the upper has this name. */
  holdsName(name: string): boolean {
    return this.#names.has(name);
  }

  /** True when a file of the upper lies on the way to `path` (so `path` goes through a regular file). */
  fileAbove(path: string): boolean {
    return this.above(path) === "file";
  }

  /** The files of the upper, by canonical path in code-unit order. */
  files(): [string, OverlayFileNode][] {
    return filesOf(this.#nodes);
  }

  /** The deletions (whiteouts), by canonical path in code-unit order, nested ones included. */
  whiteouts(): string[] {
    const out: string[] = [];
    for (const [path, node] of this.#nodes) if (node.type === "whiteout") out.push(path);
    return out.sort(byCodeUnit);
  }

  origin(path: string): OverlayOrigin | undefined {
    return this.#origins.get(path);
  }

  source(path: string): OverlaySource | undefined {
    return this.#sources.get(path);
  }

  /** The current state, for a comparison or a checkpoint (a copy of the maps, not of the bytes). */
  snapshot(): OverlaySnapshot {
    return { nodes: new Map(this.#nodes), origins: new Map(this.#origins), sources: new Map(this.#sources) };
  }

  // Seeding and probing.

  /** Puts a file in the upper as another writer would: a new node with a copy of `bytes`. */
  writeFile(path: string, bytes: Uint8Array, mtimeMs?: number): OverlayFileNode {
    this.#refuseFileAbove(path);
    const existing = this.#nodes.get(path);
    if (existing?.type === "directory") throw new FsError("FS_NOT_REGULAR_FILE", "it is a directory", { details: { path } });
    const node: OverlayFileNode = { type: "file", bytes: bytes.slice(), mtimeMs: mtimeMs ?? Date.now(), serial: ++this.#serial };
    this.#set(path, node);
    return node;
  }

  /** Creates a directory of the upper and every missing ancestor. */
  mkdir(path: string): void {
    this.#refuseFileAbove(path);
    const chain: string[] = [];
    for (let dir = path; dir !== "/" && !this.#nodes.has(dir); dir = parentPath(dir)) chain.push(dir);
    for (const dir of chain.reverse()) this.#set(dir, { type: "directory", mtimeMs: Date.now(), serial: ++this.#serial });
    const node = this.#nodes.get(path);
    if (path !== "/" && node?.type !== "directory") throw new FsError("FS_NOT_DIRECTORY", "it is not a directory", { details: { path } });
  }

  /** Removes a node and everything beneath it, with their origins; false when nothing was there. */
  remove(path: string): boolean {
    const doomed = [...this.#nodes.keys()].filter((p) => isWithin(path, p));
    for (const p of doomed) {
      this.#delete(p);
      this.#origins.delete(p);
      this.#sources.delete(p);
    }
    return doomed.length > 0;
  }

  // Deletions and moves (the overlay's directory handles).

  /**
   * Deletes the base's entry at `path` in the merged view: a whiteout replaces whatever node was there, with
   * `origin` as what the base held (unless an earlier change recorded it). Nodes beneath stay, as records.
   */
  whiteout(path: string, origin: OverlayOrigin): void {
    this.#set(path, { type: "whiteout", mtimeMs: Date.now(), serial: ++this.#serial });
    if (!this.#origins.has(path)) this.#origins.set(path, origin);
    this.#sources.delete(path);
  }

  /** Makes a directory where the merged view has nothing: over a whiteout it is opaque and keeps the origin. */
  makeDirectory(path: string, origin: OverlayOrigin): void {
    const had = this.#nodes.get(path);
    if (had?.type === "whiteout") {
      this.#set(path, { type: "directory", mtimeMs: Date.now(), serial: ++this.#serial, opaque: true });
      return;
    }
    this.mkdir(path);
    if (!this.#origins.has(path)) this.#origins.set(path, origin);
  }

  /**
   * Puts a moved file at `path`: a new node with `bytes` (shared, never changed), the origin recorded as for a
   * first publication, and the base file it came from, if any.
   */
  place(path: string, bytes: Uint8Array, mtimeMs: number, origin: OverlayOrigin, source: OverlaySource | undefined): void {
    this.mkdir(parentPath(path));
    this.#set(path, { type: "file", bytes, mtimeMs, serial: ++this.#serial });
    if (!this.#origins.has(path)) this.#origins.set(path, origin);
    if (source) this.#sources.set(path, source);
    else this.#sources.delete(path);
  }

  /** Moves a node and everything beneath it (with their origins) to `to`, replacing what was there. */
  move(from: string, to: string): void {
    const moved = [...this.#nodes.entries()].filter(([p]) => isWithin(from, p));
    if (moved.length === 0) return;
    this.remove(to);
    this.mkdir(parentPath(to));
    for (const [p, node] of moved) {
      const origin = this.#origins.get(p);
      this.#delete(p);
      this.#origins.delete(p);
      const dest = to + p.slice(from.length);
      this.#set(dest, node);
      if (origin) this.#origins.set(dest, origin);
    }
  }

  /** Gives a file new metadata, as a touch would: a new node with the same bytes. */
  setMtime(path: string, mtimeMs: number): void {
    const node = this.#nodes.get(path);
    if (!node) throw new FsError("FS_NOT_FOUND", "no such file or directory", { details: { path } });
    this.#set(path, { ...node, mtimeMs, serial: ++this.#serial });
  }

  // Publication (the overlay's directory handles).

  stage(path: string): OverlayStaged | undefined {
    if (this.#staged.has(path)) return undefined;
    const staged: OverlayStaged = { path, epoch: this.#epoch, chunks: [], length: 0 };
    this.#staged.set(path, staged);
    return staged;
  }

  staged(path: string): OverlayStaged | undefined {
    return this.#staged.get(path);
  }

  unstage(path: string): boolean {
    return this.#staged.delete(path);
  }

  /**
   * Publishes staged bytes at `path` as a new node. `origin` is recorded only for the first publication at
   * a path; later ones keep what the base held when the overlay began to change it.
   */
  publish(path: string, staged: OverlayStaged, origin: () => OverlayOrigin): OverlayFileNode {
    if (staged.epoch !== this.#epoch) {
      throw new FsError("FS_STALE_VERSION", "the overlay was restored while this write was in flight; read the file again");
    }
    const bytes = new Uint8Array(staged.length);
    let offset = 0;
    for (const chunk of staged.chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    this.mkdir(parentPath(path));
    const had = this.#nodes.get(path);
    const node: OverlayFileNode = { type: "file", bytes, mtimeMs: Date.now(), serial: ++this.#serial };
    this.#set(path, node);
    // A file written over a whiteout keeps what the base held there: it is a modification of that.
    if (!had && !this.#origins.has(path)) this.#origins.set(path, origin());
    return node;
  }

  /**
   * Drops a published file, or a deletion (with the records beneath it), so that reads fall through to the
   * base again (after it was committed).
   */
  release(path: string): void {
    const node = this.#nodes.get(path);
    if (!node) return;
    if (node.type === "directory") {
      // A folder the commit made in the base: it now mirrors the base's.
      if (!this.#origins.has(path)) return;
      this.#set(path, { type: "directory", mtimeMs: node.mtimeMs, serial: ++this.#serial });
      this.#origins.delete(path);
      return;
    }
    if (node.type === "whiteout") this.remove(path);
    else {
      this.#delete(path);
      this.#origins.delete(path);
      this.#sources.delete(path);
    }
    // Directories left empty were only there to hold it (or mirror a base one).
    for (let dir = parentPath(path); dir !== "/" && this.#prunable(dir); dir = parentPath(dir)) {
      this.#delete(dir);
      this.#origins.delete(dir);
    }
  }

  #prunable(dir: string): boolean {
    const node = this.#nodes.get(dir);
    return node?.type === "directory" && !node.opaque && this.#children.get(dir)?.size === 0;
  }

  /**
   * After a commit moved a file in the base: the old name's deletion is done, and the new name now stands
   * over `origin` (the moved file's version in the base), a modification of it if the bytes differ.
   */
  settle(path: string, origin: OverlayOrigin): void {
    const source = this.#sources.get(path);
    this.#sources.delete(path);
    this.#origins.set(path, origin);
    if (source && this.#nodes.get(source.key)?.type === "whiteout") this.release(source.key);
  }

  // Checkpoints.

  checkpoint(label: string | undefined): OverlayCheckpointInfo {
    const id = `cp-${this.#nextCheckpoint++}`;
    const snapshot = this.snapshot();
    const info: OverlayCheckpointInfo = { id, label, files: countFiles(snapshot.nodes), createdAtMs: Date.now() };
    this.#checkpoints.set(id, { ...snapshot, info });
    return info;
  }

  checkpoints(): OverlayCheckpointInfo[] {
    return [...this.#checkpoints.values()].map((c) => c.info);
  }

  checkpointState(id: string): OverlaySnapshot {
    const found = this.#checkpoints.get(id);
    if (!found) {
      const known = [...this.#checkpoints.keys()];
      throw new OverlayError(
        "OVERLAY_UNKNOWN_CHECKPOINT",
        `There is no checkpoint "${id}"${known.length > 0 ? `; the checkpoints are ${known.join(", ")}` : "; none was taken"}`,
        { details: { id } },
      );
    }
    return found;
  }

  /** Puts the upper back as it was at the checkpoint, and moves the epoch on. */
  restore(id: string): void {
    this.#reset(this.checkpointState(id));
  }

  /** Empties the upper (checkpoints are kept), and moves the epoch on. */
  clear(): void {
    this.#reset({ nodes: new Map(), origins: new Map(), sources: new Map() });
  }

  #reset(state: OverlaySnapshot): void {
    this.#revision++;
    this.#nodes = new Map(state.nodes);
    this.#origins = new Map(state.origins);
    this.#sources = new Map(state.sources);
    this.#children = new Map();
    this.#names = new Map();
    for (const path of this.#nodes.keys()) this.#index(path);
    this.#epoch++;
  }

  #refuseFileAbove(path: string): void {
    if (this.fileAbove(path)) throw new FsError("FS_NOT_FOUND", "a parent segment is not a directory", { details: { path } });
  }

  #set(path: string, node: OverlayNode): void {
    this.#revision++;
    if (!this.#nodes.has(path)) {
      const parent = parentPath(path);
      if (parent !== "/" && !this.#nodes.has(parent)) this.mkdir(parent);
      this.#index(path);
    }
    this.#nodes.set(path, node);
  }

  #index(path: string): void {
    if (path === "/") return;
    const dir = parentPath(path);
    const name = baseName(path);
    let names = this.#children.get(dir);
    if (!names) this.#children.set(dir, (names = new Set()));
    names.add(name);
    this.#names.set(name, (this.#names.get(name) ?? 0) + 1);
  }

  #delete(path: string): void {
    if (!this.#nodes.delete(path)) return;
    this.#revision++;
    const name = baseName(path);
    this.#children.get(parentPath(path))?.delete(name);
    this.#children.delete(path);
    const count = (this.#names.get(name) ?? 1) - 1;
    if (count > 0) this.#names.set(name, count);
    else this.#names.delete(name);
  }
}

/** A fresh, empty upper layer, to share between overlay providers or to keep for inspection. */
export function createOverlayUpper(): OverlayUpper {
  return new OverlayUpper();
}

export function filesOf(nodes: ReadonlyMap<string, OverlayNode>): [string, OverlayFileNode][] {
  const out: [string, OverlayFileNode][] = [];
  for (const [path, node] of nodes) if (node.type === "file") out.push([path, node]);
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function countFiles(nodes: ReadonlyMap<string, OverlayNode>): number {
  let n = 0;
  for (const node of nodes.values()) if (node.type === "file") n++;
  return n;
}
