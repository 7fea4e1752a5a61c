// State that every provider of one storage shares within a process: the per-destination publication queue,
// the publication counters in version tokens, and when each directory was last swept. It hangs off
// globalThis under a registered symbol, so two copies of this library loaded into one process (two bundles,
// two versions) share it too; the `v1` in the key names its shape.

/** Per-storage state shared by all providers in this process. */
export interface StorageState {
  /** Tails of the per-destination publication queue (a KeyedLock's map). */
  readonly tails: Map<string, Promise<void>>;
  /** Publications per canonical key, made by any provider of this storage in this process. */
  readonly generations: Map<string, number>;
  /** When each directory (by canonical path) was last swept for dead writers' files, oldest first. */
  readonly swept: Map<string, number>;
}

const REGISTRY = Symbol.for("toolfs.storage-state.v1");
const LOCAL_DISK = Symbol.for("toolfs.local-disk.v1");

type Registry = WeakMap<object, StorageState>;

/** The state shared by every provider whose driver names `storage`. */
export function storageState(storage: object): StorageState {
  const global = globalThis as { [REGISTRY]?: Registry };
  const registry = (global[REGISTRY] ??= new WeakMap());
  let state = registry.get(storage);
  if (!state) {
    state = { tails: new Map(), generations: new Map(), swept: new Map() };
    registry.set(storage, state);
  }
  return state;
}

/** The storage identity of this process's local disk, for disk drivers' `storage`. */
export function localDiskStorage(): object {
  const global = globalThis as { [LOCAL_DISK]?: object };
  return (global[LOCAL_DISK] ??= Object.freeze({ name: "local disk" }));
}
