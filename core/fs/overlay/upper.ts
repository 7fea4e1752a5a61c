// The upper layer of an overlay: the files written through it, as immutable nodes keyed by canonical path.
// Every publication makes a new node and never changes an old one, so a checkpoint is a copy of the map of
// references (no bytes are copied), and a reader that opened a node keeps reading the bytes it opened.
import { FsError } from "../errors.ts";
import { baseName, isWithin, parentPath } from "../paths.ts";
import type { FsVersion } from "../types.ts";
import { OverlayError } from "./errors.ts";

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
}

export type OverlayNode = OverlayFileNode | OverlayDirectoryNode;

/**
 * What the base held at a path when the overlay first published there: nothing, or a file at a version (the
 * version that publication's guard judged, so under read-before-write the version the actor had read).
 */
export type OverlayOrigin = { readonly kind: "absent" } | { readonly kind: "file"; readonly version: FsVersion };

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
  // Derived from #nodes: the names in each directory, and how many nodes carry each name (an alias of a
  // folder can only lead into the upper under a name the upper holds).
  #children = new Map<string, Set<string>>();
  #names = new Map<string, number>();
  readonly #staged = new Map<string, OverlayStaged>();
  readonly #checkpoints = new Map<string, Checkpoint>();
  #serial = 0;
  #epoch = 0;
  #nextCheckpoint = 1;
  /** Writes share it; restore, discard and commit take it alone. */
  readonly gate: Gate = new Gate();

  /** Moves on with every restore and discard: every version observed before it is stale after it. */
  get epoch(): number {
    return this.#epoch;
  }

  get(path: string): OverlayNode | undefined {
    return this.#nodes.get(path);
  }

  /** Names of the entries the upper holds in `dir` (unsorted). */
  children(dir: string): string[] {
    return [...(this.#children.get(dir) ?? [])];
  }

  /** Whether some node of the upper has this name. */
  holdsName(name: string): boolean {
    return this.#names.has(name);
  }

  /** True when a file of the upper lies on the way to `path` (so `path` goes through a regular file). */
  fileAbove(path: string): boolean {
    if (this.#nodes.size === 0) return false;
    for (let dir = parentPath(path); ; dir = parentPath(dir)) {
      if (this.#nodes.get(dir)?.type === "file") return true;
      if (dir === "/") return false;
    }
  }

  /** The files of the upper, by canonical path in code-unit order. */
  files(): [string, OverlayFileNode][] {
    return filesOf(this.#nodes);
  }

  origin(path: string): OverlayOrigin | undefined {
    return this.#origins.get(path);
  }

  /** The current state, for a comparison or a checkpoint (a copy of the maps, not of the bytes). */
  snapshot(): OverlaySnapshot {
    return { nodes: new Map(this.#nodes), origins: new Map(this.#origins) };
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
    }
    return doomed.length > 0;
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
    if (!had && !this.#origins.has(path)) this.#origins.set(path, origin());
    return node;
  }

  /** Drops a published file, so that reads fall through to the base again (after it was committed). */
  release(path: string): void {
    if (this.#nodes.get(path)?.type !== "file") return;
    this.#delete(path);
    this.#origins.delete(path);
    // Directories left empty were only there to hold it (or mirror a base one).
    for (let dir = parentPath(path); dir !== "/" && this.#children.get(dir)?.size === 0 && this.#nodes.get(dir)?.type === "directory"; dir = parentPath(dir)) {
      this.#delete(dir);
    }
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
    this.#reset({ nodes: new Map(), origins: new Map() });
  }

  #reset(state: OverlaySnapshot): void {
    this.#nodes = new Map(state.nodes);
    this.#origins = new Map(state.origins);
    this.#children = new Map();
    this.#names = new Map();
    for (const path of this.#nodes.keys()) this.#index(path);
    this.#epoch++;
  }

  #refuseFileAbove(path: string): void {
    if (this.fileAbove(path)) throw new FsError("FS_NOT_FOUND", "a parent segment is not a directory", { details: { path } });
  }

  #set(path: string, node: OverlayNode): void {
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

function countFiles(nodes: ReadonlyMap<string, OverlayNode>): number {
  let n = 0;
  for (const node of nodes.values()) if (node.type === "file") n++;
  return n;
}

/**
 * A readers-writer gate, first come first served: writes through the overlay share it; a restore, a discard
 * or a commit waits for the writes under way and holds back new ones until it is done.
 */
export class Gate {
  #shared = 0;
  #exclusive = false;
  readonly #queue: { readonly exclusive: boolean; readonly enter: () => void }[] = [];

  shared<T>(work: () => Promise<T>): Promise<T> {
    return this.#run(false, work);
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.#run(true, work);
  }

  async #run<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    if (this.#queue.length > 0 || !this.#admits(exclusive)) {
      await new Promise<void>((enter) => this.#queue.push({ exclusive, enter }));
    } else {
      this.#take(exclusive);
    }
    try {
      return await work();
    } finally {
      if (exclusive) this.#exclusive = false;
      else this.#shared--;
      this.#drain();
    }
  }

  #admits(exclusive: boolean): boolean {
    return exclusive ? !this.#exclusive && this.#shared === 0 : !this.#exclusive;
  }

  #take(exclusive: boolean): void {
    if (exclusive) this.#exclusive = true;
    else this.#shared++;
  }

  #drain(): void {
    while (this.#queue.length > 0 && this.#admits((this.#queue[0] as { exclusive: boolean }).exclusive)) {
      const next = this.#queue.shift() as { exclusive: boolean; enter: () => void };
      this.#take(next.exclusive);
      next.enter();
    }
  }
}
