// EntrySampler held to the contract of notes 0006 and 0012 on random listings: the page, entry order and
// counts, through batches of later entries' names, names that share a hash, and past the name budget.
import { describe, expect, test } from "vitest";
import { EntrySampler, type EntrySamplerLimits } from "./sample.ts";

// The contract as plainly as it can be written. Entries in order of first appearance: a top-level file is
// always a new entry (a listing names each file once); a directory is known by its name while the name
// budget lasts, and from the first new name it has no room for, no new directory is counted (their paths
// still count as paths). Then one slot per entry per round until the page or the entries run out.
function reference(paths: readonly string[], cap: number, limits: EntrySamplerLimits = {}) {
  const maxNames = limits.maxNames ?? 2 ** 18;
  const maxNameChars = limits.maxNameChars ?? 2 ** 22;
  const ids = new Map<string, number>();
  const entries: string[][] = [];
  let names = 0;
  let chars = 0;
  let full = false;
  for (const path of paths) {
    const rest = path.replace(/^\/+/, "");
    const slash = rest.indexOf("/");
    if (slash === -1) {
      entries.push([path]);
      continue;
    }
    const name = rest.slice(0, slash);
    let id = ids.get(name);
    if (id === undefined) {
      if (full || names === maxNames || chars + name.length > maxNameChars) {
        full = true;
        continue;
      }
      names++;
      chars += name.length;
      id = entries.length;
      ids.set(name, id);
      entries.push([]);
    }
    (entries[id] as string[]).push(path);
  }
  const taken = entries.map(() => 0);
  let left = Math.min(cap, paths.length);
  for (let round = 1; left > 0; round++) {
    let dealt = false;
    for (let id = 0; id < entries.length && left > 0; id++) {
      if ((entries[id] as string[]).length < round) continue;
      taken[id] = round;
      left--;
      dealt = true;
    }
    if (!dealt) break;
  }
  return {
    paths: entries.flatMap((group, id) => group.slice(0, taken[id])),
    entriesShown: taken.filter((k) => k > 0).length,
    entriesTotal: entries.length,
    entriesExact: !full,
    flat: !full && entries.every((group) => group.length === 1),
  };
}

function run(paths: readonly string[], cap: number, limits?: EntrySamplerLimits) {
  const sampler = new EntrySampler(cap, limits);
  let held = 0;
  for (const path of paths) {
    sampler.add(path);
    held = Math.max(held, sampler.held);
  }
  return { sample: sampler.sample(), head: [...sampler.head], total: sampler.total, held };
}

// The sampler's hash of a name (FNV-1a over UTF-16 units), to craft names that collide in it.
function fnv(name: string): number {
  let hash = -2128831035;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
  return hash;
}

// Two names of more than eight characters (so never packed) whose `key` agrees.
function collision(key: (name: string) => number, prefix: string): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const name = `${prefix}-${i.toString(36)}`;
    const k = key(name);
    const other = seen.get(k);
    if (other !== undefined) return [other, name];
    seen.set(k, name);
  }
}

// Equal 32-bit hashes; and hashes equal but for their low byte, which the later entries' table drops.
const sameHash = collision(fnv, "collide-full");
const sameHighBits = collision((name) => fnv(name) >>> 9, "collide-high");

// A small deterministic generator, so a failure names a seed that reproduces it.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// Names of every kind the sampler tells apart differently: packed (one to eight Latin-1 characters), too long
// to pack, beyond Latin-1, with NUL (never packed, so "a" and "a\0" cannot meet), eight U+00FF (whose packed
// form is all ones), and pairs that collide in the hash.
const NAMES = [
  "a",
  "src",
  "ab",
  "abcdefgh",
  "abcdefghi",
  "node_modules",
  "é",
  "日本",
  "𝒳",
  "b\\c",
  "a\0",
  "\0",
  "a\0\0",
  "\u00ff".repeat(8),
  "x".repeat(40),
  ...sameHash,
  ...sameHighBits,
];

function listing(next: () => number, entries: number, count: number): string[] {
  const paths: string[] = [];
  const seen = new Set<string>();
  const files = next() < 0.5;
  for (let i = 0; i < count; i++) {
    // Skewed toward low entries, so some have many paths and the rest few.
    const e = Math.floor(entries * next() ** 2);
    const name = e < NAMES.length ? (NAMES[e] as string) : `g${e}`;
    // A listing may spell an entry with leading slashes (ripgrep under an absolute path).
    const slash = next() < 0.15 ? "/".repeat(1 + Math.floor(next() * 2)) : "";
    const path = files && e % 7 === 3 ? `${slash}${name}` : `${slash}${name}/f${i}`;
    if (seen.has(path)) continue;
    seen.add(path);
    paths.push(path);
  }
  return paths;
}

