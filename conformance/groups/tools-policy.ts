import { assertBytes, assertEquals } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { fails, includes, ok, toolkit } from "./tools-support.ts";

/** Read-before-write: what a read authorizes, for whom, and how a session recovers. */
export const toolsPolicyGroup: ConformanceGroup = {
  name: "tool-policy",
  cases: [
    {
      name: "the recovery chain: deleted after read, stale, read records absence, write recreates",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "v1\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" });
        await subject.probe.remove("a.txt");
        await fails(kit, "edit", { path: "a.txt", old_string: "v1", new_string: "v2" }, "FS_STALE_VERSION");
        await fails(kit, "write", { path: "a.txt", content: "v2\n" }, "FS_STALE_VERSION");
        await fails(kit, "read", { path: "a.txt" }, "FS_NOT_FOUND");
        includes((await fails(kit, "edit", { path: "a.txt", old_string: "v1", new_string: "v2" }, "FS_NOT_FOUND")).content, "write");
        await ok(kit, "write", { path: "a.txt", content: "recreated\n" });
        assertBytes(await subject.probe.readFile("a.txt"), "recreated\n");
      },
    },
    {
      name: "after a read finds nothing, a file someone else creates meanwhile is kept",
      async run(subject) {
        const kit = toolkit(subject);
        await fails(kit, "read", { path: "a.txt" }, "FS_NOT_FOUND");
        await subject.probe.writeFile("a.txt", "theirs\n");
        await fails(kit, "write", { path: "a.txt", content: "mine\n" }, "FS_NOT_OBSERVED");
        assertBytes(await subject.probe.readFile("a.txt"), "theirs\n");
      },
    },
    {
      name: "one actor's read does not authorize another actor",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "shared\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" }, { actor: "alice" });
        await fails(kit, "edit", { path: "a.txt", old_string: "shared", new_string: "bob" }, "FS_NOT_OBSERVED", { actor: "bob" });
        await fails(kit, "write", { path: "a.txt", content: "bob\n" }, "FS_NOT_OBSERVED", { actor: "bob" });
        await ok(kit, "edit", { path: "a.txt", old_string: "shared", new_string: "alice" }, { actor: "alice" });
      },
    },
    {
      name: "each actor keeps its own version",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "base\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" }, { actor: "alice" });
        await ok(kit, "read", { path: "a.txt" }, { actor: "bob" });
        await ok(kit, "edit", { path: "a.txt", old_string: "base", new_string: "alice" }, { actor: "alice" });
        await fails(kit, "edit", { path: "a.txt", old_string: "base", new_string: "bob" }, "FS_STALE_VERSION", { actor: "bob" });
      },
    },
    {
      name: "without the policy, writes and edits need no read",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "old\n");
        const kit = toolkit(subject, { policy: "none" });
        await ok(kit, "edit", { path: "a.txt", old_string: "old", new_string: "edited" });
        await ok(kit, "write", { path: "a.txt", content: "overwritten\n" });
        assertBytes(await subject.probe.readFile("a.txt"), "overwritten\n");
        await fails(kit, "edit", { path: "missing.txt", old_string: "a", new_string: "b" }, "FS_STALE_VERSION");
      },
    },
    {
      name: "reading through the provider directly authorizes nothing",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "x\n");
        await subject.provider.readBytes(await subject.provider.resolve("a.txt"), { maxBytes: 10 });
        await fails(toolkit(subject), "edit", { path: "a.txt", old_string: "x", new_string: "y" }, "FS_NOT_OBSERVED");
      },
    },
    {
      name: "observations go present, absent and present again",
      async run(subject) {
        const kit = toolkit(subject);
        await subject.probe.writeFile("a.txt", "one\n");
        await ok(kit, "read", { path: "a.txt" });
        await subject.probe.remove("a.txt");
        await fails(kit, "read", { path: "a.txt" }, "FS_NOT_FOUND");
        await subject.probe.writeFile("a.txt", "two\n");
        await fails(kit, "edit", { path: "a.txt", old_string: "two", new_string: "2" }, "FS_NOT_FOUND");
        await ok(kit, "read", { path: "a.txt" });
        await ok(kit, "edit", { path: "a.txt", old_string: "two", new_string: "2" });
        assertBytes(await subject.probe.readFile("a.txt"), "2\n");
      },
    },
    {
      name: "an alias path shares the observation of the file it points to",
      async run(subject) {
        await subject.probe.writeFile("dir/a.txt", "x\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "dir/../dir/a.txt" });
        await ok(kit, "edit", { path: "./dir/a.txt", old_string: "x", new_string: "y" });
        assertBytes(await subject.probe.readFile("dir/a.txt"), "y\n");
      },
    },
    {
      name: "relative paths resolve against the call's cwd",
      async run(subject) {
        await subject.probe.writeFile("sub/a.txt", "in sub\n");
        const kit = toolkit(subject);
        const cwd = `${subject.probe.root}/sub`;
        assertEquals((await ok(kit, "read", { path: "a.txt" }, { cwd })).meta.path, "sub/a.txt");
        await ok(kit, "write", { path: "b.txt", content: "new\n" }, { cwd });
        assertBytes(await subject.probe.readFile("sub/b.txt"), "new\n");
      },
    },
  ],
};
