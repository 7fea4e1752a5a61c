import { describe, expect, test } from "vitest";
import { isFsError } from "../fs/errors.ts";
import {
  applyLineEnding,
  completeUtf8Prefix,
  decodeText,
  detectBom,
  detectLineEnding,
  endsWithNewline,
  findInvalidUtf8,
  normalizeLineEndings,
  TextStreamDecoder,
  withUtf8Bom,
} from "./mod.ts";

const bytes = (...values: number[]) => Uint8Array.from(values);
const utf8 = (text: string) => new TextEncoder().encode(text);

function failure(work: () => unknown): { code: string; message: string } {
  try {
    work();
  } catch (error) {
    if (isFsError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a failure");
}

describe("decodeText", () => {
  test.for([
    ["ascii", utf8("plain"), "plain", false],
    ["multi-byte", utf8("ñ€😀"), "ñ€😀", false],
    ["utf-8 bom", bytes(0xef, 0xbb, 0xbf, 0x61), "a", true],
    ["bom only", bytes(0xef, 0xbb, 0xbf), "", true],
    ["empty", bytes(), "", false],
    ["bom-like prefix that is text", utf8("ï»"), "ï»", false],
  ] as const)("%s", ([, input, text, bom]) => {
    expect(decodeText(input)).toEqual({ text, bom });
  });

  test.for([
    ["a lone continuation byte", bytes(0x61, 0x80), "invalid byte at byte 1"],
    ["an overlong encoding", bytes(0xc0, 0xaf), "invalid byte at byte 0"],
    ["a surrogate", bytes(0xed, 0xa0, 0x80), "invalid byte at byte 0"],
    ["past U+10FFFF", bytes(0xf4, 0x90, 0x80, 0x80), "invalid byte at byte 0"],
    ["0xFF", bytes(0x61, 0x62, 0xff), "invalid byte at byte 2"],
    ["a truncated sequence at the end", bytes(0x61, 0xe2, 0x82), "ends inside a character"],
    ["a UTF-16LE byte-order mark", bytes(0xff, 0xfe, 0x61, 0x00), "UTF-16LE"],
    ["a UTF-16BE byte-order mark", bytes(0xfe, 0xff, 0x00, 0x61), "UTF-16BE"],
  ] as const)("rejects %s with FS_NOT_TEXT", ([, input, phrase]) => {
    const error = failure(() => decodeText(input, { path: "/w/f.txt" }));
    expect(error.code).toBe("FS_NOT_TEXT");
    expect(error.message).toContain('"/w/f.txt"');
    expect(error.message).toContain(phrase);
  });

  test("a NUL inside the sniffed prefix means binary; past it, text", () => {
    const early = utf8("ab\0cd");
    expect(failure(() => decodeText(early)).message).toContain("binary file (NUL byte at offset 2)");
    const late = new Uint8Array(20).fill(0x61);
    late[15] = 0;
    expect(decodeText(late, { sniffBytes: 10 }).text).toHaveLength(20);
    expect(failure(() => decodeText(late, { sniffBytes: 16 })).code).toBe("FS_NOT_TEXT");
  });
});

describe("TextStreamDecoder", () => {
  test("decodes every split of a multi-byte text the same", () => {
    const source = utf8("\uFEFFa€😀b\r\n");
    for (let cut = 0; cut <= source.length; cut++) {
      const decoder = new TextStreamDecoder();
      const text = decoder.push(source.subarray(0, cut)) + decoder.push(source.subarray(cut)) + decoder.end();
      expect([cut, text, decoder.bom]).toEqual([cut, "a€😀b\r\n", true]);
    }
  });

  test("finds a NUL split across chunks within the sniff window", () => {
    const decoder = new TextStreamDecoder({ sniffBytes: 8 });
    decoder.push(utf8("abcde"));
    expect(failure(() => decoder.push(bytes(0x66, 0x00))).message).toContain("offset 6");
  });

  test("one byte at a time", () => {
    const source = utf8("ñ€😀 mixed text");
    const decoder = new TextStreamDecoder();
    let text = "";
    for (const byte of source) text += decoder.push(bytes(byte));
    expect(text + decoder.end()).toBe("ñ€😀 mixed text");
  });
});

describe("findInvalidUtf8", () => {
  test.for([
    [utf8("valid ñ€😀"), -1],
    [bytes(0x61, 0xc3), -1],
    [bytes(0x61, 0xc3, 0x28), 1],
    [bytes(0xe0, 0x80, 0x80), 0],
    [bytes(0xf5, 0x80), 0],
  ] as const)("%o -> %i", ([input, offset]) => {
    expect(findInvalidUtf8(input)).toBe(offset);
  });
});

describe("completeUtf8Prefix", () => {
  const e = new TextEncoder().encode("aé€😀");
  test.for([
    [e.length, e.length],
    [1, 1],
    [2, 1],
    [3, 3],
    [5, 3],
    [6, 6],
    [9, 6],
    [10, 10],
  ] as const)("cutting aé€😀 at %i keeps %i bytes", ([cut, kept]) => {
    expect(completeUtf8Prefix(e, cut)).toBe(kept);
  });
});

describe("byte-order marks", () => {
  test.for([
    [bytes(0xef, 0xbb, 0xbf, 0x61), "utf-8"],
    [bytes(0xff, 0xfe), "utf-16le"],
    [bytes(0xfe, 0xff), "utf-16be"],
    [bytes(0xef, 0xbb), undefined],
    [utf8("text"), undefined],
  ] as const)("%o is %s", ([input, bom]) => {
    expect(detectBom(input)).toBe(bom);
  });

  test("withUtf8Bom restores the mark only when asked", () => {
    expect([...withUtf8Bom(utf8("a"), true)]).toEqual([0xef, 0xbb, 0xbf, 0x61]);
    expect([...withUtf8Bom(utf8("a"), false)]).toEqual([0x61]);
  });
});

describe("line endings", () => {
  test.for([
    ["no line breaks", "abc", "\n"],
    ["LF only", "a\nb\n", "\n"],
    ["CRLF only", "a\r\nb\r\n", "\r\n"],
    ["tie goes to LF", "a\r\nb\n", "\n"],
    ["CRLF majority", "a\r\nb\r\nc\n", "\r\n"],
    ["lone CRs do not count", "a\rb\rc\n", "\n"],
  ] as const)("%s", ([, text, eol]) => {
    expect(detectLineEnding(text)).toBe(eol);
  });

  test.for([
    ["a\r\nb", "a\nb"],
    ["a\rb\r\n", "a\rb\n"],
    ["a\r\r\nb", "a\r\nb"],
    ["plain", "plain"],
  ] as const)("normalizes %j to %j", ([input, output]) => {
    expect(normalizeLineEndings(input)).toBe(output);
  });

  test("applyLineEnding writes LF text back with CRLF", () => {
    expect(applyLineEnding("a\nb\n", "\r\n")).toBe("a\r\nb\r\n");
    expect(applyLineEnding("a\nb\n", "\n")).toBe("a\nb\n");
    expect(endsWithNewline("a\r\n")).toBe(true);
    expect(endsWithNewline("a")).toBe(false);
  });
});
