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
 * a second, exhausted entries drop out, and order within an entry is kept. Linear in the input, whatever the
 * shape (a million paths in 125,000 entries, or thousands of singletons beside one huge entry).
 */
export function sampleAcrossEntries(paths: readonly string[], cap: number): EntrySample {
  // Entry ids in order of first appearance, one per path, and each entry's size.
  const ids = new Map<string, number>();
  const entryOf = new Int32Array(paths.length);
  const sizes: number[] = [];
  let lastEntry = "";
  let lastId = -1;
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i] as string;
    let id: number | undefined;
    // Neighbouring paths usually share their entry (one directory's files have close mtimes): skip the lookup.
    if (lastId >= 0 && path.startsWith(lastEntry) && (path.length === lastEntry.length || path.charCodeAt(lastEntry.length) === 47)) {
      id = lastId;
    } else {
      const entry = topLevelEntry(path);
      id = ids.get(entry);
      if (id === undefined) {
        id = sizes.length;
        ids.set(entry, id);
        sizes.push(0);
      }
      // Only a path without leading slashes can be recognised by its prefix.
      lastEntry = path.charCodeAt(0) === 47 ? "\0" : entry;
      lastId = id;
    }
    entryOf[i] = id;
    sizes[id] = (sizes[id] as number) + 1;
  }
  // Slots per entry, one round at a time over the entries that still have paths left.
  const taken = new Int32Array(sizes.length);
  let active = Array.from(sizes.keys());
  let remaining = Math.min(cap, paths.length);
  for (let round = 1; remaining > 0; round++) {
    const next: number[] = [];
    for (const id of active) {
      if (remaining === 0) break;
      taken[id] = round;
      remaining--;
      if ((sizes[id] as number) > round) next.push(id);
    }
    active = next;
  }
  // Each entry's first `taken` paths, entries in order, input order within each.
  const start = new Int32Array(sizes.length);
  let shown = 0;
  let total = 0;
  for (let id = 0; id < sizes.length; id++) {
    start[id] = total;
    total += taken[id] as number;
    if ((taken[id] as number) > 0) shown++;
  }
  const chosen = new Array<string>(total);
  const filled = new Int32Array(sizes.length);
  for (let i = 0; i < paths.length; i++) {
    const id = entryOf[i] as number;
    if ((filled[id] as number) < (taken[id] as number)) chosen[(start[id] as number) + (filled[id] as number)++] = paths[i] as string;
  }
  return { paths: chosen, entriesShown: shown, entriesTotal: sizes.length };
}
