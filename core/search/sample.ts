// Sampling an over-cap listing across top-level entries, whole (sampleAcrossEntries) or streamed
// (EntrySampler); the tables that tell an entry's name new or seen are in entry-names.ts.
import { EntryTable, NameSet } from "./entry-names.ts";

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
  for (let i = 0; i < paths.length; i++) sampler.add(paths[i] as string);
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
// Names of entries after the first `cap` looked up together (see EntrySampler), and room for the characters of
// those that cannot be packed.
const BATCH = 4096;
const BATCH_CHARS = 1 << 15;

/** Bounds an {@link EntrySampler} works within. The defaults suit any tree; tests shrink them. */
export interface EntrySamplerLimits {
  /** Top-level directory names kept to tell a new entry from a seen one (default 262,144). */
  readonly maxNames?: number;
  /** Characters of those names together (default 4 Mi). */
  readonly maxNameChars?: number;
  /** Names of entries after the first `cap` looked up together (default 4,096). */
  readonly batch?: number;
}

// Entry ids with a meaning of their own: no entry (past the name budget), and an entry past the first `cap`
// whose id is not needed.
const NO_ENTRY = -1;
const LATER_ENTRY = -2;

/**
 * {@link sampleAcrossEntries} one path at a time, holding O(cap) paths whatever the input size: the page can
 * only use an entry's first few paths, so each entry keeps no more than the current "water level" (the
 * number of rounds the page would take if the input ended now), which only falls as paths arrive.
 *
 * Only the first `cap` entries can get a slot, so only they need ids, counts and kept paths, and only their
 * names are looked up path by path, in a table of at most `cap` names that stays in cache. Of a later entry
 * only whether it is new matters (for the entry count and the flat test), and the page never depends on it,
 * so its name is set aside (packed, or its characters copied: no path is held) and a batch of them is looked
 * up at once in a second table of names alone. With 125,000 entries that table outgrows the nearer caches;
 * a loop that does nothing but those lookups lets the processor overlap their cache misses, where one lookup
 * inside each path's own work stalled it. Counts and kept paths are always current; the batch is resolved
 * before `sample()` answers.
 */
export class EntrySampler {
  readonly #cap: number;
  readonly #maxNames: number;
  readonly #maxNameChars: number;
  #total = 0;
  // The head of the input, for a result within the cap or a flat one.
  readonly #head: string[] = [];
  // The first `cap` entries' directory names (files are never looked up), and those that cannot be packed
  // by entry id, read only to compare such a name.
  readonly #table = new EntryTable();
  readonly #names = new Map<number, string>();
  // Later entries' directory names.
  readonly #later = new NameSet();
  #namesFull = false;
  // Entries given an id: the first `cap`, and every top-level file (a new entry whatever comes later).
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
  #lastId = NO_ENTRY;
  // Later entries' names not yet looked up, four integers each (the NameSet key layout: its two slot
  // integers, the length, and where the characters of a name that is not packed start in #batchText), and
  // how many characters they have together (for the name budget).
  readonly #batch: Int32Array;
  #pending = 0;
  #batchText = new Uint16Array(BATCH_CHARS);
  #batchTextUsed = 0;
  #pendingChars = 0;

