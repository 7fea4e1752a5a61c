import { describe, expect, test } from "vitest";
import { random } from "../../../test/patch-cases.ts";
import { FoldedLines, type SeekResult, seekAll, seekFirst } from "./seek.ts";

// The passes written as plainly as possible: every start position, every line, in order.
const folds = [
  (l: string) => l,
  (l: string) => l.trimEnd(),
  (l: string) => l.trim(),
  (l: string) =>
    l
      .replace(/[\u2018\u2019]/g, "'")
      .replace(/[\u201c\u201d]/g, '"')
      .replace(/[\u2013\u2014]/g, "-")
      .trim(),
];
const names = ["exact", "trailing-whitespace", "surrounding-whitespace", "punctuation"];

function reference(lines: string[], pattern: string[], from: number, atEnd: boolean, first: boolean): SeekResult {
  if (pattern.length === 0) return { kind: "found", at: from, pass: "exact" };
  const last = lines.length - pattern.length;
  for (const [p, fold] of folds.entries()) {
    const hits: number[] = [];
    for (let s = atEnd ? last : from; s <= last; s++) if (s >= from && pattern.every((l, k) => fold(lines[s + k] as string) === fold(l))) hits.push(s);
    if (first && hits.length > 1) hits.length = 1;
    const pass = names[p] as "exact";
    if (hits.length === 1) return { kind: "found", at: hits[0] as number, pass };
    if (hits.length > 1) return { kind: "ambiguous", at: hits, pass };
  }
  return { kind: "missing" };
}

describe("seek", () => {
  test("the indexed search agrees with a plain scan on random lines full of near-duplicates", () => {
    const words = ["a", "a ", " a", "b", "\u201cq\u201d", '"q"', "x\u2014y", "x-y", "", "}"];
    for (let seed = 1; seed <= 2000; seed++) {
      const rnd = random(seed);
      const int = (n: number) => Math.floor(rnd() * n);
      const lines = Array.from({ length: int(12) }, () => words[int(words.length)] as string);
      const pattern = Array.from({ length: int(4) }, () => words[int(words.length)] as string);
      const from = int(lines.length + 1);
      const atEnd = rnd() < 0.2;
      const file = new FoldedLines(lines);
      expect({ seed, r: seekAll(file, pattern, from, atEnd) }).toEqual({ seed, r: reference(lines, pattern, from, atEnd, false) });
      expect({ seed, r: seekFirst(file, pattern, from, atEnd) }).toEqual({ seed, r: reference(lines, pattern, from, atEnd, true) });
    }
  });
});
