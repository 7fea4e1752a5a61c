import { describe, expect, test } from "vitest";
import { isFsError } from "../fs/errors.ts";
import { editDiff, unifiedDiff } from "./diff.ts";
import { applyEdit, encodeEdit } from "./edit.ts";

const edit = (text: string, oldString: string, newString: string, replaceAll = false) =>
  applyEdit(text, { oldString, newString, replaceAll, path: "f.txt" }).text;

function failure(work: () => unknown) {
  try {
    work();
  } catch (error) {
    if (isFsError(error)) return error;
    throw error;
  }
  throw new Error("expected an FsError");
}

describe("applyEdit", () => {
  test.for([
    ["LF file", "a\nb\nc\n", "b\n", "B\nB2\n", "a\nB\nB2\nc\n"],
    ["CRLF file, LF strings", "a\r\nb\r\nc\r\n", "a\nb", "x\ny", "x\r\ny\r\nc\r\n"],
    ["CRLF file, CRLF strings", "a\r\nb\r\nc\r\n", "a\r\nb", "x", "x\r\nc\r\n"],
    ["mixed file keeps bytes outside the span", "one\r\ntwo\nthree\r\nfour\n", "three", "3", "one\r\ntwo\n3\r\nfour\n"],
    ["mixed file: replacement uses the dominant ending", "a\r\nb\r\nc\n", "b", "b1\nb2", "a\r\nb1\r\nb2\r\nc\n"],
    ["no trailing newline stays that way", "x\ny", "y", "z", "x\nz"],
    ["dollar patterns are literal", "price", "price", "$& $1 $$ $'", "$& $1 $$ $'"],
    ["tabs are kept", "\tif (x) {\n\t\treturn;\n", "\t\treturn;", "\t\treturn 1;", "\tif (x) {\n\t\treturn 1;\n"],
    ["lone CRs are plain characters", "a\rb\n", "a\rb", "ab", "ab\n"],
    ["deletion", "keep\ndrop\nkeep\n", "drop\n", "", "keep\nkeep\n"],
    ["match starting at a CRLF line break", "a\r\nb\r\n", "\nb", "\nB", "a\r\nB\r\n"],
    ["non-ASCII", "naïve café\n", "café", "caffè", "naïve caffè\n"],
  ] as const)("%s", ([, text, oldString, newString, expected]) => {
    expect(edit(text, oldString, newString)).toBe(expected);
  });

  test("replace_all replaces every non-overlapping occurrence", () => {
    expect(edit("aaa", "aa", "b", true)).toBe("ba");
    expect(edit("x.y.z", ".", "/", true)).toBe("x/y/z");
  });

  test("an ambiguous match lists the lines", () => {
    const error = failure(() => edit("x\nfoo\ny\nfoo\nfoo\n", "foo", "bar"));
    expect(error.code).toBe("FS_AMBIGUOUS_EDIT");
    expect(error.details).toMatchObject({ count: 3, lines: [2, 4, 5] });
    expect(error.message).toContain("lines 2, 4, 5");
  });

  test("occurrences sharing a line name that line once", () => {
    const same = failure(() => edit("a a a\nb\n", "a", "c"));
    expect(same.message).toContain("old_string occurs 3 times (all on line 1).");
    const mixed = failure(() => edit("a a\nb\na\n", "a", "c"));
    expect(mixed.message).toContain("old_string occurs 3 times (on lines 1, 3).");
    expect(mixed.details).toMatchObject({ count: 3, lines: [1, 1, 3] });
  });

  test("an empty old_string is refused", () => {
    expect(failure(() => edit("abc", "", "x")).code).toBe("FS_EDIT_NOT_FOUND");
  });

  test("a whitespace-only difference is located, shown, and not applied", () => {
    const text = "function f() {\n\tif (a) {\n\t\treturn 1;\n\t}\n}\n";
    const error = failure(() => edit(text, "    if (a) {\n        return 1;\n    }", "x"));
    expect(error.code).toBe("FS_EDIT_NOT_FOUND");
    expect(error.details.near).toEqual([{ from: 2, to: 4 }]);
    expect(error.message).toContain("lines 2-4");
    expect(error.message).toContain("tabs");
    expect(error.message).toContain("3: \t\treturn 1;");
  });

  test("a line-ending difference (lone CR file) is located", () => {
    const error = failure(() => edit("one\rtwo\rthree\r", "two\nthree", "x"));
    expect(error.details.near).toEqual([{ from: 2, to: 3 }]);
  });

  test("nothing close gives the plain advice", () => {
    const error = failure(() => edit("alpha\nbeta\n", "gamma", "x"));
    expect(error.details.near).toEqual([]);
    expect(error.message).toContain("copy the text exactly");
  });

  test("encodeEdit splices the original bytes: identical to encoding the edited text", () => {
    const encode = (s: string) => new TextEncoder().encode(s);
    for (const [text, bom] of [
      ["ascii a\r\nfoo\nfoo", false],
      ["ñ😀 foo € foo\n", false],
      ["bom foo", true],
    ] as const) {
      const bytes = Uint8Array.from([...(bom ? [0xef, 0xbb, 0xbf] : []), ...encode(text)]);
      const result = applyEdit(text, { oldString: "foo", newString: "bär\nbaz", replaceAll: true, path: "f" });
      const expected = Uint8Array.from([...(bom ? [0xef, 0xbb, 0xbf] : []), ...encode(result.text)]);
      expect([...encodeEdit(bytes, bom, result)]).toEqual([...expected]);
    }
  });

  test("editDiff numbers hunks by file lines across several and multi-line replacements", () => {
    const before = `${Array.from({ length: 40 }, (_, i) => `l${i + 1}`).join("\n")}\n`;
    const result = applyEdit(before, { oldString: "l5\n", newString: "five\nFIVE\n", replaceAll: false, path: "f" });
    expect(editDiff("f", result).text).toBe(unifiedDiff("f", before, result.text).text);
    const many = applyEdit(before.replace("l30", "l5x"), { oldString: "l5", newString: "L5", replaceAll: true, path: "f" });
    expect(editDiff("f", many).text).toBe(unifiedDiff("f", before.replace("l30", "l5x"), many.text).text);
  });

  test("spans locate each replacement in both texts", () => {
    const result = applyEdit("a\r\nfoo\r\nb\r\nfoo\r\n", { oldString: "foo", newString: "barbar", replaceAll: true, path: "f" });
    expect(result.spans.map((s) => s.line)).toEqual([2, 4]);
    for (const span of result.spans) expect(result.text.slice(span.newStart, span.newEnd)).toBe("barbar");
  });
});

