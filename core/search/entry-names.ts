// The name tables behind EntrySampler (sample.ts): how a top-level directory's name is told new or seen,
// path after path, within a fixed memory and without allocating for a name already known. EntryTable holds
// the first `cap` entries' names with their ids; NameSet holds the later ones, for the count alone.

/**
 * Top-level directories with entry ids (EntrySampler keeps the first `cap` entries' here): an open-addressing
 * table hashed straight from the path's characters, each slot four integers in one typed array (hash, entry
 * id + 1, and the name's characters packed one byte each when it has one to eight, all in U+0001..U+00FF). A
 * lookup of such a name touches one slot (one cache line) and nothing else; any other name is compared with
 * the kept one as well. Nothing is allocated unless the name is new.
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

// The home slot of a NameSet key: the key mixed down to 32 bits, then multiplicative hashing (the top bits).
function home(key0: number, key1: number, shift: number): number {
  let h = key0 ^ Math.imul(key1, -1640531535);
  h ^= h >>> 16;
  return Math.imul(h, -2048144789) >>> shift;
}

/**
 * The names of the entries after the first `cap`. Of those only whether a name is new matters (it counts
 * toward the total), never which entry it is, so a slot holds the name itself, in two integers: a name of
 * one to eight characters, all in U+0001..U+00FF, packed one byte each (its first byte is never zero, and the
 * packed bytes tell it from every other such name); any other name, as its hash with the low byte zero (and
 * bit 8 set, so no slot is all zero) and the index of its characters, kept end to end in `#text` and compared
 * when the hashes agree. Eight bytes a slot, at most half of them used: 2 MiB at 125,000 names.
 *
 * Keys come in the layout of EntrySampler's batch: four integers a name (the two slot integers, with 0 for
 * the index of a name that is not packed; its length; and where its characters start in `text`).
 */
export class NameSet {
  #slots = new Int32Array(2 * 1024);
  // 32 minus log2 of the slot count: `home` keeps this many fewer bits.
  #shift = 22;
  size = 0;
  chars = 0;
  #text = new Uint16Array(1024);
  #starts = new Int32Array(256);
  #long = 0;

  /** Makes room for `n` more names. */
  reserve(n: number): void {
    while (4 * (this.size + n) > this.#slots.length) this.#grow();
  }

  /**
   * Adds the first `n` names of `batch`, and answers whether any of them was there already (or came twice).
   * Packed names, nearly all in practice, take an inlined path.
   */
  addAll(batch: Int32Array, n: number, text: Uint16Array): boolean {
    this.reserve(n);
    const slots = this.#slots;
    const shift = this.#shift;
    // Indices into `slots` (two integers a slot) stay int32, so the probe loop does no float arithmetic.
    const mask = slots.length - 1;
    let seen = false;
    for (let at = 0; at < 4 * n; at += 4) {
      const key0 = batch[at] as number;
      if ((key0 & 0xff) === 0) {
        if (!this.add(batch, at, text)) seen = true;
        continue;
      }
      const key1 = batch[at + 1] as number;
      for (let i = home(key0, key1, shift) << 1; ; i = (i + 2) & mask) {
        const s0 = slots[i] as number;
        if (s0 === key0 && slots[i + 1] === key1) {
          seen = true;
          break;
        }
        if (s0 === 0) {
          slots[i] = key0;
          slots[i + 1] = key1;
          this.size++;
          this.chars += batch[at + 2] as number;
          break;
        }
      }
    }
    return seen;
  }

  /** Adds the name at `batch[at]` when it is new (room made by {@link reserve}); answers whether it was. */
  add(batch: Int32Array, at: number, text: Uint16Array): boolean {
    const i = this.#find(batch, at, text);
    if (i >= 0) return false;
    const key0 = batch[at] as number;
    const length = batch[at + 2] as number;
    this.#slots[~i] = key0;
    this.#slots[~i + 1] = (key0 & 0xff) !== 0 ? (batch[at + 1] as number) : this.#keep(text, batch[at + 3] as number, length) + 1;
    this.size++;
    this.chars += length;
    return true;
  }

  /** Whether the name at `batch[at]` is in the set. */
  has(batch: Int32Array, at: number, text: Uint16Array): boolean {
    return this.#find(batch, at, text) >= 0;
  }

  // The index in `#slots` of the name at `batch[at]`, or the complement of the free one it would take.
  #find(batch: Int32Array, at: number, text: Uint16Array): number {
    const key0 = batch[at] as number;
    const key1 = batch[at + 1] as number;
    const packed = (key0 & 0xff) !== 0;
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let i = home(key0, key1, this.#shift) << 1; ; i = (i + 2) & mask) {
      const s0 = slots[i] as number;
      if (s0 === 0) return ~i;
      if (s0 !== key0) continue;
      if (packed ? slots[i + 1] === key1 : this.#equal((slots[i + 1] as number) - 1, text, batch[at + 3] as number, batch[at + 2] as number)) return i;
    }
  }

  #equal(name: number, text: Uint16Array, from: number, length: number): boolean {
    const start = this.#starts[name] as number;
    if ((this.#starts[name + 1] as number) - start !== length) return false;
    const kept = this.#text;
    for (let i = 0; i < length; i++) if (kept[start + i] !== text[from + i]) return false;
    return true;
  }

  // Keeps the characters of a name that is not packed; returns its index.
  #keep(text: Uint16Array, from: number, length: number): number {
    const name = this.#long++;
    if (name + 2 > this.#starts.length) {
      const starts = new Int32Array(this.#starts.length * 2);
      starts.set(this.#starts);
      this.#starts = starts;
    }
    const start = this.#starts[name] as number;
    if (start + length > this.#text.length) {
      const kept = new Uint16Array(Math.max(this.#text.length * 2, start + length));
      kept.set(this.#text.subarray(0, start));
      this.#text = kept;
    }
    this.#text.set(text.subarray(from, from + length), start);
    this.#starts[name + 1] = start + length;
    return name;
  }

  // Doubles the slots. `home` takes the top bits, so a name's new home is twice its old one or next to it, and
  // the rehash writes nearly in order.
  #grow(): void {
    const old = this.#slots;
    const slots = new Int32Array(old.length * 2);
    const mask = slots.length - 1;
    const shift = this.#shift - 1;
    for (let at = 0; at < old.length; at += 2) {
      const key0 = old[at] as number;
      if (key0 === 0) continue;
      const key1 = old[at + 1] as number;
      let i = home(key0, (key0 & 0xff) !== 0 ? key1 : 0, shift) << 1;
      while (slots[i] !== 0) i = (i + 2) & mask;
      slots[i] = key0;
      slots[i + 1] = key1;
    }
    this.#slots = slots;
    this.#shift = shift;
  }
}
