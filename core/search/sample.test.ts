import { describe, expect, test } from "vitest";
import { EntryTable } from "./entry-names.ts";
import { EntrySampler, sampleAcrossEntries, topLevelEntry } from "./sample.ts";

describe("sampleAcrossEntries", () => {
  test.for([
    [["v/a", "v/b", "v/c", "v/d", "src/e", "guide/f"], 3, ["v/a", "src/e", "guide/f"], 3, 3],
    [["v/a", "v/b", "v/c", "v/d", "src/e", "guide/f"], 5, ["v/a", "v/b", "v/c", "src/e", "guide/f"], 3, 3],
    [["solo/a", "many/b", "many/c", "many/d"], 3, ["solo/a", "many/b", "many/c"], 2, 2],
    [["a/1", "b/1", "c/1", "d/1"], 2, ["a/1", "b/1"], 2, 4],
    [["a.ts", "b.ts", "c.ts"], 2, ["a.ts", "b.ts"], 2, 3],
    [["x/1", "y/1", "x/2", "x/3", "y/2", "z"], 5, ["x/1", "x/2", "y/1", "y/2", "z"], 3, 3],
  ] as const)("%j with %i slots", ([paths, cap, expected, shown, total]) => {
    const sample = sampleAcrossEntries(paths, cap);
    expect(sample).toEqual({ paths: expected, entriesShown: shown, entriesTotal: total });
  });

  test("the worked scenario: four of eight paths across four of six entries, grouped", () => {
    const byAge = ["archive/a.ts", "archive/b.ts", "archive/c.ts", "docs/guide.md", "src/index.ts", "test/spec.ts", "top.txt", "notes.md"];
    expect(sampleAcrossEntries(byAge, 4)).toEqual({
      paths: ["archive/a.ts", "docs/guide.md", "src/index.ts", "test/spec.ts"],
      entriesShown: 4,
      entriesTotal: 6,
    });
  });

  test("more entries than the engine's argument limit", () => {
    const paths = Array.from({ length: 250_000 }, (_, i) => `e${i % 125_000}/f${i}`);
    const sample = sampleAcrossEntries(paths, 100);
    expect(sample.entriesTotal).toBe(125_000);
    expect(sample.paths).toEqual(Array.from({ length: 100 }, (_, i) => `e${i}/f${i}`));
  });

  test("thousands of singletons beside one huge entry stay cheap and fair", () => {
    const paths = [...Array.from({ length: 100_000 }, (_, i) => `big/${i}`), ...Array.from({ length: 12_500 }, (_, i) => `s${i}`)];
    const sample = sampleAcrossEntries(paths, 12_600);
    expect(sample.entriesShown).toBe(12_501);
    expect(sample.paths.filter((p) => p.startsWith("big/"))).toHaveLength(100);
  });

  test("top-level entries", () => {
    expect([topLevelEntry("a/b/c"), topLevelEntry("file.txt"), topLevelEntry("/abs/x"), topLevelEntry("back\\slash/y")]).toEqual([
      "a",
      "file.txt",
      "abs",
      "back\\slash",
    ]);
  });
});

// The contract written as plainly as possible: group by entry, deal one slot per entry per round.
function reference(paths: readonly string[], cap: number) {
  const groups = new Map<string, string[]>();
  for (const path of paths) {
    const entry = topLevelEntry(path);
    const group = groups.get(entry) ?? [];
    group.push(path);
    groups.set(entry, group);
  }
  const taken = new Map<string, number>();
  let left = Math.min(cap, paths.length);
  for (let round = 1; left > 0; round++) {
    for (const [entry, group] of groups) {
      if (left > 0 && group.length >= round) {
        taken.set(entry, round);
        left--;
      }
    }
  }
  const chosen = [...groups].flatMap(([entry, group]) => group.slice(0, taken.get(entry) ?? 0));
  return { paths: chosen, entriesShown: taken.size, entriesTotal: groups.size };
}