describe("unifiedDiff", () => {
  test("a whole-text diff with three lines of context", () => {
    const before = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    const after = before.replace("line 10\n", "line ten\n");
    const diff = unifiedDiff("f.txt", before, after);
    expect(diff.text).toBe(
      ["--- f.txt", "+++ f.txt", "@@ -7,7 +7,7 @@", " line 7", " line 8", " line 9", "-line 10", "+line ten", " line 11", " line 12", " line 13", ""].join(
        "\n",
      ),
    );
    expect([diff.added, diff.removed, diff.truncated]).toEqual([1, 1, false]);
  });

  test("region diffs match whole-text diffs with correct line numbers", () => {
    const before = `${Array.from({ length: 200 }, (_, i) => `row ${i + 1}\r`).join("\n")}\n`;
    const result = applyEdit(before, { oldString: "row 50\nrow 51", newString: "changed", replaceAll: false, path: "f" });
    const regional = editDiff("f", result);
    expect(regional.text).toBe(unifiedDiff("f", before, result.text).text);
    expect(regional.text).toContain("@@ -47,8 +47,7 @@");
  });

  test("identical texts give no diff; oversized ones are skipped with a reason; long diffs are cut", () => {
    expect(unifiedDiff("f", "same\n", "same\n").text).toBe("");
    expect(unifiedDiff("f", "a".repeat(100), "b", { maxInputChars: 10 }).skipped).toContain("over 10 characters");
    const many = unifiedDiff("f", "", Array.from({ length: 1000 }, (_, i) => `new ${i}`).join("\n"), { maxBytes: 500 });
    expect(many.truncated).toBe(true);
    expect(many.text).toMatch(/… diff cut here: \d+ more lines$/);
    expect(many.added).toBe(1000);
  });
});
