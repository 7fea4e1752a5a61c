import { describe, expect, test } from "vitest";
import { isFsError } from "../fs/errors.ts";
import { readWindow, type WindowOptions } from "./window.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const defaults: WindowOptions = { offset: 1, limit: 2000, maxLineChars: 2000, maxBytes: 51_200 };

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function window(input: string | Uint8Array, options: Partial<WindowOptions> = {}, chunk = 1 << 16) {
  const bytes = typeof input === "string" ? utf8(input) : input;
  return readWindow(chunked(bytes, chunk), { ...defaults, ...options });
}

async function failure(input: string | Uint8Array, options: Partial<WindowOptions> = {}) {
  try {
    await window(input, options);
  } catch (error) {
    if (isFsError(error)) return error;
    throw error;
  }
  throw new Error("expected FS_NOT_TEXT");
}

describe("readWindow", () => {
  test.for([
    ["", [], 0],
    ["\n", [""], 1],
    ["a\n\n", ["a", ""], 2],
    ["a\nb", ["a", "b"], 2],
    ["a\r\nb\r\n", ["a", "b"], 2],
    ["lone\rcr\n", ["lone\rcr"], 1],
    ["ends with cr\r", ["ends with cr"], 1],
  ] as const)("%j", async ([input, lines, total]) => {
    const result = await window(input);
    expect(result.lines.map((l) => l.text)).toEqual(lines);
    expect(result.totalLines).toBe(total);
  });

  test("offset and limit select a window; the total stays exact", async () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n");
    const result = await window(text, { offset: 4, limit: 3 });
    expect(result.lines.map((l) => [l.number, l.text])).toEqual([
      [4, "line 4"],
      [5, "line 5"],
      [6, "line 6"],
    ]);
    expect(result.totalLines).toBe(10);
    expect(result.byteCapped).toBe(false);
  });

  test("long lines are cut to maxLineChars and flagged", async () => {
    const result = await window(`${"x".repeat(30)}\nshort\n`, { maxLineChars: 10 });
    expect(result.lines[0]).toEqual({ number: 1, text: "x".repeat(10), truncated: true });
    expect(result.lines[1]).toEqual({ number: 2, text: "short", truncated: false });
  });

  test("a cut never splits a character", async () => {
    const result = await window(`${"€".repeat(20)}\n😀😀😀\n`, { maxLineChars: 5 }, 7);
    expect(result.lines[0]!.text).toBe("€".repeat(5));
    expect(result.lines[1]!.text).toBe("😀😀");
    expect(result.lines[1]!.truncated).toBe(true);
  });

  test("the byte cap stops selection but not counting", async () => {
    const text = Array.from({ length: 100 }, () => "0123456789").join("\n");
    const result = await window(text, { maxBytes: 54 });
    expect(result.lines).toHaveLength(5); // 5 x 10 bytes + 4 newlines = 54
    expect(result.byteCapped).toBe(true);
    expect(result.totalLines).toBe(100);
  });

  test("chunking never changes the result", async () => {
    const samples = ["a\r\nbb\r\n\r\nccc\nlast", "\uFEFFbom\nline ñ€😀\n", `${"z".repeat(5000)}\ntail\n`, "\n\n\n", "no newline at all"];
    for (const sample of samples) {
      const whole = await window(sample, { maxLineChars: 100, maxBytes: 300 });
      for (const size of [1, 2, 3, 7, 256]) {
        expect(await window(sample, { maxLineChars: 100, maxBytes: 300 }, size), `${JSON.stringify(sample)} / ${size}`).toEqual(whole);
      }
    }
  });

  test("a byte-order mark is removed and reported, also when split across chunks", async () => {
    const result = await window("\uFEFFfirst\nsecond\n", {}, 1);
    expect(result.bom).toBe(true);
    expect(result.lines.map((l) => l.text)).toEqual(["first", "second"]);
    expect((await window("a")).bom).toBe(false);
    expect((await failure(Uint8Array.of(0xef, 0xbb))).details.reason).toBe("invalid-utf8");
  });

  test("a U+FEFF that starts a later line is text, shown as it is", async () => {
    for (const size of [1, 3, 1 << 16]) {
      const result = await window("\uFEFFfirst\n\uFEFFsecond\n\uFEFF\n", {}, size);
      expect(result.bom).toBe(true);
      expect(result.lines.map((l) => l.text)).toEqual(["first", "\uFEFFsecond", "\uFEFF"]);
      const windowed = await window("one\n\uFEFFtwo\n", { offset: 2 }, size);
      expect([windowed.bom, windowed.lines.map((l) => l.text)]).toEqual([false, ["\uFEFFtwo"]]);
    }
  });

  test("lines outside the window are not decoded", async () => {
    const bytes = Uint8Array.of(...utf8("ok\n"), 0xff, 0xfe, 0x0a, ...utf8("fine\n"));
    const result = await window(bytes, { offset: 3 });
    expect(result.lines.map((l) => l.text)).toEqual(["fine"]);
    const error = await failure(bytes);
    expect([error.code, error.details.reason, error.details.line]).toEqual(["FS_NOT_TEXT", "invalid-utf8", 2]);
  });

  test("a NUL in the sniffed prefix is binary; a UTF-16 mark is not UTF-8", async () => {
    expect((await failure(utf8("ab\0cd"))).details.reason).toBe("binary");
    expect((await failure(Uint8Array.of(0xff, 0xfe, 0x61, 0x00))).details.reason).toBe("utf-16");
  });

  test("a gigantic line keeps memory bounded", async () => {
    const huge = new Uint8Array(8 * 1024 * 1024).fill(0x61);
    const result = await window(huge, { maxLineChars: 100 }, 64 * 1024);
    expect(result.lines[0]!.text).toHaveLength(100);
    expect(result.totalLines).toBe(1);
  });
});
