/** An over-cap page chosen across top-level entries. */
export interface EntrySample {
  /** The chosen paths, grouped by entry (entries in order of first appearance, input order within each). */
  readonly paths: readonly string[];
  /** Entries that got at least one slot. */
  readonly entriesShown: number;
  /** Entries in the whole input. */
  readonly entriesTotal: number;
}

/** The top-level entry a root-relative path belongs to: its first segment (a top-level file is its own). */
export function topLevelEntry(path: string): string {
  let start = 0;
  while (path.charCodeAt(start) === 47) start++;
  const slash = path.indexOf("/", start);
  return slash === -1 ? path.slice(start) : path.slice(start, slash);
}

/**
 * Fills a page of `cap` paths round-robin across top-level entries: every entry gets one slot before any gets
 * a second, exhausted entries drop out, and order within an entry is kept. The paths are a listing: each
 * appears once. Linear in the input, whatever its shape.
 */
export function sampleAcrossEntries(paths: readonly string[], cap: number): EntrySample {
  const sampler = new EntrySampler(cap);
  for (const path of paths) sampler.add(path);
  const { paths: chosen, entriesShown, entriesTotal } = sampler.sample();
  return { paths: chosen, entriesShown, entriesTotal };
}

/** What {@link EntrySampler} has seen, and the page it chose. */
export interface StreamedSample extends EntrySample {
  /** False when more top-level directories appeared than the sampler keeps names for: `entriesTotal` is then a lower bound. */
  readonly entriesExact: boolean;
  /** True when every entry holds exactly one path (known only when `entriesExact`): the sample is the head. */
  readonly flat: boolean;
}

// Names of top-level directories kept to tell a new entry from a seen one: enough for any real tree, and a bound
// on memory for a pathological one (a root holding millions of directories). Top-level files need no name: a
// listing names each file once, so every one is a new entry.
const MAX_ENTRY_NAMES = 1 << 18;
const MAX_ENTRY_NAME_CHARS = 1 << 22;

/**
 * The top-level directories seen: an open-addressing table hashed straight from the path's characters, each
 * slot four integers in one typed array (hash, entry id + 1, and the name's first eight characters packed one
 * byte each when it has no more and all are below U+0100). A lookup of such a name touches one slot (one cache
 * line) and nothing else; a longer one compares the kept name as well. Nothing is allocated unless the name is
 * new. A Map keyed by sliced names costs an allocation and several scattered reads per path, which is what made
 * 125,000 entries slow once the map outgrew the caches.
 */
export class EntryTable {
  #table = new Int32Array(4 * 1024);
  #mask = 1023;
  size = 0;
  chars = 0;

  /**
   * The id of the name `path[start, end)`, or -1. `hash` is its hash; `low` and `high` its packed
   * characters, or both -1 when it cannot be packed, and then `names` (by id) has it.
   */
  find(path: string, start: number, end: number, hash: number, low: number, high: number, names: ReadonlyMap<number, string>): number {
    const table = this.#table;
    const mask = this.#mask;
    const packed = low !== -1 || high !== -1;
    for (let slot = (hash ^ (hash >>> 15)) & mask; ; slot = (slot + 1) & mask) {
      const at = 4 * slot;
      const id = (table[at + 1] as number) - 1;
      if (id < 0) return -1;
      if (table[at] !== hash) continue;
      if (table[at + 2] !== low || table[at + 3] !== high) continue;
      if (packed) return id;
      // Both too long to pack: compare the names.
      const name = names.get(id) as string;
      if (name.length === end - start && path.startsWith(name, start)) return id;
    }
  }