describe("EntrySampler against the plain contract", () => {
  test("random listings: few and many entries, batch boundaries, name budgets", () => {
    for (let seed = 1; seed <= 1500; seed++) {
      const next = random(seed);
      const entries = 1 + Math.floor(next() * (next() < 0.2 ? 400 : 60));
      const count = Math.floor(next() * (next() < 0.1 ? 3000 : 300));
      const paths = listing(next, entries, count);
      const cap = 1 + Math.floor(next() * 40);
      const limits: { maxNames?: number; maxNameChars?: number; batch?: number } = {};
      if (next() < 0.7) limits.batch = 1 + Math.floor(next() * 9);
      if (next() < 0.3) limits.maxNames = 1 + Math.floor(next() * (entries + 3));
      if (next() < 0.2) limits.maxNameChars = 1 + Math.floor(next() * 200);
      const { sample, head, total, held } = run(paths, cap, limits);
      const where = `seed ${seed}: ${paths.length} paths, cap ${cap}, ${JSON.stringify(limits)}`;
      expect(sample, where).toEqual(reference(paths, cap, limits));
      expect([head, total], where).toEqual([paths.slice(0, cap), paths.length]);
      // The head and at most four times the cap in kept paths (note 0012); the batch holds no path.
      expect(held, where).toBeLessThanOrEqual(5 * cap);
    }
  });

  test("more later entries than one batch, at the default batch size", () => {
    for (const [entries, count] of [
      [5_000, 20_000],
      [20_000, 20_000],
      [9_000, 40_000],
    ] as const) {
      const paths = Array.from(
        { length: count },
        (_, i) => `${i % 3 === 0 ? "/" : ""}${i % entries < NAMES.length ? NAMES[i % entries] : `d${i % entries}`}/f${i}`,
      );
      expect(run(paths, 100).sample, `${entries} entries`).toEqual(reference(paths, 100));
      // Every entry once: flat, and every name apart from every other.
      const once = Array.from({ length: entries }, (_, i) => `n${i}-${"é".repeat(i % 11)}/f`);
      expect(run(once, 100).sample).toEqual({ ...reference(once, 100), flat: true, entriesTotal: entries });
    }
  });

  test("names that share a hash stay apart, among the first entries and after them", () => {
    expect(fnv(sameHash[0]) === fnv(sameHash[1]) && sameHash[0] !== sameHash[1]).toBe(true);
    for (const cap of [1, 2, 4]) {
      for (const pair of [sameHash, sameHighBits]) {
        // Singletons: merging any two would make the listing look not flat and count one entry fewer.
        const singles = ["first/x", `${pair[0]}/x`, `${pair[1]}/x`, `/${pair[1]}0/x`, `${pair[0]}0/x`];
        expect(run(singles, cap, { batch: 2 }).sample).toEqual({ ...reference(singles, cap), entriesTotal: 5, flat: true });
        const interleaved = [`${pair[0]}/1`, `${pair[1]}/1`, `${pair[1]}/2`, `/${pair[0]}/2`, `${pair[0]}/3`];
        expect(run(interleaved, cap, { batch: 3 }).sample).toEqual({ ...reference(interleaved, cap), entriesTotal: 2 });
      }
    }
  });

  test("NUL and all-ones names are not mistaken for packed ones", () => {
    const paths = ["a/1", "a\0/1", "a\0\0/1", "\0/1", `${"\u00ff".repeat(8)}/1`, `${"\u00ff".repeat(8)}/2`, "a\0/2"];
    for (const cap of [1, 3, 10]) expect(run(paths, cap, { batch: 2 }).sample).toEqual({ ...reference(paths, cap), entriesTotal: 5 });
  });

  test("names longer than the batch keeps characters for", () => {
    // 40,000 characters each: more than one batch's buffer holds, so the batch is looked up early or grows.
    const long = (i: number) => `${String.fromCharCode(0x4e00 + i)}${"n".repeat(40_000)}`;
    const paths = ["top/1", ...Array.from({ length: 12 }, (_, i) => `${long(i % 5)}/f${i}`), "top/2"];
    expect(run(paths, 1).sample).toEqual({ ...reference(paths, 1), entriesTotal: 6 });
  });

  test("past the name budget the first refusal ends the counting, in input order within a batch", () => {
    // "a" is the first entry; in the batch after it, a long name has no room and a short one would: the
    // short one must not be counted, as it came after the refusal.
    const paths = ["a/1", "long-name/1", "c/1", "a/2", "d/1"];
    const limits = { maxNameChars: 5 };
    expect(run(paths, 1, limits).sample).toEqual({ paths: ["a/1"], entriesShown: 1, entriesTotal: 1, entriesExact: false, flat: false });
    expect(run(paths, 1, limits).sample).toEqual(reference(paths, 1, limits));
    // A refusal among the first entries: files still count, later directories do not.
    const early = ["a/1", "b/1", "file", "c/1", "b/2"];
    expect(run(early, 10, { maxNames: 2 }).sample).toEqual({
      paths: ["a/1", "b/1", "b/2", "file"],
      entriesShown: 3,
      entriesTotal: 3,
      entriesExact: false,
      flat: false,
    });
  });
});
