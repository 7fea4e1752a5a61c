import { describe, expect, test } from "vitest";
import { isPatchError, type PatchError } from "./errors.ts";
import { parsePatch } from "./parse.ts";
import { type PatchPlan, planPatch } from "./plan.ts";

const reader = (files: Record<string, string>) => {
  const reads: string[] = [];
  const read = async (path: string) => {
    reads.push(path);
    return files[path];
  };
  return { read, reads };
};

async function refusal(promise: Promise<PatchPlan>): Promise<PatchError> {
  try {
    await promise;
  } catch (error) {
    if (isPatchError(error, "PATCH_REFUSED")) return error;
    throw error;
  }
  throw new Error("planned");
}

/** What a plan leaves in a map of files. */
function applied(files: Record<string, string>, plan: PatchPlan): Record<string, string> {
  const out = { ...files };
  for (const change of plan.changes) {
    if (change.kind === "delete") delete out[change.path];
    else if (change.kind === "move") {
      delete out[change.path];
      out[change.to] = change.after;
    } else out[change.path] = change.after;
  }
  return out;
}

describe("planPatch", () => {
  test("every problem is listed, each with its code, and nothing else is needed to find them", async () => {
    const files = { "exists.txt": "x\n", "a.txt": "one\n", "taken.txt": "t\n", "dup.txt": "d\n" };
    const ops = parsePatch(
      [
        "*** Begin Patch",
        "*** Add File: exists.txt",
        "+new",
        "*** Update File: missing.txt",
        "@@",
        "-a",
        "*** Delete File: gone.txt",
        "*** Update File: a.txt",
        "*** Move to: taken.txt",
        "@@",
        "-two",
        "+2",
        "*** Delete File: dup.txt",
        "*** Update File: ./dup.txt",
        "@@",
        "-d",
        "+e",
        "*** End Patch",
      ].join("\n"),
    );
    const error = await refusal(planPatch(ops, reader(files).read));
    const problems = error.details.problems ?? [];
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ["PATCH_PATH_CONFLICT", "./dup.txt"],
      ["PATCH_FILE_EXISTS", "exists.txt"],
      ["PATCH_FILE_MISSING", "missing.txt"],
      ["PATCH_FILE_MISSING", "gone.txt"],
      ["PATCH_FILE_EXISTS", "taken.txt"],
      ["PATCH_CONTEXT_NOT_FOUND", "a.txt"],
    ]);
    expect(error.message).toContain("nothing was changed. 6 problems");
    expect(error.message).toContain('"./dup.txt" is named by two operations (patch lines 13 and 14)');
  });

  test("the replace hook lets Add and Move replace a file the caller vouches was read", async () => {
    const files = { "a.txt": "old\r\n", "b.txt": "src\n", "c.txt": "dest\n" };
    const ops = parsePatch(["*** Begin Patch", "*** Add File: a.txt", "+new", "*** Update File: b.txt", "*** Move to: c.txt", "*** End Patch"].join("\n"));
    const refused = await refusal(planPatch(ops, reader(files).read, { replace: (p) => p === "a.txt" }));
    expect(refused.details.problems?.map((p) => p.path)).toEqual(["c.txt"]);
    const plan = await planPatch(ops, reader(files).read, { replace: () => true });
    expect(plan.changes).toMatchObject([
      { kind: "add", path: "a.txt", before: "old\r\n", after: "new\r\n" },
      { kind: "move", path: "b.txt", to: "c.txt", before: "src\n", after: "src\n", replaced: "dest\n" },
    ]);
    expect(plan.changes[1]?.diff.text).toBe("--- a/b.txt\n+++ b/c.txt\n");
  });

  test("each file is read once; diffs name both sides, /dev/null for a missing one", async () => {
    const files = { "u.txt": "a\nb\nc\n", "d.txt": "bye\n" };
    const { read, reads } = reader(files);
    const ops = parsePatch(
      ["*** Begin Patch", "*** Add File: n.txt", "+hi", "*** Update File: u.txt", "@@", " a", "-b", "+B", "*** Delete File: d.txt", "*** End Patch"].join("\n"),
    );
    const plan = await planPatch(ops, read);
    expect(reads.sort()).toEqual(["d.txt", "n.txt", "u.txt"]);
    expect(plan.changes.map((c) => c.diff.text)).toEqual([
      "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+hi\n",
      "--- a/u.txt\n+++ b/u.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
      "--- a/d.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n",
    ]);
    expect(applied(files, plan)).toEqual({ "n.txt": "hi\n", "u.txt": "a\nB\nc\n" });
  });

  test("a 20-file rename-and-fix-imports patch, planned against an in-memory map", async () => {
    const files: Record<string, string> = { "src/utils.ts": 'export const shout = (s: string) => s.toUpperCase() + "!";\n' };
    for (let i = 0; i < 20; i++) {
      files[`src/feature-${i}.ts`] =
        `import { shout } from "./utils";\nimport { other } from "./other";\n\nexport function run${i}() {\n  return shout("f${i}") + other();\n}\n`;
    }
    const body = [
      "*** Begin Patch",
      "*** Update File: src/utils.ts",
      "*** Move to: src/strings.ts",
      "@@",
      '-export const shout = (s: string) => s.toUpperCase() + "!";',
      "+export const shout = (s: string): string => `${s.toUpperCase()}!`;",
    ];
    for (let i = 0; i < 20; i++)
      body.push(
        `*** Update File: src/feature-${i}.ts`,
        "@@",
        '-import { shout } from "./utils";',
        '+import { shout } from "./strings";',
        ' import { other } from "./other";',
      );
    body.push("*** Delete File: src/feature-19.ts", "*** End Patch");
    // feature-19 is both updated and deleted: refused, naming it.
    const conflict = await refusal(planPatch(parsePatch(body.join("\n")), reader(files).read));
    expect(conflict.details.problems?.map((p) => [p.code, p.path])).toEqual([["PATCH_PATH_CONFLICT", "src/feature-19.ts"]]);

    body.splice(-2, 1, "*** Add File: src/strings.test.ts", '+import { shout } from "./strings";', '+if (shout("a") !== "A!") throw new Error("shout");');
    const plan = await planPatch(parsePatch(body.join("\n")), reader(files).read);
    const after = applied(files, plan);
    expect(Object.keys(after).sort()).toEqual([...Object.keys(files).filter((f) => f !== "src/utils.ts"), "src/strings.ts", "src/strings.test.ts"].sort());
    expect(after["src/strings.ts"]).toBe("export const shout = (s: string): string => `${s.toUpperCase()}!`;\n");
    for (let i = 0; i < 20; i++) {
      expect(after[`src/feature-${i}.ts`]).toBe((files[`src/feature-${i}.ts`] as string).replace('"./utils"', '"./strings"'));
    }
    expect(plan.changes.filter((c) => c.kind === "update").every((c) => c.diff.added === 1 && c.diff.removed === 1)).toBe(true);
  });
});
