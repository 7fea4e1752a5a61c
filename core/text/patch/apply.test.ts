import { describe, expect, test } from "vitest";
import { applyHunks, patchText } from "./apply.ts";
import { isPatchError, type PatchError } from "./errors.ts";
import { type Hunk, parsePatch } from "./parse.ts";

/** The hunks of a one-file update patch written as its body lines. */
function hunks(...body: string[]): readonly Hunk[] {
  const [op] = parsePatch(["*** Begin Patch", "*** Update File: f", ...body, "*** End Patch"].join("\n"));
  if (op?.kind !== "update") throw new Error("not an update");
  return op.hunks;
}

function failure(original: string, h: readonly Hunk[]): PatchError {
  try {
    applyHunks(original, h, { path: "f.ts" });
  } catch (error) {
    if (isPatchError(error)) return error;
    throw error;
  }
  throw new Error("applied");
}

describe("seek passes", () => {
  test("exact", () => {
    const r = patchText("a\nb\nc\n", hunks("@@", " a", "-b", "+B"));
    expect(r.text).toBe("a\nB\nc\n");
    expect(r.placements).toEqual([{ line: 1, pass: "exact" }]);
  });

  test("trailing whitespace ignored, and the file's context line kept as it is", () => {
    const r = patchText("a  \nb\t\nc\n", hunks("@@", " a", "-b", "+B"));
    expect(r.text).toBe("a  \nB\nc\n");
    expect(r.placements[0]?.pass).toBe("trailing-whitespace");
  });

  test("surrounding whitespace ignored", () => {
    const r = patchText("\tif (x) {\n\t\treturn 1;\n\t}\n", hunks("@@", " if (x) {", "-    return 1;", "+\t\treturn 2;"));
    expect(r.text).toBe("\tif (x) {\n\t\treturn 2;\n\t}\n");
    expect(r.placements[0]?.pass).toBe("surrounding-whitespace");
  });

  test("typographic punctuation folded to ASCII; the file keeps its curly quotes in context", () => {
    const original = "say(\u201chello\u201d)\nit\u2019s \u2014 done\u00a0now\nend\n";
    const r = patchText(original, hunks("@@", ' say("hello")', "-it's - done now", "+it is done"));
    expect(r.text).toBe("say(\u201chello\u201d)\nit is done\nend\n");
    expect(r.placements[0]?.pass).toBe("punctuation");
  });

  test("a stricter pass that finds one place wins over a looser one that would find several", () => {
    expect(applyHunks("x\nx \n x\n", hunks("@@", "-x", "+y"))).toBe("y\nx \n x\n");
  });

  test("every pass fails on the old code path: a loose match never rewrites a matched context line", () => {
    expect(applyHunks("  keep   \nold\n", hunks("@@", " keep", "-old", "+new"))).toBe("  keep   \nnew\n");
  });
});

describe("missing and ambiguous contexts", () => {
  test("missing context names the hunk and the closest candidate lines with what differs", () => {
    const file = "function a() {\n  return 1;\n}\nfunction b() {\n  return 2;\n}\n";
    const error = failure(file, hunks("@@", " function b() {", "-  return 3;", "+  return 4;"));
    expect(error.code).toBe("PATCH_CONTEXT_NOT_FOUND");
    expect(error.message).toContain('hunk 1 (patch line 3) of "f.ts"');
    expect(error.message).toContain("line 4 (1 of 2 lines match)");
    expect(error.message).toContain('line 5 reads "  return 2;" where the hunk has "  return 3;"');
    expect(error.details).toMatchObject({ hunk: 1, line: 3, candidates: [4] });
  });

  test("a missing @@ anchor is named", () => {
    const error = failure("a\nb\n", hunks("@@ class Nope", "-a", "+b"));
    expect(error.code).toBe("PATCH_CONTEXT_NOT_FOUND");
    expect(error.message).toContain('the "@@" line "class Nope" was not found');
  });

  test("ambiguous context lists every line where it matches", () => {
    const file = "x = 1\nfoo()\nx = 1\nbar()\nx = 1\n";
    const error = failure(file, hunks("@@", "-x = 1", "+x = 2"));
    expect(error.code).toBe("PATCH_AMBIGUOUS_CONTEXT");
    expect(error.details.lines).toEqual([1, 3, 5]);
    expect(error.message).toContain("matches 3 places (lines 1, 3, 5)");
  });

  test("an anchor that occurs twice is ambiguous only when it leads to different places", () => {
    const file = "def f():\n    return 1\ndef f():\n    return 1\n";
    expect(failure(file, hunks("@@ def f():", "-    return 1", "+    return 2")).details.lines).toEqual([2, 4]);
    const once = "def f():\n    pass\ndef f():\n    return 1\n";
    expect(applyHunks(once, hunks("@@ def f():", "-    return 1", "+    return 2"))).toBe("def f():\n    pass\ndef f():\n    return 2\n");
  });

  test("every failing hunk is reported, not only the first", () => {
    const r = patchText("a\nb\nc\n", hunks("@@", "-nope", "+x", "@@", "-b", "+B", "@@", "-zzz", "+y"));
    expect(r.text).toBeUndefined();
    expect(r.problems.map((p) => p.details.hunk)).toEqual([1, 3]);
  });
});

