import type { FileSystem } from "../../core/mod.ts";
import { assertEquals } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { pattern, utf8 } from "../util.ts";
import { excludes, fails, includes, numbered, ok, toolkit } from "./tools-support.ts";

/** The read tool: windows, footers, caps and coded refusals. */
export const toolsReadGroup: ConformanceGroup = {
  name: "tool-read",
  cases: [
    {
      name: "numbered lines, a blank line, and the end-of-file footer",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "alpha\nbeta\n");
        const result = await ok(toolkit(subject), "read", { path: "a.txt" });
        assertEquals(result.content, "1: alpha\n2: beta\n\n(End of file: 2 lines.)");
        assertEquals(result.meta, { path: "a.txt", offset: 1, lines: 2, totalLines: 2, truncated: false });
      },
    },
    {
      name: "an empty file says it is empty",
      async run(subject) {
        await subject.probe.writeFile("empty.txt", "");
        const result = await ok(toolkit(subject), "read", { path: "empty.txt" });
        assertEquals(result.content, "(empty.txt is empty)");
        assertEquals(result.meta.totalLines, 0);
      },
    },
    {
      name: "offset and limit select a window and the footer names the next offset",
      async run(subject) {
        await subject.probe.writeFile("a.txt", numbered(10));
        const result = await ok(toolkit(subject), "read", { path: "a.txt", offset: 4, limit: 3 });
        assertEquals(result.content, "4: line 4\n5: line 5\n6: line 6\n\n(Lines 4-6 of 10. Continue with offset=7.)");
      },
    },
    {
      name: "the default window is 2000 lines",
      async run(subject) {
        await subject.probe.writeFile("big.txt", numbered(2500));
        const result = await ok(toolkit(subject), "read", { path: "big.txt" });
        includes(result.content, "1: line 1\n", "2000: line 2000\n", "(Lines 1-2000 of 2500. Continue with offset=2001.)");
        excludes(result.content, "2001: ");
      },
    },
    {
      name: "reading on from the footer's offset reaches the end of the file",
      async run(subject) {
        await subject.probe.writeFile("big.txt", numbered(2500));
        const result = await ok(toolkit(subject), "read", { path: "big.txt", offset: 2001 });
        includes(result.content, "2001: line 2001\n", "2500: line 2500\n", "(End of file: 2500 lines.)");
      },
    },
    {
      name: "a limit above 2000, or an offset or limit that is not a positive integer, is an argument error",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "x\n");
        const kit = toolkit(subject);
        for (const args of [{ limit: 2001 }, { offset: 0 }, { offset: -1 }, { offset: 1.5 }, { limit: 0 }, { offset: "2" }]) {
          await fails(kit, "read", { path: "a.txt", ...args }, "TOOL_INVALID_ARGUMENTS");
        }
      },
    },
    {
      name: "an offset past the end fails FS_NOT_FOUND and states the length",
      async run(subject) {
        await subject.probe.writeFile("a.txt", numbered(3));
        await subject.probe.writeFile("empty.txt", "");
        const kit = toolkit(subject);
        includes((await fails(kit, "read", { path: "a.txt", offset: 4 }, "FS_NOT_FOUND")).content, "3 lines");
        await ok(kit, "read", { path: "empty.txt", offset: 1 });
        await fails(kit, "read", { path: "empty.txt", offset: 2 }, "FS_NOT_FOUND");
      },
    },
    {
      name: "a line over 2000 characters is cut with a visible marker",
      async run(subject) {
        await subject.probe.writeFile("long.txt", `${"x".repeat(2500)}\nshort\n`);
        const result = await ok(toolkit(subject), "read", { path: "long.txt" });
        includes(result.content, `1: ${"x".repeat(2000)} … [cut at 2000 characters]\n2: short\n`);
      },
    },
    {
      name: "output is capped near 50 KiB with a footer naming the next offset, the total stays exact",
      async run(subject) {
        await subject.probe.writeFile("wide.txt", Array.from({ length: 300 }, (_, i) => `${i}`.padEnd(1000, "-")).join("\n"));
        const result = await ok(toolkit(subject), "read", { path: "wide.txt" });
        includes(result.content, "(Output capped at the byte limit: lines 1-51 of 300 shown. Continue with offset=52.)");
        assertEquals([result.meta.lines, result.meta.totalLines, result.meta.truncated], [51, 300, true]);
        assertEquals(utf8(result.content).length < 54 * 1024, true);
      },
    },
    {
      name: "CRLF files read as clean lines and a byte-order mark is not shown",
      async run(subject) {
        await subject.probe.writeFile("crlf.txt", Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8("one\r\ntwo\r\n")));
        const result = await ok(toolkit(subject), "read", { path: "crlf.txt" });
        assertEquals(result.content, "1: one\n2: two\n\n(End of file: 2 lines.)");
        assertEquals(result.meta.bom, true);
      },
    },
    {
      name: "a directory fails FS_NOT_REGULAR_FILE with a next step",
      async run(subject) {
        await subject.probe.mkdir("dir");
        includes((await fails(toolkit(subject), "read", { path: "dir" }, "FS_NOT_REGULAR_FILE")).content, "directory");
      },
    },
    {
      name: "binary, invalid UTF-8 and UTF-16 files fail FS_NOT_TEXT",
      async run(subject) {
        await subject.probe.writeFile("image.png", Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13));
        await subject.probe.writeFile("latin1.txt", Uint8Array.of(0x63, 0x61, 0x66, 0xe9, 0x0a));
        await subject.probe.writeFile("utf16.txt", Uint8Array.of(0xff, 0xfe, 0x61, 0x00));
        const kit = toolkit(subject);
        includes((await fails(kit, "read", { path: "image.png" }, "FS_NOT_TEXT")).content, "binary");
        includes((await fails(kit, "read", { path: "latin1.txt" }, "FS_NOT_TEXT")).content, "UTF-8");
        includes((await fails(kit, "read", { path: "utf16.txt" }, "FS_NOT_TEXT")).content, "UTF-16");
      },
    },
    {
      name: "a missing file fails FS_NOT_FOUND and names up to three similar siblings",
      async run(subject) {
        for (const name of ["README.md", "readme.txt", "main.ts", "unrelated.json", "readme.markdown"]) {
          await subject.probe.writeFile(`docs/${name}`, "x");
        }
        const result = await fails(toolkit(subject), "read", { path: "docs/readme.md" }, "FS_NOT_FOUND");
        includes(result.content, 'similar names in docs: "README.md", "readme.markdown", "readme.txt"');
        excludes(result.content, "unrelated.json", "main.ts");
      },
    },
    {
      name: "a missing file without similar names gets no suggestions",
      async run(subject) {
        await subject.probe.writeFile("zzz.txt", "x");
        const result = await fails(toolkit(subject), "read", { path: "alpha.md" }, "FS_NOT_FOUND");
        excludes(result.content, "similar");
      },
    },
    {
      name: "tab-indented windows carry a note about tabs",
      async run(subject) {
        await subject.probe.writeFile("tabs.go", "func f() {\n\treturn\n}\n");
        await subject.probe.writeFile("spaces.py", "def f():\n    return\n");
        const kit = toolkit(subject);
        includes((await ok(kit, "read", { path: "tabs.go" })).content, "2: \treturn\n", "uses tabs");
        excludes((await ok(kit, "read", { path: "spaces.py" })).content, "tabs");
      },
    },
    {
      name: "a read makes exactly one metadata probe",
      async run(subject) {
        await subject.probe.writeFile("a.txt", numbered(5));
        const counts: Record<string, number> = {};
        const counted = countingProvider(subject.provider, counts);
        const kit = toolkit({ ...subject, provider: counted });
        await ok(kit, "read", { path: "a.txt" });
        assertEquals(counts, { resolve: 1, readStream: 1 });
      },
    },
    {
      name: "the last window of a multi-megabyte file is exact",
      async run(subject) {
        await subject.probe.writeFile("log.txt", numbered(300_000, "row"));
        const result = await ok(toolkit(subject), "read", { path: "log.txt", offset: 299_998 });
        assertEquals(result.content, "299998: row 299998\n299999: row 299999\n300000: row 300000\n\n(End of file: 300000 lines.)");
      },
    },
    {
      name: "invalid bytes outside the window do not stop the read",
      async run(subject) {
        await subject.probe.writeFile("mixed.txt", Uint8Array.of(...utf8("fine\n"), 0xff, 0x0a, ...utf8("also fine\n")));
        const kit = toolkit(subject);
        assertEquals((await ok(kit, "read", { path: "mixed.txt", offset: 3 })).content, "3: also fine\n\n(End of file: 3 lines.)");
        await fails(kit, "read", { path: "mixed.txt" }, "FS_NOT_TEXT");
      },
    },
    {
      name: "line numbers stay right across chunk boundaries",
      async run(subject) {
        const lines = Array.from(
          { length: 3000 },
          (_, i) =>
            `${i + 1}:${pattern(40, i + 1)
              .map((b) => 97 + (b % 26))
              .join(",")}`,
        );
        await subject.probe.writeFile("chunks.txt", `${lines.join("\n")}\n`);
        const result = await ok(toolkit(subject), "read", { path: "chunks.txt", offset: 1500, limit: 2 });
        assertEquals(result.content.split("\n").slice(0, 2), [`1500: ${lines[1499]}`, `1501: ${lines[1500]}`]);
      },
    },
  ],
};

// Wraps a provider and counts calls of each seam method.
function countingProvider(fs: FileSystem, counts: Record<string, number>): FileSystem {
  const bump = (name: string) => void (counts[name] = (counts[name] ?? 0) + 1);
  return {
    capabilities: fs.capabilities,
    cwd: fs.cwd,
    resolve: (...a) => (bump("resolve"), fs.resolve(...a)),
    stat: (...a) => (bump("stat"), fs.stat(...a)),
    lstat: (...a) => (bump("lstat"), fs.lstat(...a)),
    readBytes: (...a) => (bump("readBytes"), fs.readBytes(...a)),
    readStream: (...a) => (bump("readStream"), fs.readStream(...a)),
    listDir: (...a) => (bump("listDir"), fs.listDir(...a)),
    write: (...a) => (bump("write"), fs.write(...a)),
    remove: (...a) => (bump("remove"), fs.remove(...a)),
    move: (...a) => (bump("move"), fs.move(...a)),
    mkdir: (...a) => (bump("mkdir"), fs.mkdir(...a)),
    contains: (...a) => fs.contains(...a),
  };
}
