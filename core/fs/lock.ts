/**
 * Serializes async work per key, first come first served. An entry lives only while work for its key is
 * queued or running, so the map does not grow with the number of keys ever seen.
 */
export class KeyedLock {
  readonly #tails: Map<string, Promise<void>>;

  /** `tails` lets several locks share one queue (see core/fs/shared.ts); a private one by default. */
  constructor(tails?: Map<string, Promise<void>>) {
    this.#tails = tails ?? new Map();
  }

  /** Runs `work` after every earlier `run` for the same key has settled. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const tail = new Promise<void>((resolve) => (release = resolve));
    this.#tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
      release();
    }
  }

  /** Number of keys with queued or running work. */
  get size(): number {
    return this.#tails.size;
  }
}