// A small deterministic generator, so a failure names a seed that reproduces it.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe("EntrySampler", () => {
  test("matches the plain contract on random listings of every shape", () => {
    // Entry names short and long (past the eight packed characters), beyond Latin-1, with leading slashes.
    const names = ["a", "src", "node_modules", "ab", "abcdefgh", "abcdefghi", "é", "日本", "x".repeat(40), "b\\c", "𝒳"];
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const entries = 1 + Math.floor(next() * 30);
      const count = Math.floor(next() * 400);
      const seen = new Set<string>();
      const paths: string[] = [];
      for (let i = 0; i < count; i++) {
        const e = Math.floor(next() * entries);
        const name = `${names[e % names.length]}${e >= names.length ? e : ""}`;
        // A listing spells an entry one way: some are absolute (as ripgrep prints under an absolute path).
        const slash = e % 5 === 1 ? "/" : "";
        // Some entries are top-level files: their only path is the name itself.
        const path = e % 7 === 3 ? `${slash}${name}` : `${slash}${name}/f${i}`;
        if (seen.has(path)) continue;
        seen.add(path);
        paths.push(path);
      }
      const cap = 1 + Math.floor(next() * 40);
      const sampler = new EntrySampler(cap);
      for (const path of paths) sampler.add(path);
      const { paths: chosen, entriesShown, entriesTotal, flat } = sampler.sample();
      const expected = reference(paths, cap);
      expect({ paths: chosen, entriesShown, entriesTotal }, `seed ${seed}`).toEqual(expected);
      expect(flat, `seed ${seed}`).toBe(expected.entriesTotal === paths.length);
    }
  });

  test("holds O(cap) paths whatever the input: a million paths in 125,000 entries, and in four", () => {
    for (const entries of [125_000, 4]) {
      const sampler = new EntrySampler(100);
      let peak = 0;
      for (let i = 0; i < 1_000_000; i++) {
        sampler.add(`e${i % entries}/f${i}`);
        if (i % 997 === 0) peak = Math.max(peak, sampler.held);
      }
      peak = Math.max(peak, sampler.held);
      // The head, and at most four times the cap in kept paths.
      expect(peak).toBeLessThanOrEqual(100 + 4 * 100);
      expect(sampler.sample().paths).toEqual(
        reference(
          Array.from({ length: 1_000 }, (_, i) => `e${i % entries}/f${i}`),
          100,
        ).paths,
      );
    }
  });
});

describe("EntrySampler past its name budget", () => {
  test("more top-level directories than it keeps names for: the page stays exact, the entry count a lower bound", () => {
    const sampler = new EntrySampler(100);
    for (let i = 0; i < 270_000; i++) sampler.add(`d${i}/f`);
    sampler.add("d5/g");
    const sample = sampler.sample();
    expect(sample.paths).toEqual(Array.from({ length: 100 }, (_, i) => `d${i}/f`));
    expect([sample.entriesExact, sample.entriesTotal, sample.flat]).toEqual([false, 2 ** 18, false]);
  });
});

describe("EntryTable", () => {
  test("names with equal hashes are told apart by their packed characters or, past eight, by the kept name", () => {
    const table = new EntryTable();
    const names = new Map<number, string>();
    const pack = (name: string) => {
      let low = 0;
      let high = 0;
      if (name.length > 8) return [-1, -1] as const;
      for (let k = 0; k < name.length; k++) {
        if (k < 4) low |= name.charCodeAt(k) << (8 * k);
        else high |= name.charCodeAt(k) << (8 * (k - 4));
      }
      return [low, high] as const;
    };
    // One hash for all of them, as if every pair collided; the table must still keep them apart.
    const all = ["abcdwxyz", "abcdwxyq", "zbcdwxyz", "abcdefghijk", "abcdefghijq", "abcdefghij"];
    for (const name of all) {
      const [low, high] = pack(name);
      const path = `${name}/file`;
      expect(table.find(path, 0, name.length, 42, low, high, names)).toBe(-1);
      const id = table.size;
      if (low === -1) names.set(id, name);
      table.add(name.length, 42, low, high, id);
    }
    for (const [id, name] of all.entries()) {
      const [low, high] = pack(name);
      expect(table.find(`/${name}/x`, 1, name.length + 1, 42, low, high, names)).toBe(id);
    }
  });
});
