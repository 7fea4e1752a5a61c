import { describe, expect, test } from "vitest";
import { sampleAcrossEntries, topLevelEntry } from "./sample.ts";

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
