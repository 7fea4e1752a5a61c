import { describe, expect, test } from "vitest";
import { isPatchError } from "./errors.ts";
import { parsePatch } from "./parse.ts";

const patch = (...lines: string[]) => lines.join("\n");

function parseError(text: string): { line: unknown; message: string } {
  try {
    parsePatch(text);
  } catch (error) {
    expect(isPatchError(error, "PATCH_INVALID")).toBe(true);
    const e = error as { details: { line: unknown }; message: string };
    return { line: e.details.line, message: e.message };
  }
  throw new Error("parsed");
}

describe("parsePatch", () => {
  test("every operation, a move, anchors and End of File", () => {
    const ops = parsePatch(
      patch(
        "*** Begin Patch",
        "*** Add File: docs/new.md",
        "+# Title",
        "+",
        "+body",
        "*** Delete File: old.txt",
        "*** Update File: src/a.ts",
        "*** Move to: src/b.ts",
        "@@ function f() {",
        "-  return 1;",
        "+  return 2;",
        " }",
        "@@",
        " last",
        "+appended",
        "*** End of File",
        "*** End Patch",
        "",
      ),
    );
    expect(ops).toEqual([
      { kind: "add", path: "docs/new.md", text: "# Title\n\nbody\n", line: 2 },
      { kind: "delete", path: "old.txt", line: 6 },
      {
        kind: "update",
        path: "src/a.ts",
        moveTo: "src/b.ts",
        line: 7,
        hunks: [
          {
            anchor: "function f() {",
            endOfFile: false,
            line: 9,
            lines: [
              { kind: "-", text: "  return 1;" },
              { kind: "+", text: "  return 2;" },
              { kind: " ", text: "}" },
            ],
          },
          {
            endOfFile: true,
            line: 13,
            lines: [
              { kind: " ", text: "last" },
              { kind: "+", text: "appended" },
            ],
          },
        ],
      },
    ]);
  });

  test("lenient: heredoc wrapper, CRLF, padded markers, no trailing newline, first hunk without @@", () => {
    const text = ["<<'EOF'", "  *** Begin Patch  ", "*** Update File: a.txt", " keep", "-old", "+new", "*** End Patch ", "EOF"].join("\r\n");
    expect(parsePatch(text)).toEqual([
      {
        kind: "update",
        path: "a.txt",
        line: 3,
        hunks: [
          {
            endOfFile: false,
            line: 4,
            lines: [
              { kind: " ", text: "keep" },
              { kind: "-", text: "old" },
              { kind: "+", text: "new" },
            ],
          },
        ],
      },
    ]);
  });

  test("an empty line inside a hunk is empty context; blank lines after a hunk only separate", () => {
    const [op] = parsePatch(patch("*** Begin Patch", "*** Update File: a", "@@", " a", "", " b", "+c", "", "", "@@ x", "-y", "*** End Patch"));
    expect(op?.kind === "update" && op.hunks.map((h) => h.lines.map((l) => l.kind + l.text))).toEqual([[" a", " ", " b", "+c"], ["-y"]]);
  });

  test("a unified-diff header is taken as a bare @@ (its function context as the anchor)", () => {
    const [op] = parsePatch(patch("*** Begin Patch", "*** Update File: a", "@@ -3,2 +3,2 @@ def f():", "-x", "+y", "*** End Patch"));
    expect(op?.kind === "update" && op.hunks[0]?.anchor).toBe("def f():");
  });

  test("heredoc with the command in front; a blank line between added lines is an empty line", () => {
    const text = ["apply_patch <<'PATCH'", "*** Begin Patch", "*** Add File: a", "+one", "", "+three", "", "*** Delete File: b", "*** End Patch", "PATCH"].join(
      "\n",
    );
    expect(parsePatch(text)).toEqual([
      { kind: "add", path: "a", text: "one\n\nthree\n", line: 3 },
      { kind: "delete", path: "b", line: 8 },
    ]);
  });

  test("a pure rename needs no hunk", () => {
    expect(parsePatch(patch("*** Begin Patch", "*** Update File: a", "*** Move to: b", "*** End Patch"))).toEqual([
      { kind: "update", path: "a", moveTo: "b", hunks: [], line: 2 },
    ]);
  });

  test.each([
    ["", 1, 'expected "*** Begin Patch", got an empty patch'],
    [patch("hello", "*** End Patch"), 1, 'expected "*** Begin Patch", got "hello"'],
    [patch("*** Begin Patch", "*** Delete File: a"), 2, 'expected "*** End Patch" as the last line, got "*** Delete File: a"'],
    [patch("*** Begin Patch"), 1, 'expected "*** End Patch" as the last line, got the end of the patch'],
    [patch("*** Begin Patch", "*** End Patch"), 2, "expected at least one of"],
    [
      patch("*** Begin Patch", "*** Frobnicate: a", "*** End Patch"),
      2,
      'expected "*** Add File: <path>", "*** Delete File: <path>", "*** Update File: <path>" or "*** End Patch", got "*** Frobnicate: a"',
    ],
    [patch("*** Begin Patch", "*** Add File:   ", "*** End Patch"), 2, 'expected a path after "*** Add File:"'],
    [patch("*** Begin Patch", "*** Update File: a", "*** End Patch"), 2, "expected at least one hunk"],
    [
      patch("*** Begin Patch", "*** Update File: a", "@@", " a", "-b", "", "foo", "*** End Patch"),
      7,
      'expected a hunk line starting with " ", "+" or "-", or "@@", got "foo"',
    ],
    [
      patch("*** Begin Patch", "*** Update File: a", "@@", "*** End Patch"),
      4,
      'expected a hunk line starting with " ", "+" or "-" after "@@", got "*** End Patch"',
    ],
    [patch("*** Begin Patch", "*** Update File: a", "@@ f", "@@ g", "-x", "*** End Patch"), 4, 'after "@@", got "@@ g"'],
    [patch("*** Begin Patch", "*** Update File: a", "*** End of File", "*** End Patch"), 3, '"*** End of File"'],
    [patch("*** Begin Patch", "*** Add File: a", "+x", "hello", "*** End Patch"), 4, 'or "*** End Patch", got "hello"'],
    [patch("*** Begin Patch", "*** Delete File: a", "*** End Patch", "*** Delete File: b", "*** End Patch"), 3, 'expected nothing after "*** End Patch"'],
  ])("error %#: line %i", (text, line, expected) => {
    const error = parseError(text);
    expect(error.line).toBe(line);
    expect(error.message).toContain(`line ${line}: `);
    expect(error.message).toContain(expected);
  });

  test("line numbers count from the patch's real first line, blank lines and heredoc included", () => {
    expect(parseError(patch("", "", "<<EOF", "*** Begin Patch", "*** Update File: a", "@@", "oops", "*** End Patch", "EOF")).line).toBe(7);
  });
});
