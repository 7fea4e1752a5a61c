// The apply_patch, delete and move tools through a toolkit, on the memory and the node providers: the
// read-before-write rule for every file a patch touches, a whole patch refused when one of 20 files is stale,
// every operation in one patch, a concurrent writer between the check and the publication reported file by
// file, the ledger kept current, the sandbox, and the guard table of delete and move.
import { afterEach, describe, expect, test } from "vitest";
import { builtinTool, createToolkit, encodeUtf8, type FileSystem, type Toolkit, type ToolkitOptions, type ToolResult } from "../core/mod.ts";
import { SUBJECTS, type Subject, snapshot } from "./patch-tree.ts";

const TOOLS = ["read", "write", "edit", "apply_patch", "delete", "move"] as const;
const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

let subject: Subject | undefined;
afterEach(() => {
  subject?.dispose();
  subject = undefined;
});

describe.each(SUBJECTS)("on $name", ({ make }) => {
  const setup = (files: Record<string, string>, options: Partial<ToolkitOptions> = {}) => {
    subject = make(files);
    const fs = subject.fs;
    const kit = createToolkit({ fs, tools: [...TOOLS], ...options });
    return { fs, kit, call: (name: string, args: Record<string, unknown>) => kit.call(name, args) };
  };
  const readAll = async (kit: Toolkit, paths: readonly string[]) => {
    for (const path of paths) expect((await kit.call("read", { path })).isError).toBe(false);
  };
  const outside = async (fs: FileSystem, path: string, text: string) => fs.write(await fs.resolve(path), encodeUtf8(text));
  const failed = (r: ToolResult, code: string) => {
    expect(r.isError, r.content).toBe(true);
    expect(r.error?.code).toBe(code);
    return r.content;
  };

  test("apply_patch, delete and move are offered only when asked for by name", () => {
    const { fs } = setup({});
    expect(createToolkit({ fs }).definitions.map((d) => d.name)).toEqual(["read", "write", "edit"]);
  });

  test("a file not read is refused, named, and nothing changes", async () => {
    const { fs, kit, call } = setup({ "a.txt": "one\n", "b.txt": "two\n" });
    await readAll(kit, ["a.txt"]);
    const before = await snapshot(fs);
    const r = await call("apply_patch", { input: patch("*** Update File: a.txt", "@@", "-one", "+uno", "*** Delete File: b.txt") });
    expect(failed(r, "PATCH_REFUSED")).toBe(
      'The patch was not applied; nothing was changed: "b.txt" has not been read in this session; read it first (patch line 6)',
    );
    expect(await snapshot(fs)).toEqual(before);
  });

  test("one stale file among 20 refuses the whole patch, naming it, and changes nothing", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`src/m${i}.ts`] = `import { f } from "./utils";\nexport const v${i} = f(${i});\n`;
    const { fs, kit, call } = setup(files);
    await readAll(kit, Object.keys(files));
    await outside(fs, "src/m13.ts", 'import { f } from "./utils";\nexport const v13 = f(13) + 1;\n');
    const before = await snapshot(fs);
    const ops = Object.keys(files).flatMap((path) => [`*** Update File: ${path}`, "@@", '-import { f } from "./utils";', '+import { f } from "./strings";']);
    const content = failed(await call("apply_patch", { input: patch(...ops) }), "PATCH_REFUSED");
    expect(content).toBe('The patch was not applied; nothing was changed: "src/m13.ts" changed since it was read; read it again (patch line 54)');
    expect(await snapshot(fs)).toEqual(before);
  });

  test("add, update, delete and move in one patch; the result lists each file with its diff", async () => {
    const { fs, kit, call } = setup({ "a.txt": "one\r\ntwo\r\n", "old.txt": "gone\n", "lib/x.ts": "\ufeffexport const x = 1;" });
    await readAll(kit, ["a.txt", "old.txt", "lib/x.ts"]);
    const r = await call("apply_patch", {
      input: patch(
        "*** Add File: test/x.test.ts",
        "+import { x } from '../src/x';",
        "*** Update File: a.txt",
        "@@",
        " one",
        "-two",
        "+three",
        "*** Delete File: old.txt",
        "*** Update File: lib/x.ts",
        "*** Move to: src/x.ts",
        "@@",
        "-export const x = 1;",
        "+export const x = 2;",
      ),
    });
    expect(r.isError, r.content).toBe(false);
    expect(r.content.split("\n\n")[0]).toBe(
      "Applied the patch: 4 files changed.\nA test/x.test.ts (+1 -0)\nM a.txt (+1 -1)\nD old.txt (+0 -1)\nR lib/x.ts -> src/x.ts (+1 -1)",
    );
    expect(r.meta.files).toEqual([
      {
        path: "test/x.test.ts",
        operation: "add",
        diff: "--- /dev/null\n+++ b/test/x.test.ts\n@@ -0,0 +1,1 @@\n+import { x } from '../src/x';\n",
        added: 1,
        removed: 0,
      },
      { path: "a.txt", operation: "update", diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n", added: 1, removed: 1 },
      { path: "old.txt", operation: "delete", diff: "--- a/old.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-gone\n", added: 0, removed: 1 },
      {
        path: "src/x.ts",
        operation: "move",
        from: "lib/x.ts",
        diff: "--- a/lib/x.ts\n+++ b/src/x.ts\n@@ -1,1 +1,1 @@\n-export const x = 1;\n\\ No newline at end of file\n+export const x = 2;\n\\ No newline at end of file\n",
        added: 1,
        removed: 1,
      },
    ]);
    // Line endings, the BOM and the missing final newline are kept.
    expect(await snapshot(fs)).toEqual({
      "a.txt": "one\r\nthree\r\n",
      "lib/": null,
      "src/x.ts": "\ufeffexport const x = 2;",
      "test/x.test.ts": "import { x } from '../src/x';\n",
    });
  });

  test("a writer between the check and the publication: the error says exactly what changed and what did not", async () => {
    const files = { "f1.txt": "a\n", "f2.txt": "b\n", "f3.txt": "c\n", "f4.txt": "d\n" };
    subject = make(files);
    const inner = subject.fs;
    let interfered = false;
    // After the patch's first publication, another writer changes f3.txt.
    const fs = new Proxy(inner, {
      get(target, key) {
        if (key === "write") {
          return async (...args: Parameters<FileSystem["write"]>) => {
            const result = await target.write(...args);
            if (!interfered) {
              interfered = true;
              await outside(target, "f3.txt", "someone else\n");
            }
            return result;
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const kit = createToolkit({ fs, tools: [...TOOLS] });
    await readAll(kit, Object.keys(files));
    const ops = Object.keys(files).flatMap((path, i) => [`*** Update File: ${path}`, "@@", `-${"abcd"[i]}`, `+${"ABCD"[i]}`]);
    const content = failed(await kit.call("apply_patch", { input: patch(...ops) }), "PATCH_PARTIALLY_APPLIED");
    expect(content.split("\n").slice(1)).toEqual([
      "Changed: f1.txt (updated), f2.txt (updated).",
      "Not changed: f3.txt, f4.txt.",
      "Read the files not changed again, then send a patch for what is left.",
    ]);
    expect(content).toMatch(/^The patch was applied only in part: f3.txt could not be updated \(.*changed since it was read/);
    expect(await snapshot(inner)).toEqual({ "f1.txt": "A\n", "f2.txt": "B\n", "f3.txt": "someone else\n", "f4.txt": "d\n" });
    // What did change is in the ledger: f2.txt can be edited at once.
    expect((await kit.call("edit", { path: "f2.txt", old_string: "B", new_string: "BB" })).isError).toBe(false);
  });

  test("a move whose new text could not be written counts as changed, and says so", async () => {
    subject = make({ "a.txt": "a\n", "lib/x.ts": "x = 1\n", "z.txt": "z\n" });
    const inner = subject.fs;
    // Right after the rename, another writer changes the moved file.
    const fs = new Proxy(inner, {
      get(target, key) {
        if (key === "move") {
          return async (...args: Parameters<FileSystem["move"]>) => {
            const result = await target.move(...args);
            await outside(target, "src/x.ts", "x = 100\n");
            return result;
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const kit = createToolkit({ fs, tools: [...TOOLS] });
    await readAll(kit, ["a.txt", "lib/x.ts", "z.txt"]);
    const input = patch(
      "*** Update File: a.txt",
      "@@",
      "-a",
      "+A",
      "*** Update File: lib/x.ts",
      "*** Move to: src/x.ts",
      "@@",
      "-x = 1",
      "+x = 2",
      "*** Delete File: z.txt",
    );
    const content = failed(await kit.call("apply_patch", { input }), "PATCH_PARTIALLY_APPLIED");
    expect(content.split("\n")[0]).toMatch(/^The patch was applied only in part: lib\/x.ts -> src\/x.ts was moved, but its edits were not written \(/);
    expect(content.split("\n").slice(1, 3)).toEqual(["Changed: a.txt (updated), lib/x.ts -> src/x.ts (moved).", "Not changed: z.txt."]);
    expect(await snapshot(inner)).toEqual({ "a.txt": "A\n", "lib/": null, "src/x.ts": "x = 100\n", "z.txt": "z\n" });
  });

  test("the ledger learns every new version: edit, write and a second patch need no new read", async () => {
    const { fs, kit, call } = setup({ "a.txt": "one\n", "b.txt": "bee\n", "c.txt": "sea\n" });
    await readAll(kit, ["a.txt", "b.txt", "c.txt"]);
    const first = patch("*** Update File: a.txt", "@@", "-one", "+two", "*** Update File: b.txt", "*** Move to: d/b.txt", "*** Delete File: c.txt");
    expect((await call("apply_patch", { input: first })).isError).toBe(false);
    expect((await call("edit", { path: "a.txt", old_string: "two", new_string: "three" })).isError).toBe(false);
    expect((await call("edit", { path: "d/b.txt", old_string: "bee", new_string: "bea" })).isError).toBe(false);
    expect((await call("write", { path: "c.txt", content: "new\n" })).isError).toBe(false);
    const second = patch("*** Update File: a.txt", "@@", "-three", "+four", "*** Delete File: d/b.txt");
    expect((await call("apply_patch", { input: second })).isError).toBe(false);
    expect(await snapshot(fs)).toEqual({ "a.txt": "four\n", "c.txt": "new\n", "d/": null });
  });

  test("Add File over a file and Move to onto one need that file read as it is now", async () => {
    const { fs, kit, call } = setup({ "a.txt": "old\n", "b.txt": "bee\n", "c.txt": "sea\n" });
    await readAll(kit, ["b.txt"]);
    const add = patch("*** Add File: a.txt", "+new");
    expect(failed(await call("apply_patch", { input: add }), "PATCH_REFUSED")).toContain('"a.txt" already exists (patch line 2)');
    const move = patch("*** Update File: b.txt", "*** Move to: c.txt");
    expect(failed(await call("apply_patch", { input: move }), "PATCH_REFUSED")).toContain('"c.txt" already exists (patch line 2)');
    await readAll(kit, ["a.txt", "c.txt"]);
    expect((await call("apply_patch", { input: add })).isError).toBe(false);
    expect((await call("apply_patch", { input: move })).isError).toBe(false);
    expect(await snapshot(fs)).toEqual({ "a.txt": "new\n", "c.txt": "bee\n" });
  });

  test("a destination the sandbox refuses refuses the whole patch before anything changes", async () => {
    const { fs, kit, call } = setup({ "a.txt": "one\n", ".git/HEAD": "ref\n" }, {});
    const sandboxed = createToolkit({ fs, tools: [...TOOLS], sandbox: { mode: "workspace-write" } });
    void kit;
    await readAll(sandboxed, ["a.txt", ".git/HEAD"]);
    const before = await snapshot(fs);
    const input = patch("*** Update File: a.txt", "@@", "-one", "+two", "*** Update File: .git/HEAD", "@@", "-ref", "+evil");
    const r = await sandboxed.call("apply_patch", { input });
    expect(failed(r, "FS_SANDBOX_DENIED")).toContain(".git");
    expect(await snapshot(fs)).toEqual(before);
    const out = await sandboxed.call("apply_patch", { input: patch("*** Add File: ../outside.txt", "+x") });
    expect(failed(out, "FS_SANDBOX_DENIED")).toContain("outside the writable roots");
    void call;
  });

  test("a patch the sandbox refused may be retried once with wider access the user approves, for that destination", async () => {
    const { fs } = setup({ "ws/a.txt": "one\n" });
    const asked: string[] = [];
    const kit = createToolkit({
      fs,
      workspace: `${fs.cwd}/ws`,
      tools: [...TOOLS],
      sandbox: { mode: "workspace-write", approve: async (request) => (asked.push(`${request.tool} ${request.path}`), "allowed-once") },
    });
    const input = patch("*** Add File: ../out.txt", "+out");
    const refused = failed(await kit.call("apply_patch", { input }), "FS_SANDBOX_DENIED");
    expect(refused).toContain("[escalation] If this write is necessary, retry this exact call once with sandbox_permissions");
    // Another patch may not ride on that refusal.
    const other = patch("*** Add File: ../other.txt", "+x");
    const wrong = await kit.call("apply_patch", { input: other, sandbox_permissions: "full-access", justification: "The user asked for it." });
    failed(wrong, "TOOL_INVALID_ARGUMENTS");
    expect((await kit.call("apply_patch", { input })).isError).toBe(true);
    const retried = await kit.call("apply_patch", { input, sandbox_permissions: "full-access", justification: "The user asked for out.txt." });
    expect(retried.isError, retried.content).toBe(false);
    expect(asked).toEqual([`apply_patch ${fs.cwd}/out.txt`]);
    expect(await snapshot(fs)).toEqual({ "out.txt": "out\n", "ws/a.txt": "one\n" });
  });

  test("a call's title names the files of its patch; the full title shows the patch", () => {
    const input = patch(
      "*** Update File: a.ts",
      "*** Move to: b.ts",
      "@@",
      "-x",
      "+y",
      "*** Delete File: c.ts",
      "*** Add File: d.ts",
      "+d",
      "*** Add File: e.ts",
      "+e",
    );
    const tool = builtinTool("apply_patch")!;
    expect(tool.title({ input }, true)).toBe("apply_patch: update a.ts -> b.ts, delete c.ts, add d.ts and 1 more");
    expect(tool.title({ input })).toBe(`apply_patch: update a.ts -> b.ts, delete c.ts, add d.ts and 1 more\n${input}`);
    expect(builtinTool("move")!.title({ from: "a", to: "b" })).toBe("move a to b");
    expect(builtinTool("delete")!.title({ path: "a" })).toBe("delete a");
    expect([tool.kind, builtinTool("delete")!.kind, builtinTool("move")!.kind]).toEqual(["edit", "delete", "move"]);
    expect(tool.traits).toMatchObject({ readOnly: false, destructive: true, idempotent: false, openWorld: false });
  });

  test("delete: a file only at the version read; a directory only when empty; nothing there is not found", async () => {
    const { fs, kit, call } = setup({ "a.txt": "a\n", "b.txt": "b\n", "full/x.txt": "x\n", "empty/.keep": "" });
    expect(failed(await call("delete", { path: "a.txt" }), "FS_NOT_OBSERVED")).toBe(
      'Cannot delete "a.txt": it has not been read in this session; read it first',
    );
    await readAll(kit, ["a.txt", "b.txt", "empty/.keep"]);
    await outside(fs, "b.txt", "changed\n");
    expect(failed(await call("delete", { path: "b.txt" }), "FS_STALE_VERSION")).toBe(
      'Cannot delete "b.txt": it changed since it was read; read it again, then retry',
    );
    expect(await call("delete", { path: "a.txt" })).toMatchObject({ isError: false, content: "Deleted a.txt (file).", meta: { path: "a.txt", type: "file" } });
    expect(failed(await call("delete", { path: "full" }), "FS_NOT_EMPTY")).toContain("the directory is not empty");
    expect((await call("delete", { path: "empty/.keep" })).isError).toBe(false);
    expect(await call("delete", { path: "empty" })).toMatchObject({ isError: false, content: "Deleted empty (directory)." });
    expect(failed(await call("delete", { path: "nothing.txt" }), "FS_NOT_FOUND")).toBe('Cannot delete "nothing.txt": nothing has that name');
    // A file deleted is known absent: write creates it again without a read.
    expect((await call("write", { path: "a.txt", content: "again\n" })).isError).toBe(false);
    expect(await snapshot(fs)).toEqual({ "a.txt": "again\n", "b.txt": "changed\n", "full/x.txt": "x\n" });
  });

  test("move: a file only at the version read, never onto an existing name; a directory without a read", async () => {
    const { fs, kit, call } = setup({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "dir/x.txt": "x\n" });
    expect(failed(await call("move", { from: "a.txt", to: "z.txt" }), "FS_NOT_OBSERVED")).toContain("read it first");
    await readAll(kit, ["a.txt", "b.txt"]);
    await outside(fs, "b.txt", "changed\n");
    expect(failed(await call("move", { from: "b.txt", to: "z.txt" }), "FS_STALE_VERSION")).toContain("changed since it was read");
    expect(failed(await call("move", { from: "a.txt", to: "c.txt" }), "FS_EXISTS")).toBe(
      'Cannot move "a.txt" to "c.txt": "c.txt" already exists; delete it first or choose another name',
    );
    expect(await call("move", { from: "a.txt", to: "new/a.txt" })).toMatchObject({
      isError: false,
      content: "Moved a.txt to new/a.txt (file).",
      meta: { from: "a.txt", to: "new/a.txt", type: "file" },
    });
    // The moved file's version is in the ledger: edit it at once.
    expect((await call("edit", { path: "new/a.txt", old_string: "a", new_string: "A" })).isError).toBe(false);
    expect(await call("move", { from: "dir", to: "moved" })).toMatchObject({ isError: false, content: "Moved dir to moved (directory)." });
    expect(await snapshot(fs)).toEqual({ "b.txt": "changed\n", "c.txt": "c\n", "moved/x.txt": "x\n", "new/a.txt": "A\n" });
  });

  test("delete and move are fenced by the sandbox", async () => {
    const { fs } = setup({ "a.txt": "a\n", ".git/HEAD": "ref\n" });
    const kit = createToolkit({ fs, tools: [...TOOLS], sandbox: { mode: "workspace-write" } });
    await readAll(kit, ["a.txt", ".git/HEAD"]);
    expect(failed(await kit.call("delete", { path: ".git/HEAD" }), "FS_SANDBOX_DENIED")).toContain("protected");
    expect(failed(await kit.call("move", { from: "a.txt", to: ".git/a.txt" }), "FS_SANDBOX_DENIED")).toContain("protected");
    expect(failed(await kit.call("move", { from: "a.txt", to: "../a.txt" }), "FS_SANDBOX_DENIED")).toContain("outside the writable roots");
    expect(await snapshot(fs)).toEqual({ ".git/HEAD": "ref\n", "a.txt": "a\n" });
  });
});
