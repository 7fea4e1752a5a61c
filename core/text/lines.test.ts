import { describe, expect, test } from "vitest";
import { countLineFeeds, countLineFeedsByIndexOf, lineFeedCounterKind } from "./lines.ts";
import { readWindow } from "./window.ts";

function random(seed: number): (n: number) => number {
  let a = seed >>> 0 || 1;
  return (n) => {
    a ^= a << 13;
    a ^= a >>> 17;
    a ^= a << 5;
    return (a >>> 0) % n;
  };
}

function randomBytes(next: (n: number) => number, length: number, lineFeedOdds: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = next(lineFeedOdds) === 0 ? 0x0a : next(256);
  return bytes;
}

describe("countLineFeeds", () => {
  test("runs on WebAssembly SIMD on this runtime", () => {
    expect(lineFeedCounterKind()).toBe("simd");
  });

  test("counts what indexOf counts, across 16-byte lanes, page boundaries and every offset", () => {
    const next = random(11);
    for (const length of [0, 1, 15, 16, 17, 31, 65_535, 65_536, 65_537, 200_003]) {
      const bytes = randomBytes(next, length, 20);
      expect(countLineFeeds(bytes), `length ${length}`).toBe(countLineFeedsByIndexOf(bytes));
    }
    const bytes = randomBytes(next, 1000, 3);
    for (let start = 0; start < 40; start++) {
      const view = bytes.subarray(start, 1000 - start);
      expect(countLineFeeds(view)).toBe(countLineFeedsByIndexOf(view));
    }
    expect(countLineFeeds(new Uint8Array(70_000).fill(0x0a))).toBe(70_000);
  });
});

describe("readWindow over any chunking", () => {
  test.for([
    ["fresh chunks", false],
    ["one buffer overwritten for every chunk", true],
  ] as const)("selects the same lines and counts the same total as splitting the whole text: %s", async ([, reuse]) => {
    const next = random(5);
    const alphabet = ["a", "bc", "é", "\r", "", "long line ".repeat(9)];
    for (let trial = 0; trial < 300; trial++) {
      const lines = Array.from({ length: next(60) }, () => alphabet[next(alphabet.length)]);
      const text = lines.join("\n") + (next(2) === 0 ? "\n" : "");
      // A byte-order mark read a byte or two at a time is held back until it is complete.
      const bom = next(4) === 0;
      const bytes = new TextEncoder().encode(bom ? `\uFEFF${text}` : text);
      const chunk = bom && next(2) === 0 ? 1 + next(2) : 1 + next(40);
      const offset = 1 + next(70);
      const limit = 1 + next(20);
      const shared = new Uint8Array(chunk);
      async function* chunks() {
        for (let i = 0; i < bytes.length; i += chunk) {
          const part = bytes.subarray(i, i + chunk);
          if (!reuse) yield part.slice();
          else {
            shared.fill(0xff).set(part);
            yield shared.subarray(0, part.length);
          }
        }
      }
      const all = text === "" ? [] : text.replace(/\n$/, "").split("\n");
      const window = await readWindow(chunks(), { offset, limit, maxLineChars: 2000, maxBytes: 1 << 20 });
      const label = JSON.stringify({ text, bom, chunk, offset, limit });
      expect(window.totalLines, label).toBe(all.length);
      expect(window.bom, label).toBe(bom);
      expect(
        window.lines.map((l) => [l.number, l.text]),
        label,
      ).toEqual(all.slice(offset - 1, offset - 1 + limit).map((l, i) => [offset + i, l.replace(/\r$/, "")]));
    }
  });
});
