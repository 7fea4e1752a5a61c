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
  const trimmed = path.replace(/^\/+/, "");
  const slash = trimmed.indexOf("/");
  return slash === -1 ? trimmed : trimmed.slice(0, slash);
}

/**
 * Fills a page of `cap` paths round-robin across top-level entries: every entry gets one slot before any gets
 * a second, exhausted entries drop out, and order within an entry is kept. Linear in the input, whatever the
 * shape (a million paths in 125,000 entries, or thousands of singletons beside one huge entry).
 */
export function sampleAcrossEntries(paths: readonly string[], cap: number): EntrySample {
  const order: string[] = [];
  const members = new Map<string, number[]>();
  for (let i = 0; i < paths.length; i++) {
    const entry = topLevelEntry(paths[i] as string);
    let list = members.get(entry);
    if (!list) {
      members.set(entry, (list = []));
      order.push(entry);
    }
    list.push(i);
  }
  const taken = new Map<string, number>();
  let active = order;
  let remaining = Math.min(cap, paths.length);
  for (let round = 0; remaining > 0; round++) {
    const next: string[] = [];
    for (const entry of active) {
      if (remaining === 0) break;
      const list = members.get(entry) as number[];
      taken.set(entry, round + 1);
      remaining--;
      if (list.length > round + 1) next.push(entry);
    }
    active = next;
  }
  const chosen: string[] = [];
  for (const entry of order) {
    const count = taken.get(entry);
    if (count === undefined) continue;
    for (const index of (members.get(entry) as number[]).slice(0, count)) chosen.push(paths[index] as string);
  }
  return { paths: chosen, entriesShown: taken.size, entriesTotal: order.length };
}
