import { describe, expect, test } from "vitest";
import { isUtf8, strictUtf8 } from "./text.ts";

describe("isUtf8", () => {
  test("judges as the fatal decoder does, on random short byte strings biased towards UTF-8 edge cases", () => {
    let seed = 1;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed >> 8;
    };
    for (let q = 0; q < 50_000; q++) {
      const bytes = new Uint8Array(next() % 8);
      for (let i = 0; i < bytes.length; i++) {
        const kind = next() % 4;
        bytes[i] = kind === 0 ? next() % 0x80 : kind === 1 ? 0x80 + (next() % 0x40) : kind === 2 ? 0xc0 + (next() % 0x40) : next() % 0x100;
      }
      expect(isUtf8(bytes), [...bytes].map((b) => b.toString(16)).join(" ")).toBe(strictUtf8(bytes) !== undefined);
    }
  });

  test("overlongs, surrogates, code points past U+10FFFF and cut sequences are invalid", () => {
    for (const bad of [
      [0xc0, 0x80],
      [0xe0, 0x80, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0xf5, 0x80, 0x80, 0x80],
    ]) {
      expect(isUtf8(Uint8Array.from(bad))).toBe(false);
    }
    expect(isUtf8(new TextEncoder().encode("aé€😀"))).toBe(true);
  });
});
