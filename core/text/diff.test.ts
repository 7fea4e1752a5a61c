// The diff shown after write and edit: the same texts always give the same diff, whatever the machine's load,
// and the work it may spend is counted, not timed.
import { applyPatch, createTwoFilesPatch } from "diff";
import { afterEach, describe, expect, test, vi } from "vitest";
import { applyEdit } from "./edit.ts";
import { editDiff, unifiedDiff } from "./diff.ts";

const numbered = (count: number, tag = "line") => `${Array.from({ length: count }, (_, i) => `${tag} ${i + 1}`).join("\n")}\n`;

function random(seed: number): (n: number) => number {
  let a = seed >>> 0 || 1;
  return (n) => {
    a ^= a << 13;
    a ^= a >>> 17;
    a ^= a << 5;
    return (a >>> 0) % n;
  };
}

// Lines from a small alphabet, so that texts share many lines in many orders; sometimes no final newline.
function randomText(next: (n: number) => number): string {
  const lines = Array.from({ length: next(12) }, () => ["a", "b", "c", "", "}", "d e"][next(6)]);
  const text = lines.join("\n");
  return next(3) === 0 || text === "" ? text : `${text}\n`;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("unifiedDiff", () => {
  test("does not look at the clock: a slow machine gets the same diff", () => {
    const before = numbered(2000);
    const after = numbered(2000, "changed");
    const quiet = unifiedDiff("a.txt", before, after);
    // Every clock read jumps a minute, as on a machine too loaded to finish anything in time.
    let now = 0;
    vi.spyOn(Date, "now").mockImplementation(() => (now += 60_000));
    vi.spyOn(performance, "now").mockImplementation(() => (now += 60_000));
    const busy = unifiedDiff("a.txt", before, after);
    expect(busy).toEqual(quiet);
    expect(busy.skipped).toBeUndefined();
    expect([busy.added, busy.removed, busy.truncated]).toEqual([2000, 2000, true]);
  });

  test("agrees with the diff package's structuredPatch, and its patches apply", () => {
    const next = random(7);
    let compared = 0;
    for (let i = 0; i < 3000; i++) {
      const before = randomText(next);
      const after = randomText(next);
      const ours = unifiedDiff("f", before, after, { maxBytes: 1 << 20 });
      const theirs = createTwoFilesPatch("f", "f", before, after, undefined, undefined, {
        context: 3,
        headerOptions: { includeIndex: false, includeUnderline: false, includeFileHeaders: true },
      });
      expect(ours.coarse, JSON.stringify([before, after])).toBeUndefined();
      if (before === after) {
        expect(ours.text).toBe("");
        continue;
      }
      expect(applyPatch(before, ours.text), JSON.stringify([before, after, ours.text])).toBe(after);
      // Both are smallest diffs; they may still pick different copies of a repeated line.
      const count = (text: string, sign: string) => text.split("\n").filter((l) => l.startsWith(sign) && !l.startsWith(`${sign}${sign}${sign} `)).length;
      expect([ours.added, ours.removed], JSON.stringify([before, after])).toEqual([count(theirs, "+"), count(theirs, "-")]);
      if (ours.text === theirs) compared++;
    }
    expect(compared).toBeGreaterThan(2000);
  });

  test("past its comparison budget the change is one block, marked coarse, the same every time", () => {
    // Every line on both sides, in reverse order: the matching must try many alignments.
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i}`);
    const before = `head\n${lines.join("\n")}\ntail\n`;
    const after = `head\n${lines.toReversed().join("\n")}\ntail\n`;
    const exact = unifiedDiff("f", before, after, { maxBytes: 1 << 20 });
    expect(exact.coarse).toBeUndefined();
    expect([exact.added, exact.removed]).toEqual([299, 299]);
    const coarse = unifiedDiff("f", before, after, { maxBytes: 1 << 20, maxComparisons: 1000 });
    expect(coarse.coarse).toBe(true);
    // The first and last lines are equal and kept out of the block; everything between is replaced.
    expect([coarse.added, coarse.removed]).toEqual([300, 300]);
    expect(coarse.text.split("\n").slice(0, 5)).toEqual(["--- f", "+++ f", "@@ -1,302 +1,302 @@", " head", "-line 0"]);
    expect(applyPatch(before, coarse.text)).toBe(after);
    expect(unifiedDiff("f", before, after, { maxBytes: 1 << 20, maxComparisons: 1000 })).toEqual(coarse);
  });

  test("lines only one side has cost no comparisons: a rewrite that keeps its braces matches them at once", () => {
    const lines = (tag: string) => `${Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? "}" : `${tag} ${i}`)).join("\n")}\n`;
    const diff = unifiedDiff("f", lines("old"), lines("new"), { maxBytes: 1 << 20, maxComparisons: 1000 });
    expect([diff.added, diff.removed, diff.coarse]).toEqual([2000, 2000, undefined]);
    expect(applyPatch(lines("old"), diff.text)).toBe(lines("new"));
  });

  test("texts that share no changed line are one block at once, exact, whatever the budget", () => {
    const diff = unifiedDiff("f", numbered(2000), numbered(2000, "changed"), { maxComparisons: 0 });
    expect(diff.coarse).toBeUndefined();
    expect([diff.added, diff.removed]).toEqual([2000, 2000]);
  });

  test("a long unchanged start and end cost no comparisons", () => {
    const before = `${numbered(50_000)}middle\n${numbered(50_000, "end")}`;
    const after = `${numbered(50_000)}centre\nmiddle\n${numbered(50_000, "end")}`;
    const diff = unifiedDiff("f", before, after, { maxComparisons: 0 });
    expect([diff.added, diff.removed, diff.coarse]).toEqual([1, 0, undefined]);
    expect(diff.text).toContain("@@ -49998,6 +49998,7 @@\n line 49998\n line 49999\n line 50000\n+centre\n middle\n");
  });

  test("a missing final newline is marked on the side that lacks it", () => {
    const diff = unifiedDiff("f", "a\nb", "a\nb\n");
    expect(diff.text).toBe(["--- f", "+++ f", "@@ -1,2 +1,2 @@", " a", "-b", "\\ No newline at end of file", "+b", ""].join("\n"));
  });
});

describe("editDiff", () => {
  test("the regions of one edit share one budget; past it they are blocks, marked coarse", () => {
    const before = `${Array.from({ length: 40 }, (_, i) => `l${i % 4}`).join("\n")}\n`;
    const result = applyEdit(before, { oldString: "l1\nl2\n", newString: "l2\nl1\nx\n", replaceAll: true, path: "f" });
    const exact = editDiff("f", result);
    expect(exact.coarse).toBeUndefined();
    const coarse = editDiff("f", result, { maxComparisons: 3 });
    expect(coarse.coarse).toBe(true);
    expect(applyPatch(before, coarse.text)).toBe(result.text);
    expect(applyPatch(before, exact.text)).toBe(result.text);
  });
});