  /** Adds a name known to be absent. */
  add(length: number, hash: number, low: number, high: number, id: number): void {
    this.size++;
    this.chars += length;
    if (2 * this.size > this.#mask + 1) this.#grow();
    place(this.#table, this.#mask, hash, id + 1, low, high);
  }

  #grow(): void {
    const old = this.#table;
    const table = new Int32Array(old.length * 2);
    const mask = table.length / 4 - 1;
    for (let at = 0; at < old.length; at += 4) {
      const id = old[at + 1] as number;
      if (id !== 0) place(table, mask, old[at] as number, id, old[at + 2] as number, old[at + 3] as number);
    }
    this.#table = table;
    this.#mask = mask;
  }
}

function place(table: Int32Array, mask: number, hash: number, id: number, low: number, high: number): void {
  let slot = (hash ^ (hash >>> 15)) & mask;
  while (table[4 * slot + 1] !== 0) slot = (slot + 1) & mask;
  table[4 * slot] = hash;
  table[4 * slot + 1] = id;
  table[4 * slot + 2] = low;
  table[4 * slot + 3] = high;
}

/**
 * {@link sampleAcrossEntries} one path at a time, holding O(cap) paths whatever the input size: the page can
 * only use an entry's first few paths, so each entry keeps no more than the current "water level" (the
 * number of rounds the page would take if the input ended now), which only falls as paths arrive. Per path
 * it does a constant amount of work: a comparison with the previous path or one table lookup, and a few
 * counter updates.
 */
export class EntrySampler {
  readonly #cap: number;
  #total = 0;
  // The head of the input, for a result within the cap or a flat one.
  readonly #head: string[] = [];
  // Top-level directories by name; files are never looked up. The names too long to pack, by entry id, read
  // only to compare such a name.
  readonly #table = new EntryTable();
  readonly #names = new Map<number, string>();
  #namesFull = false;
  #entries = 0;
  #repeated = false;
  // For the first `cap` entries only (later ones never get a slot): how many paths each has (up to cap), and
  // the first of them.
  readonly #counts: number[] = [];
  readonly #kept: string[][] = [];
  // atLeast[k]: entries among the first `cap` with at least k paths, for 1 <= k <= cap.
  readonly #atLeast: number[];
  // The water level L (the fewest rounds that fill the page with the counts so far), and the slots rounds
  // 1..L-1 would fill: sum over entries of min(count, L - 1).
  #level: number;
  #below = 0;
  // The level the kept lists were last cut to; they are cut again once the level halves, so cutting costs
  // O(cap) per halving and every list stays within twice the level.
  #trimmedAt: number;
  // The last path taken in, the end of its entry's name (-1 when it cannot be recognised by prefix), and its
  // entry: neighbouring paths usually share one (one directory's files have close mtimes), which a
  // comparison with that path, still in cache, tells without a lookup.
  #lastPath = "";
  #lastEnd = -1;
  #lastId = -1;

  constructor(cap: number) {
    if (!Number.isSafeInteger(cap) || cap <= 0) throw new RangeError(`cap must be a positive integer, got ${String(cap)}`);
    this.#cap = cap;
    this.#atLeast = new Array<number>(cap + 2).fill(0);
    this.#level = cap;
    this.#trimmedAt = cap;
  }

  /** Paths added so far. */
  get total(): number {
    return this.#total;
  }