describe("ordering, anchors and end of file", () => {
  test("a later hunk is sought after the previous one, so repeated lines are told apart by order", () => {
    const file = "a\nx\nb\nx\nc\n";
    expect(applyHunks(file, hunks("@@", " a", "-x", "+1", "@@", "-x", "+2"))).toBe("a\n1\nb\n2\nc\n");
  });

  test("hunks out of file order are refused, saying the match lies before the previous hunk", () => {
    const error = failure("a\nb\nc\nd\n", hunks("@@", "-c", "+C", "@@", "-a", "+A"));
    expect(error.message).toContain("hunk 2");
    expect(error.message).toContain("before the previous hunk");
  });

  test("@@ anchor narrows the search to what follows it", () => {
    const file = "class A:\n    def run(self):\n        return 0\nclass B:\n    def run(self):\n        return 0\n";
    expect(applyHunks(file, hunks("@@ class B:", "-        return 0", "+        return 1"))).toBe(
      "class A:\n    def run(self):\n        return 0\nclass B:\n    def run(self):\n        return 1\n",
    );
  });

  test("context that begins with the anchor line itself is found (Codex seeks it only after the anchor)", () => {
    expect(applyHunks("x\ndef f():\n    pass\n", hunks("@@ def f():", " def f():", "-    pass", "+    return 1"))).toBe("x\ndef f():\n    return 1\n");
  });

  test("a pure addition under an anchor goes right after the anchor line; without one, at the end", () => {
    expect(applyHunks("a\nb\nc\n", hunks("@@ a", "+inserted"))).toBe("a\ninserted\nb\nc\n");
    expect(applyHunks("a\nb\n", hunks("@@", "+z"))).toBe("a\nb\nz\n");
  });

  test("*** End of File anchors the hunk at the end even when the context also occurs earlier", () => {
    const file = "}\nmiddle\n}\n";
    expect(applyHunks(file, hunks("@@", " }", "+// end", "*** End of File"))).toBe("}\nmiddle\n}\n// end\n");
    expect(failure("}\nend\n", hunks("@@", "-}", "+{", "*** End of File")).message).toContain('at the end of the file ("*** End of File")');
  });

  test("a blank last context line standing for the final newline is tolerated", () => {
    expect(applyHunks("a\nb\n", hunks("@@", " a", "-b", "+c", " "))).toBe("a\nc\n");
  });
});

describe("line endings, BOM and final newline are kept", () => {
  test("CRLF file: matched with LF hunks, added lines take CRLF", () => {
    expect(applyHunks("a\r\nb\r\nc\r\n", hunks("@@", " a", "-b", "+B", "+B2"))).toBe("a\r\nB\r\nB2\r\nc\r\n");
  });

  test("mixed endings: untouched lines keep theirs, added lines take the dominant one", () => {
    expect(applyHunks("a\r\nb\nc\r\nd\r\n", hunks("@@", " b", "-c", "+C"))).toBe("a\r\nb\nC\r\nd\r\n");
  });

  test("BOM kept", () => {
    expect(applyHunks("\ufeffa\nb\n", hunks("@@", "-a", "+A"))).toBe("\ufeffA\nb\n");
  });

  test("no final newline stays so, also when the last line changes or lines are added after it", () => {
    expect(applyHunks("a\nb", hunks("@@", " a", "-b", "+B"))).toBe("a\nB");
    expect(applyHunks("a\nb", hunks("@@", " b", "+c", "*** End of File"))).toBe("a\nb\nc");
    expect(applyHunks("a\r\nb\r\nc", hunks("@@", " b", "-c"))).toBe("a\r\nb");
  });

  test("a final newline stays; an empty file gains lines ending with one", () => {
    expect(applyHunks("a\n", hunks("@@", "-a"))).toBe("");
    expect(applyHunks("", hunks("@@", "+first"))).toBe("first\n");
  });
});
