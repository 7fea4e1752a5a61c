// apply_patch, delete and move on every subject: the patch checked whole before anything changes, each file's
// conventions kept, the read-before-write rule for every file touched, the sandbox, and the guard tables of the
// small tools.
import type { Toolkit } from "../../core/mod.ts";
import { assertBytes, assertEquals } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceGroup } from "../suite.ts";
import { needsSymlinks, sleep } from "../util.ts";
import { fails, includes, ok, toolkit } from "./tools-support.ts";

const TOOLS = ["read", "write", "edit", "apply_patch", "delete", "move"] as const;
const kit = (subject: Subject, options?: Parameters<typeof toolkit>[1]): Toolkit => toolkit(subject, { tools: [...TOOLS], ...options });
const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

async function readAll(k: Toolkit, ...paths: string[]): Promise<void> {
  for (const path of paths) await ok(k, "read", { path });
}

// Changes `path` behind the toolkit's back, late enough that its version differs from the one read.
async function changeOutside(subject: Subject, path: string, content: string): Promise<void> {
  await sleep(subject.provider.capabilities.timestampResolutionMs + 5);
  await subject.probe.writeFile(path, content);
}

export const toolsPatchGroup: ConformanceGroup = {
  name: "tool-patch",
  cases: [
    {
      name: "apply_patch updates and adds files after reads, keeping CRLF, the BOM and a missing final newline",
      async run(subject) {
        await subject.probe.writeFile("crlf.txt", "one\r\ntwo\r\n");
        await subject.probe.writeFile("bom.ts", "\uFEFFconst a = 1;");
        const k = kit(subject);
        await readAll(k, "crlf.txt", "bom.ts");
        const input = patch(
          "*** Update File: crlf.txt",
          "@@",
          " one",
          "-two",
          "+2",
          "*** Update File: bom.ts",
          "@@",
          "-const a = 1;",
          "+const a = 2;",
          "*** Add File: new/dir/c.md",
          "+# c",
        );
        const result = await ok(k, "apply_patch", { input });
        includes(result.content, "Applied the patch: 3 files changed.", "M crlf.txt (+1 -1)", "M bom.ts (+1 -1)", "A new/dir/c.md (+1 -0)");
        assertEquals(
          (result.meta.files as { path: string; operation: string }[]).map((f) => `${f.operation} ${f.path}`),
          ["update crlf.txt", "update bom.ts", "add new/dir/c.md"],
        );
        assertBytes(await subject.probe.readFile("crlf.txt"), "one\r\n2\r\n");
        assertBytes(await subject.probe.readFile("bom.ts"), "\uFEFFconst a = 2;");
        assertBytes(await subject.probe.readFile("new/dir/c.md"), "# c\n");
        // The ledger has the new versions: an edit needs no new read.
        await ok(k, "edit", { path: "crlf.txt", old_string: "2", new_string: "two" });
      },
    },
    {
      name: "a file not read, or changed since its read, refuses the whole patch by name; nothing changes",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "a\n");
        await subject.probe.writeFile("b.txt", "b\n");
        await subject.probe.writeFile("c.txt", "c\n");
        const k = kit(subject);
        await readAll(k, "a.txt", "b.txt");
        const input = patch("*** Update File: a.txt", "@@", "-a", "+A", "*** Update File: b.txt", "@@", "-b", "+B", "*** Update File: c.txt", "@@", "-c", "+C");
        includes((await fails(k, "apply_patch", { input }, "PATCH_REFUSED")).content, '"c.txt" has not been read in this session; read it first');
        await readAll(k, "c.txt");
        await changeOutside(subject, "b.txt", "b\nmore\n");
        const refused = await fails(k, "apply_patch", { input }, "PATCH_REFUSED");
        assertEquals(refused.content, 'The patch was not applied; nothing was changed: "b.txt" changed since it was read; read it again (patch line 6)');
        assertBytes(await subject.probe.readFile("a.txt"), "a\n");
        assertBytes(await subject.probe.readFile("b.txt"), "b\nmore\n");
        assertBytes(await subject.probe.readFile("c.txt"), "c\n");
      },
    },
    {
      name: "a hunk that does not fit refuses the whole patch with its line; Add File over an unread file is refused",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "a\n");
        await subject.probe.writeFile("b.txt", "b\n");
        const k = kit(subject);
        await readAll(k, "a.txt");
        const input = patch("*** Update File: a.txt", "@@", "-a", "+A", "*** Update File: a.txt", "@@", "-x", "+y", "*** Add File: b.txt", "+new");
        const content = (await fails(k, "apply_patch", { input }, "PATCH_REFUSED")).content;
        includes(content, "named by two operations (patch lines 2 and 6)", '"b.txt" already exists (patch line 10)');
        assertBytes(await subject.probe.readFile("a.txt"), "a\n");
        await fails(k, "apply_patch", { input: "*** Begin Patch\n*** Frobnicate: a.txt\n*** End Patch" }, "PATCH_INVALID");
      },
    },
    {
      name: "under the sandbox a protected destination refuses the whole patch before anything changes",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "a\n");
        await subject.probe.writeFile(".git/HEAD", "ref\n");
        const k = kit(subject, { sandbox: { mode: "workspace-write" } });
        await readAll(k, "a.txt", ".git/HEAD");
        const input = patch("*** Update File: a.txt", "@@", "-a", "+A", "*** Update File: .git/HEAD", "@@", "-ref", "+evil");
        includes((await fails(k, "apply_patch", { input }, "FS_SANDBOX_DENIED")).content, "nothing was changed", ".git");
        assertBytes(await subject.probe.readFile("a.txt"), "a\n");
        assertBytes(await subject.probe.readFile(".git/HEAD"), "ref\n");
      },
    },
    {
      name: "apply_patch refuses to delete or move a symbolic link before anything changes; an update edits its target",
      skip: needsSymlinks,
      async run(subject) {
        await subject.probe.writeFile("target.txt", "t\n");
        await subject.probe.writeFile("a.txt", "a\n");
        await subject.probe.symlink("target.txt", "link.txt");
        const k = kit(subject);
        await readAll(k, "a.txt", "link.txt");
        const input = patch("*** Update File: a.txt", "@@", "-a", "+A", "*** Delete File: link.txt");
        const refused = await fails(k, "apply_patch", { input }, "PATCH_REFUSED");
        includes(refused.content, '"link.txt" is a symbolic link; apply_patch deletes files only, not links (patch line 6)');
        const moved = await fails(k, "apply_patch", { input: patch("*** Update File: link.txt", "*** Move to: moved.txt") }, "PATCH_REFUSED");
        includes(moved.content, '"link.txt" is a symbolic link; apply_patch moves files only');
        assertBytes(await subject.probe.readFile("a.txt"), "a\n");
        await ok(k, "apply_patch", { input: patch("*** Update File: link.txt", "@@", "-t", "+T") });
        assertBytes(await subject.probe.readFile("target.txt"), "T\n");
        assertEquals((await subject.probe.info("link.txt"))?.type, "symlink");
      },
    },
    {
      name: "apply_patch deletes and moves with edits in one patch, and the ledger follows",
      async run(subject) {
        await subject.probe.writeFile("old.txt", "gone\n");
        await subject.probe.writeFile("lib/x.ts", "export const x = 1;\n");
        const k = kit(subject);
        await readAll(k, "old.txt", "lib/x.ts");
        const input = patch(
          "*** Delete File: old.txt",
          "*** Update File: lib/x.ts",
          "*** Move to: src/x.ts",
          "@@",
          "-export const x = 1;",
          "+export const x = 2;",
        );
        const result = await ok(k, "apply_patch", { input });
        includes(result.content, "D old.txt (+0 -1)", "R lib/x.ts -> src/x.ts (+1 -1)");
        assertEquals(await subject.probe.readFile("old.txt"), undefined);
        assertEquals(await subject.probe.readFile("lib/x.ts"), undefined);
        assertBytes(await subject.probe.readFile("src/x.ts"), "export const x = 2;\n");
        await ok(k, "edit", { path: "src/x.ts", old_string: "2", new_string: "3" });
        await ok(k, "write", { path: "old.txt", content: "back\n" });
        assertBytes(await subject.probe.readFile("old.txt"), "back\n");
      },
    },
    {
      name: "delete: unread FS_NOT_OBSERVED, changed FS_STALE_VERSION, read succeeds; a directory only when empty",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "a\n");
        await subject.probe.writeFile("full/x.txt", "x\n");
        await subject.probe.mkdir("empty");
        const k = kit(subject);
        await fails(k, "delete", { path: "a.txt" }, "FS_NOT_OBSERVED");
        await readAll(k, "a.txt");
        await changeOutside(subject, "a.txt", "changed\n");
        await fails(k, "delete", { path: "a.txt" }, "FS_STALE_VERSION");
        assertBytes(await subject.probe.readFile("a.txt"), "changed\n");
        await readAll(k, "a.txt");
        assertEquals((await ok(k, "delete", { path: "a.txt" })).content, "Deleted a.txt (file).");
        assertEquals(await subject.probe.readFile("a.txt"), undefined);
        await fails(k, "delete", { path: "full" }, "FS_NOT_EMPTY");
        assertEquals((await ok(k, "delete", { path: "empty" })).content, "Deleted empty (directory).");
        await fails(k, "delete", { path: "a.txt" }, "FS_NOT_FOUND");
      },
    },
    {
      name: "delete removes a symbolic link itself, without a read; its target stays",
      skip: needsSymlinks,
      async run(subject) {
        await subject.probe.writeFile("target.txt", "t\n");
        await subject.probe.symlink("target.txt", "link.txt");
        const k = kit(subject);
        assertEquals((await ok(k, "delete", { path: "link.txt" })).content, "Deleted link.txt (symbolic link).");
        assertEquals(await subject.probe.list("."), ["target.txt"]);
      },
    },
    {
      name: "move: a file only at the version read, never onto an existing name; a directory without a read",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "a\n");
        await subject.probe.writeFile("b.txt", "b\n");
        await subject.probe.writeFile("dir/x.txt", "x\n");
        const k = kit(subject);
        await fails(k, "move", { from: "a.txt", to: "c.txt" }, "FS_NOT_OBSERVED");
        await readAll(k, "a.txt");
        await fails(k, "move", { from: "a.txt", to: "b.txt" }, "FS_EXISTS");
        await changeOutside(subject, "a.txt", "changed\n");
        await fails(k, "move", { from: "a.txt", to: "c.txt" }, "FS_STALE_VERSION");
        await readAll(k, "a.txt");
        await ok(k, "move", { from: "a.txt", to: "deep/c.txt" });
        await ok(k, "edit", { path: "deep/c.txt", old_string: "changed", new_string: "moved" });
        await ok(k, "move", { from: "dir", to: "deep/dir" });
        assertEquals(await subject.probe.list("."), ["b.txt", "deep"]);
        assertEquals(await subject.probe.list("deep"), ["c.txt", "dir"]);
        assertBytes(await subject.probe.readFile("deep/c.txt"), "moved\n");
        assertBytes(await subject.probe.readFile("deep/dir/x.txt"), "x\n");
      },
    },
    {
      name: "delete and move are fenced: a protected name is refused and nothing changes",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "a\n");
        await subject.probe.writeFile(".git/HEAD", "ref\n");
        const k = kit(subject, { sandbox: { mode: "workspace-write" } });
        await readAll(k, "a.txt", ".git/HEAD");
        await fails(k, "delete", { path: ".git/HEAD" }, "FS_SANDBOX_DENIED");
        await fails(k, "move", { from: "a.txt", to: ".git/a.txt" }, "FS_SANDBOX_DENIED");
        assertBytes(await subject.probe.readFile("a.txt"), "a\n");
        assertBytes(await subject.probe.readFile(".git/HEAD"), "ref\n");
      },
    },
  ],
};