  /** Paths held now (the head and the entries' kept paths), for checking that memory stays bounded. */
  get held(): number {
    let held = this.#head.length;
    for (const kept of this.#kept) held += kept.length;
    return held;
  }

  /** The first `cap` paths, in input order. */
  get head(): readonly string[] {
    return this.#head;
  }

  add(path: string): void {
    this.#total++;
    if (this.#head.length < this.#cap) this.#head.push(path);
    const lastEnd = this.#lastEnd;
    let id: number;
    if (lastEnd > 0 && path.charCodeAt(lastEnd) === 47 && samePrefix(path, this.#lastPath, lastEnd)) {
      id = this.#lastId;
      this.#repeated = true;
    } else {
      let start = 0;
      while (path.charCodeAt(start) === 47) start++;
      // FNV-1a over the first segment, and its characters packed while they fit, in one pass.
      let hash = -2128831035;
      let low = 0;
      let high = 0;
      let end = start;
      for (let c = path.charCodeAt(end); c === c && c !== 47; c = path.charCodeAt(++end)) {
        hash = Math.imul(hash ^ c, 16777619);
        const k = end - start;
        if (c > 0xff || k >= 8) low = high = -1;
        else if (low !== -1 || high !== -1) {
          if (k < 4) low |= c << (8 * k);
          else high |= c << (8 * (k - 4));
        }
      }
      this.#lastEnd = -1;
      if (end === path.length) {
        id = this.#newEntry();
      } else {
        const table = this.#table;
        id = table.find(path, start, end, hash, low, high, this.#names);
        if (id >= 0) {
          this.#repeated = true;
        } else if (!this.#namesFull && table.size < MAX_ENTRY_NAMES && table.chars + (end - start) <= MAX_ENTRY_NAME_CHARS) {
          id = this.#newEntry();
          table.add(end - start, hash, low, high, id);
          // Only a name that cannot be packed is kept as a string.
          if (low === -1 && high === -1) this.#names.set(id, path.slice(start, end));
        } else {
          // Past the name budget a directory cannot be told new or seen. Such an entry comes after more than
          // `cap` others, so it gets no slot either way; only the entry count becomes a lower bound.
          this.#namesFull = true;
        }
        // Only a path without leading slashes can be recognised by its prefix.
        if (start === 0 && id >= 0) {
          this.#lastPath = path;
          this.#lastEnd = end;
          this.#lastId = id;
        }
      }
    }
    if (id >= 0 && id < this.#cap) this.#count(id, path);
  }

  /** The page for what was added: the head when within the cap, else the round-robin sample. */
  sample(): StreamedSample {
    const entriesTotal = this.#entries;
    const exact = !this.#namesFull;
    const flat = exact && !this.#repeated;
    const counts = this.#counts;
    const n = counts.length;
    // Slots per entry, one round at a time over the entries that still have paths left.
    const taken = new Int32Array(n);
    let active = Array.from(counts.keys());
    let remaining = Math.min(this.#cap, this.#total);
    for (let round = 1; remaining > 0 && active.length > 0; round++) {
      const next: number[] = [];
      for (const id of active) {
        if (remaining === 0) break;
        taken[id] = round;
        remaining--;
        if ((counts[id] as number) > round) next.push(id);
      }
      active = next;
    }
    const paths: string[] = [];
    let shown = 0;
    for (let id = 0; id < n; id++) {
      const k = taken[id] as number;
      if (k === 0) continue;
      shown++;
      const kept = this.#kept[id] as string[];
      for (let i = 0; i < k; i++) paths.push(kept[i] as string);
    }
    return { paths, entriesShown: shown, entriesTotal, entriesExact: exact, flat };
  }

  #newEntry(): number {
    const id = this.#entries++;
    if (id < this.#cap) {
      this.#counts.push(0);
      this.#kept.push([]);
    }
    return id;
  }

  #count(id: number, path: string): void {
    const count = (this.#counts[id] as number) + 1;
    if (count > this.#cap) return;
    this.#counts[id] = count;
    const atLeast = this.#atLeast;
    atLeast[count] = (atLeast[count] as number) + 1;
    if (count < this.#level) this.#below++;
    // Rounds 1..L-1 now fill the page: the page ends in an earlier round.
    while (this.#level > 1 && this.#below >= this.#cap) {
      this.#level--;
      this.#below -= atLeast[this.#level] as number;
    }
    const kept = this.#kept[id] as string[];
    if (kept.length < this.#level) kept.push(path);
    if (this.#level * 2 <= this.#trimmedAt) {
      this.#trimmedAt = this.#level;
      for (const list of this.#kept) if (list.length > this.#level) list.length = this.#level;
    }
  }
}

function samePrefix(a: string, b: string, length: number): boolean {
  for (let i = 0; i < length; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}
