import { assertBytes, assertEquals } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { sleep, utf8 } from "../util.ts";
import { excludes, fails, includes, numbered, ok, toolkit } from "./tools-support.ts";

const BOM = [0xef, 0xbb, 0xbf];

/** The write tool: creation, guarded replacement, and what a replacement keeps. */
export const toolsWriteGroup: ConformanceGroup = {
  name: "tool-write",
  cases: [
    {
      name: "creates a new file with exactly the given bytes",
      async run(subject) {
        const result = await ok(toolkit(subject), "write", { path: "new.txt", content: "héllo\r\nworld" });
        assertEquals(result.content, "Created new.txt (2 lines, 13 bytes).");
        assertBytes(await subject.probe.readFile("new.txt"), "héllo\r\nworld");
      },
    },
    {
      name: "creates missing parent directories",
      async run(subject) {
        await ok(toolkit(subject), "write", { path: "a/b/c.txt", content: "deep\n" });
        assertBytes(await subject.probe.readFile("a/b/c.txt"), "deep\n");
      },
    },
    {
      name: "empty content makes an empty file",
      async run(subject) {
        await ok(toolkit(subject), "write", { path: "empty.txt", content: "" });
        assertEquals((await subject.probe.info("empty.txt"))?.size, 0);
      },
    },
    {
      name: "replacing a file that was not read fails FS_NOT_OBSERVED and leaves it",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "theirs\n");
        const result = await fails(toolkit(subject), "write", { path: "a.txt", content: "mine\n" }, "FS_NOT_OBSERVED");
        includes(result.content, "read it first");
        assertBytes(await subject.probe.readFile("a.txt"), "theirs\n");
      },
    },
    {
      name: "replacing a file after reading it succeeds and shows a diff",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "one\ntwo\nthree\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" });
        const result = await ok(kit, "write", { path: "a.txt", content: "one\n2\nthree\n" });
        includes(result.content, "Updated a.txt: +1 -1 lines.", "--- a.txt", "+++ a.txt", "-two\n+2");
        assertBytes(await subject.probe.readFile("a.txt"), "one\n2\nthree\n");
      },
    },
    {
      name: "a change made after the read fails FS_STALE_VERSION; reading again allows the write",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "v1\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" });
        await sleep(subject.provider.capabilities.timestampResolutionMs + 5);
        await subject.probe.writeFile("a.txt", "v2 from outside\n");
        includes((await fails(kit, "write", { path: "a.txt", content: "mine\n" }, "FS_STALE_VERSION")).content, "read it again");
        assertBytes(await subject.probe.readFile("a.txt"), "v2 from outside\n");
        await ok(kit, "read", { path: "a.txt" });
        await ok(kit, "write", { path: "a.txt", content: "mine\n" });
        assertBytes(await subject.probe.readFile("a.txt"), "mine\n");
      },
    },
    {
      name: "replacing a CRLF file with LF content keeps CRLF line endings",
      async run(subject) {
        await subject.probe.writeFile("win.txt", "a\r\nb\r\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "win.txt" });
        includes((await ok(kit, "write", { path: "win.txt", content: "x\ny\nz\n" })).content, "Kept the file's CRLF line endings");
        assertBytes(await subject.probe.readFile("win.txt"), "x\r\ny\r\nz\r\n");
      },
    },
    {
      name: "replacing a file that has a byte-order mark keeps the mark",
      async run(subject) {
        await subject.probe.writeFile("bom.txt", Uint8Array.of(...BOM, ...utf8("old\n")));
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "bom.txt" });
        await ok(kit, "write", { path: "bom.txt", content: "new\n" });
        assertBytes(await subject.probe.readFile("bom.txt"), Uint8Array.of(...BOM, ...utf8("new\n")));
      },
    },
    {
      name: "a new file is written verbatim: no byte-order mark added, line endings as given",
      async run(subject) {
        await ok(toolkit(subject), "write", { path: "as-given.txt", content: "a\r\nb\nc" });
        assertBytes(await subject.probe.readFile("as-given.txt"), "a\r\nb\nc");
      },
    },
    {
      name: "a written file can be edited without reading it again",
      async run(subject) {
        const kit = toolkit(subject);
        await ok(kit, "write", { path: "a.txt", content: "hello world\n" });
        await ok(kit, "edit", { path: "a.txt", old_string: "world", new_string: "there" });
        assertBytes(await subject.probe.readFile("a.txt"), "hello there\n");
      },
    },
    {
      name: "writing onto a directory fails FS_NOT_REGULAR_FILE",
      async run(subject) {
        await subject.probe.mkdir("dir");
        await fails(toolkit(subject, { policy: "none" }), "write", { path: "dir", content: "x" }, "FS_NOT_REGULAR_FILE");
      },
    },
    {
      name: "a large change shows a cut diff",
      async run(subject) {
        await subject.probe.writeFile("a.txt", numbered(2000));
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt", limit: 1 });
        const result = await ok(kit, "write", { path: "a.txt", content: numbered(2000, "changed") });
        includes(result.content, "+2000 -2000 lines", "… diff cut here:");
        assertEquals(utf8(result.content).length < 9 * 1024, true);
      },
    },
    {
      name: "a change too large to match line by line is one block, and says so",
      async run(subject) {
        // The same lines in reverse order: matching them would take millions of comparisons.
        const lines = Array.from({ length: 3000 }, (_, i) => `line ${i}`);
        await subject.probe.writeFile("a.txt", `${lines.join("\n")}\n`);
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt", limit: 1 });
        const result = await ok(kit, "write", { path: "a.txt", content: `${lines.toReversed().join("\n")}\n` });
        includes(result.content, "+3000 -3000 lines, shown as one block (too different to match line by line).", "@@ -1,3000 +1,3000 @@\n-line 0\n");
        assertEquals(result.meta.coarse, true);
      },
    },
    {
      name: "rewriting identical content says so",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "same\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" });
        assertEquals((await ok(kit, "write", { path: "a.txt", content: "same\n" })).content, "Rewrote a.txt with identical content.");
      },
    },
    {
      name: "content is literal: $& and friends stay as written",
      async run(subject) {
        await ok(toolkit(subject), "write", { path: "d.txt", content: "$& $1 $$ $' $`" });
        assertBytes(await subject.probe.readFile("d.txt"), "$& $1 $$ $' $`");
      },
    },
    {
      name: "a path outside the workspace is shown absolute",
      async run(subject) {
        const outside = `${subject.probe.outside}/x.txt`;
        const result = await ok(toolkit(subject), "write", { path: outside, content: "x" });
        assertEquals(result.content, `Created ${outside} (1 line, 1 byte).`);
        excludes(result.content, "..");
      },
    },
  ],
};
