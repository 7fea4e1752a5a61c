import { assertBytes, assertEquals } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { needsSymlinks } from "../util.ts";
import { excludes, fails, includes, ok, toolkit } from "./tools-support.ts";

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
      name: "one actor's parallel edits of different lines after one read all apply",
      async run(subject) {
        await subject.probe.writeFile("f.txt", "alpha\nbeta\ngamma\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "f.txt" });
        const results = await Promise.all([
          kit.call("edit", { path: "f.txt", old_string: "alpha", new_string: "ALPHA" }),
          kit.call("edit", { path: "f.txt", old_string: "beta", new_string: "BETA" }),
          kit.call("edit", { path: "f.txt", old_string: "gamma", new_string: "GAMMA" }),
        ]);
        assertEquals(
          results.map((r) => [r.isError, r.content.split("\n")[0]]),
          [
            [false, "Edited f.txt: replaced 1 occurrence at line 1 (+1 -1 lines)."],
            [false, "Edited f.txt: replaced 1 occurrence at line 2 (+1 -1 lines)."],
            [false, "Edited f.txt: replaced 1 occurrence at line 3 (+1 -1 lines)."],
          ],
        );
        assertBytes(await subject.probe.readFile("f.txt"), "ALPHA\nBETA\nGAMMA\n");
      },
    },
    {
      name: "one actor's parallel calls on one file apply in arrival order, each after the one before",
      async run(subject) {
        await subject.probe.writeFile("f.txt", "one\n");
        const kit = toolkit(subject, { sandbox: { mode: "workspace-write" } });
        const [read, first, second, write, reread] = await Promise.all([
          kit.call("read", { path: "f.txt" }),
          kit.call("edit", { path: "f.txt", old_string: "one", new_string: "two" }),
          kit.call("edit", { path: "./f.txt", old_string: "two", new_string: "three" }),
          kit.call("write", { path: "f.txt", content: "four\n" }),
          kit.call("read", { path: `${subject.probe.root}/f.txt` }),
        ]);
        for (const result of [read, first, second, write, reread]) assertEquals(result.isError, false, result.content);
        includes(read.content, "1: one");
        includes(reread.content, "1: four");
        assertBytes(await subject.probe.readFile("f.txt"), "four\n");
      },
    },
    {
      name: "parallel edits of one actor through an alias queue with the direct path",
      skip: needsSymlinks,
      async run(subject) {
        await subject.probe.writeFile("f.txt", "a\nb\n");
        await subject.probe.symlink("f.txt", "link.txt");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "link.txt" });
        const results = await Promise.all([
          kit.call("edit", { path: "link.txt", old_string: "a", new_string: "A" }),
          kit.call("edit", { path: "f.txt", old_string: "b", new_string: "B" }),
        ]);
        assertEquals(
          results.map((r) => r.isError),
          [false, false],
        );
        assertBytes(await subject.probe.readFile("f.txt"), "A\nB\n");
      },
    },
    {
      name: "parallel edits by two actors: one applies, the other fails the guard naming the path as successes do",
      async run(subject) {
        await subject.probe.writeFile("f.txt", "alpha\nbeta\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "f.txt" }, { actor: "alice" });
        await ok(kit, "read", { path: "f.txt" }, { actor: "bob" });
        const results = await Promise.all([
          kit.call("edit", { path: "f.txt", old_string: "alpha", new_string: "ALICE" }, { actor: "alice" }),
          kit.call("edit", { path: "f.txt", old_string: "beta", new_string: "BOB" }, { actor: "bob" }),
        ]);
        const refused = results.filter((r) => r.isError);
        assertEquals(
          refused.map((r) => r.error?.code),
          ["FS_STALE_VERSION"],
        );
        includes(refused[0]!.content, 'Cannot edit "f.txt": it changed since it was read');
        excludes(refused[0]!.content, subject.probe.root);
        const text = new TextDecoder().decode(await subject.probe.readFile("f.txt"));
        assertEquals([text === "ALICE\nbeta\n", text === "alpha\nBOB\n"].filter(Boolean).length, 1, text);
      },
    },
    {
      name: "a change by someone else between the read and parallel edits fails every one of them",
      async run(subject) {
        await subject.probe.writeFile("f.txt", "alpha\nbeta\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "f.txt" });
        await subject.probe.writeFile("f.txt", "alpha\nbeta\nmore\n");
        const results = await Promise.all([
          kit.call("edit", { path: "f.txt", old_string: "alpha", new_string: "A" }),
          kit.call("edit", { path: "f.txt", old_string: "beta", new_string: "B" }),
        ]);
        assertEquals(
          results.map((r) => r.error?.code),
          ["FS_STALE_VERSION", "FS_STALE_VERSION"],
        );
        assertBytes(await subject.probe.readFile("f.txt"), "alpha\nbeta\nmore\n");
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
