import { fixtureBytes, textEncodingsTree } from "../../fixtures/mod.ts";
import { assertBytes, assertEquals } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { sleep, utf8 } from "../util.ts";
import { excludes, fails, includes, ok, toolkit } from "./tools-support.ts";

const BOM = [0xef, 0xbb, 0xbf];

/** Edits one file through a fresh toolkit after reading it; returns the bytes on disk afterwards. */
async function editAfterRead(
  subject: Parameters<ConformanceGroup["cases"][number]["run"]>[0],
  content: string | Uint8Array,
  oldString: string,
  newString: string,
  replaceAll = false,
): Promise<Uint8Array | undefined> {
  await subject.probe.writeFile("f.txt", content);
  const kit = toolkit(subject);
  await ok(kit, "read", { path: "f.txt", limit: 1 });
  await ok(kit, "edit", { path: "f.txt", old_string: oldString, new_string: newString, replace_all: replaceAll });
  return subject.probe.readFile("f.txt");
}

/** The edit tool: exact replacement that keeps every byte outside the edited passage. */
export const toolsEditGroup: ConformanceGroup = {
  name: "tool-edit",
  cases: [
    {
      name: "an edit after a read applies and shows its diff",
      async run(subject) {
        await subject.probe.writeFile("a.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.ts" });
        const result = await ok(kit, "edit", { path: "a.ts", old_string: "const b = 2;", new_string: "const b = 20;" });
        includes(result.content, "Edited a.ts: replaced 1 occurrence at line 2 (+1 -1 lines).", "@@ -1,3 +1,3 @@", "-const b = 2;\n+const b = 20;");
        assertBytes(await subject.probe.readFile("a.ts"), "const a = 1;\nconst b = 20;\nconst c = 3;\n");
      },
    },
    {
      name: "a file with a 240-byte name (é × 120) can be written, read and edited",
      async run(subject) {
        const name = "é".repeat(120);
        const kit = toolkit(subject);
        await ok(kit, "write", { path: name, content: "one\ntwo\n" });
        await ok(kit, "read", { path: name });
        await ok(kit, "edit", { path: name, old_string: "two", new_string: "three" });
        assertBytes(await subject.probe.readFile(name), "one\nthree\n");
        assertEquals(await subject.probe.list("."), [name]);
      },
    },
    {
      name: "editing a file that was not read fails FS_NOT_OBSERVED",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "x\n");
        includes((await fails(toolkit(subject), "edit", { path: "a.txt", old_string: "x", new_string: "y" }, "FS_NOT_OBSERVED")).content, "read it first");
        assertBytes(await subject.probe.readFile("a.txt"), "x\n");
      },
    },
    {
      name: "a change made after the read fails FS_STALE_VERSION before any matching",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "original\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" });
        await sleep(subject.provider.capabilities.timestampResolutionMs + 5);
        await subject.probe.writeFile("a.txt", "changed outside\n");
        await fails(kit, "edit", { path: "a.txt", old_string: "original", new_string: "x" }, "FS_STALE_VERSION");
        assertBytes(await subject.probe.readFile("a.txt"), "changed outside\n");
      },
    },
    {
      name: "an ambiguous old_string fails FS_AMBIGUOUS_EDIT listing the lines",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "x = 1\ny = 2\nx = 1\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" });
        includes((await fails(kit, "edit", { path: "a.txt", old_string: "x = 1", new_string: "x = 3" }, "FS_AMBIGUOUS_EDIT")).content, "2 times", "lines 1, 3");
        assertBytes(await subject.probe.readFile("a.txt"), "x = 1\ny = 2\nx = 1\n");
      },
    },
    {
      name: "replace_all replaces every occurrence",
      async run(subject) {
        assertBytes(await editAfterRead(subject, "a-b-c\n", "-", "+", true), "a+b+c\n");
      },
    },
    {
      name: "a miss fails FS_EDIT_NOT_FOUND and points at a whitespace-only near match without applying it",
      async run(subject) {
        await subject.probe.writeFile("m.go", "func f() {\n\tif ok {\n\t\treturn\n\t}\n}\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "m.go" });
        const result = await fails(kit, "edit", { path: "m.go", old_string: "    if ok {\n        return", new_string: "x" }, "FS_EDIT_NOT_FOUND");
        includes(result.content, "lines 2-3", "tabs", "nothing was changed");
        assertBytes(await subject.probe.readFile("m.go"), "func f() {\n\tif ok {\n\t\treturn\n\t}\n}\n");
      },
    },
    {
      name: "identical or empty strings are argument errors",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "x\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" });
        await fails(kit, "edit", { path: "a.txt", old_string: "x", new_string: "x" }, "TOOL_INVALID_ARGUMENTS");
        await fails(kit, "edit", { path: "a.txt", old_string: "", new_string: "y" }, "TOOL_INVALID_ARGUMENTS");
      },
    },
    {
      name: "an LF old_string matches a CRLF file and the file stays CRLF",
      async run(subject) {
        assertBytes(await editAfterRead(subject, "one\r\ntwo\r\nthree\r\n", "one\ntwo", "1\n2"), "1\r\n2\r\nthree\r\n");
      },
    },
    {
      name: "mixed line endings outside the edit are kept byte for byte",
      async run(subject) {
        assertBytes(await editAfterRead(subject, "a\r\nb\nc\r\nd\n", "c", "C"), "a\r\nb\nC\r\nd\n");
      },
    },
    {
      name: "a byte-order mark is kept",
      async run(subject) {
        const bytes = await editAfterRead(subject, Uint8Array.of(...BOM, ...utf8("key=old\n")), "old", "new");
        assertBytes(bytes, Uint8Array.of(...BOM, ...utf8("key=new\n")));
      },
    },
    {
      name: "a missing final newline stays missing",
      async run(subject) {
        assertBytes(await editAfterRead(subject, "first\nlast", "first", "1st"), "1st\nlast");
      },
    },
    {
      name: "tabs and non-ASCII text around the edit are kept",
      async run(subject) {
        assertBytes(await editAfterRead(subject, "\tnaïve café ✓\n\t\tx = 1\n", "x = 1", "x = 2"), "\tnaïve café ✓\n\t\tx = 2\n");
      },
    },
    {
      name: "replacement text is literal: $& and friends stay as written",
      async run(subject) {
        assertBytes(await editAfterRead(subject, "price: 10\n", "10", "$& $1 $$"), "price: $& $1 $$\n");
      },
    },
    {
      name: "a one-line window authorizes an edit anywhere in the unchanged file",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "1\n2\n3\n4\n5\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt", offset: 1, limit: 1 });
        await ok(kit, "edit", { path: "a.txt", old_string: "5", new_string: "five" });
        assertBytes(await subject.probe.readFile("a.txt"), "1\n2\n3\n4\nfive\n");
      },
    },
    {
      name: "successive edits need no read in between",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "a b c\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" });
        for (const [from, to] of [
          ["a", "A"],
          ["b", "B"],
          ["c", "C"],
        ])
          await ok(kit, "edit", { path: "a.txt", old_string: from, new_string: to });
        assertBytes(await subject.probe.readFile("a.txt"), "A B C\n");
      },
    },
    {
      name: "editing a binary file fails FS_NOT_TEXT and leaves it",
      async run(subject) {
        const binary = Uint8Array.of(0x41, 0x00, 0x42, 0x0a);
        await subject.probe.writeFile("b.bin", binary);
        const kit = toolkit(subject, { policy: "none" });
        await fails(kit, "edit", { path: "b.bin", old_string: "A", new_string: "Z" }, "FS_NOT_TEXT");
        assertBytes(await subject.probe.readFile("b.bin"), binary);
      },
    },
    {
      name: "50 concurrent edits of one file by one actor all apply, none lost",
      async run(subject) {
        const initial = `${Array.from({ length: 50 }, (_, i) => `slot ${i}: empty`).join("\n")}\n`;
        await subject.probe.writeFile("race.txt", initial);
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "race.txt" });
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => kit.call("edit", { path: "race.txt", old_string: `slot ${i}: empty`, new_string: `slot ${i}: filled` })),
        );
        assertEquals(
          results.filter((r) => r.isError).map((r) => r.content),
          [],
        );
        const final = new TextDecoder().decode(await subject.probe.readFile("race.txt"));
        assertEquals((final.match(/filled/g) ?? []).length, 50, "every edit is in the file");
        assertEquals(final.split("\n").length, 51, "the file's shape is intact");
      },
    },
    {
      name: "edits round-trip every text fixture byte for byte outside the edited passage",
      async run(subject) {
        const kit = toolkit(subject);
        for (const file of textEncodingsTree.files) {
          if (file.kind !== "text" && file.kind !== "bom-text") continue;
          const bytes = fixtureBytes(file);
          const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
          const word = /[^\s\r\n]{2,}/.exec(text.replace(/^\uFEFF/, ""))?.[0];
          if (!word) continue;
          await subject.probe.writeFile(`fx/${file.path}`, bytes);
          await ok(kit, "read", { path: `fx/${file.path}` });
          const occurrences = text.split(word).length - 1;
          await ok(kit, "edit", { path: `fx/${file.path}`, old_string: word, new_string: `<${word}>`, replace_all: occurrences > 1 });
          assertBytes(await subject.probe.readFile(`fx/${file.path}`), utf8(text.replaceAll(word, `<${word}>`)), file.path);
        }
      },
    },
    {
      name: "a U+FEFF starting a later line is shown by read, so an edit copied from the output applies",
      async run(subject) {
        await subject.probe.writeFile("joined.txt", "\uFEFFhead\n\uFEFFsecond part\n");
        const kit = toolkit(subject);
        const read = await ok(kit, "read", { path: "joined.txt" });
        assertEquals(read.content.split("\n").slice(0, 2), ["1: head", "2: \uFEFFsecond part"]);
        const copied = read.content.split("\n")[1]!.slice("2: ".length);
        await ok(kit, "edit", { path: "joined.txt", old_string: copied, new_string: "\uFEFFsecond, edited" });
        assertBytes(await subject.probe.readFile("joined.txt"), "\uFEFFhead\n\uFEFFsecond, edited\n");
      },
    },
    {
      name: "the result reports the line of each replacement",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "x\nfoo\ny\nfoo\n");
        const kit = toolkit(subject);
        await ok(kit, "read", { path: "a.txt" });
        const result = await ok(kit, "edit", { path: "a.txt", old_string: "foo", new_string: "bar", replace_all: true });
        includes(result.content, "replaced 2 occurrences at lines 2, 4");
        assertEquals(result.meta.lines, [2, 4]);
        excludes(result.content, "\r");
      },
    },
  ],
};