  constructor(cap: number, limits: EntrySamplerLimits = {}) {
    if (!Number.isSafeInteger(cap) || cap <= 0) throw new RangeError(`cap must be a positive integer, got ${String(cap)}`);
    this.#cap = cap;
    this.#maxNames = limits.maxNames ?? MAX_ENTRY_NAMES;
    this.#maxNameChars = limits.maxNameChars ?? MAX_ENTRY_NAME_CHARS;
    this.#batch = new Int32Array(4 * Math.max(1, limits.batch ?? BATCH));
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
    if (lastEnd > 0 && path.charCodeAt(lastEnd) === 47 && samePrefix(path, this.#lastPath, lastEnd)) {
      this.#repeated = true;
      const id = this.#lastId;
      if (id >= 0 && id < this.#cap) this.#count(id, path);
      return;
    }
    let start = 0;
    while (path.charCodeAt(start) === 47) start++;
    // FNV-1a over the first segment, and its characters packed, in one pass. A name packs when it has one to
    // eight characters, all in U+0001..U+00FF: then the packed bytes tell it from any other such name.
    let hash = -2128831035;
    let low = 0;
    let high = 0;
    let odd = false;
    let end = start;
    // biome-ignore lint/suspicious/noSelfCompare: c !== c is the end of the string (NaN), cheaper here than a length check.
    for (let c = path.charCodeAt(end); c === c && c !== 47; c = path.charCodeAt(++end)) {
      hash = Math.imul(hash ^ c, 16777619);
      const k = end - start;
      if (k < 4) low |= c << (8 * k);
      else if (k < 8) high |= c << (8 * (k - 4));
      if (c === 0 || c > 0xff) odd = true;
    }
    this.#lastEnd = -1;
    if (end === path.length) {
      const id = this.#entries++;
      if (id < this.#cap) this.#count(this.#newEntry(id), path);
      return;
    }
    const length = end - start;
    if (odd || length > 8) low = high = -1;
    const table = this.#table;
    let id = table.find(path, start, end, hash, low, high, this.#names);
    if (id >= 0) {
      this.#repeated = true;
    } else if (this.#namesFull) {
      id = NO_ENTRY;
    } else if (this.#entries < this.#cap) {
      if (table.size < this.#maxNames && table.chars + length <= this.#maxNameChars) {
        id = this.#newEntry(this.#entries++);
        table.add(length, hash, low, high, id);
        // Only a name that cannot be packed is kept as a string.
        if (low === -1 && high === -1) this.#names.set(id, path.slice(start, end));
      } else {
        // Past the name budget a directory cannot be told new or seen; only the entry count becomes a lower
        // bound (an entry found later could get no slot anyway).
        this.#namesFull = true;
      }
    } else {
      id = this.#defer(path, start, length, hash, low, high);
    }
    // Only a path without leading slashes can be recognised by its prefix.
    if (start === 0 && id !== NO_ENTRY) {
      this.#lastPath = path;
      this.#lastEnd = end;
      this.#lastId = id;
    }
    if (id >= 0 && id < this.#cap) this.#count(id, path);
  }

  /** The page for what was added: the head when within the cap, else the round-robin sample. */
  sample(): StreamedSample {
    this.#flush();
    const entriesTotal = this.#entries + this.#later.size;
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

  #newEntry(id: number): number {
    this.#counts.push(0);
    this.#kept.push([]);
    return id;
  }

  // Sets a later entry's name aside for the next batch; answers LATER_ENTRY, or NO_ENTRY once the names are
  // full.
  #defer(path: string, start: number, length: number, hash: number, low: number, high: number): number {
    let at = 4 * this.#pending;
    const batch = this.#batch;
    if (low !== -1 || high !== -1) {
      batch[at] = low;
      batch[at + 1] = high;
    } else {
      if (this.#batchTextUsed + length > this.#batchText.length) {
        this.#flush();
        if (this.#namesFull) return NO_ENTRY;
        // A name longer than the buffer: it grows to hold it (the path itself is that long).
        if (length > this.#batchText.length) this.#batchText = new Uint16Array(length);
        at = 0;
      }
      const text = this.#batchText;
      const from = this.#batchTextUsed;
      for (let i = 0; i < length; i++) text[from + i] = path.charCodeAt(start + i);
      this.#batchTextUsed = from + length;
      batch[at] = (hash | 0x100) & ~0xff;
      batch[at + 1] = 0;
      batch[at + 3] = from;
    }
    batch[at + 2] = length;
    this.#pendingChars += length;
    if (++this.#pending === batch.length / 4) this.#flush();
    return LATER_ENTRY;
  }

  // Looks up the later entries' names set aside. While the whole batch fits the name budget, the order of
  // the lookups cannot change which names are new; a batch that might not fit goes in input order, as the
  // budget's first refusal ends the counting.
  #flush(): void {
    const n = this.#pending;
    const chars = this.#pendingChars;
    this.#pending = 0;
    this.#pendingChars = 0;
    this.#batchTextUsed = 0;
    if (n === 0 || this.#namesFull) return;
    const table = this.#table;
    const later = this.#later;
    const batch = this.#batch;
    const text = this.#batchText;
    if (table.size + later.size + n <= this.#maxNames && table.chars + later.chars + chars <= this.#maxNameChars) {
      if (later.addAll(batch, n, text)) this.#repeated = true;
      return;
    }
    for (let at = 0; at < 4 * n; at += 4) {
      if (later.has(batch, at, text)) {
        this.#repeated = true;
      } else if (table.size + later.size < this.#maxNames && table.chars + later.chars + (batch[at + 2] as number) <= this.#maxNameChars) {
        later.reserve(1);
        later.add(batch, at, text);
      } else {
        this.#namesFull = true;
        return;
      }
    }
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
