import { decodeText, isFsError, TextStreamDecoder } from "../../core/mod.ts";
import { fixtureBytes, seedTree, textEncodingsTree } from "../../fixtures/mod.ts";
import { assertBytes, assertEquals, assertRejectsCode } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { utf8 } from "../util.ts";

const BOM = [0xef, 0xbb, 0xbf];

/** Bytes survive the seam exactly; core's text decoding behaves the same over every backend. */
export const encodingGroup: ConformanceGroup = {
  name: "encoding",
  cases: [
    {
      name: "every file of the text-encodings fixture round-trips through write and readBytes",
      async run({ provider, probe }) {
        for (const file of textEncodingsTree.files) {
          const bytes = fixtureBytes(file);
          const target = await provider.resolve(`copy/${file.path}`);
          await provider.write(target, bytes);
          assertBytes(await probe.readFile(`copy/${file.path}`), bytes, file.path);
          assertBytes((await provider.readBytes(target, { maxBytes: 1000 })).bytes, bytes, file.path);
        }
      },
    },
    {
      name: "core's decoder classifies each seeded fixture file the same on every backend",
      async run({ provider, probe }) {
        await seedTree(probe, textEncodingsTree, "fixture");
        const kinds: Record<string, string> = {};
        const expected: Record<string, string> = {};
        for (const file of textEncodingsTree.files) {
          expected[file.path] = file.kind ?? "text";
          const { bytes } = await provider.readBytes(await provider.resolve(`fixture/${file.path}`), { maxBytes: 1000 });
          try {
            kinds[file.path] = decodeText(bytes).bom ? "bom-text" : "text";
          } catch (error) {
            const reason = isFsError(error, "FS_NOT_TEXT") ? error.details.reason : error;
            kinds[file.path] = reason === "binary" ? "binary" : reason === "invalid-utf8" || reason === "utf-16" ? "invalid-utf8" : String(reason);
          }
        }
        assertEquals(kinds, expected);
      },
    },
    {
      name: "CRLF, lone CR and mixed line endings round-trip byte for byte",
      async run({ provider, probe }) {
        const content = utf8("a\r\nb\nc\rd\r\n\r\ne");
        const target = await provider.resolve("eol.txt");
        await provider.write(target, content);
        assertBytes(await probe.readFile("eol.txt"), content);
        assertBytes((await provider.readBytes(target, { maxBytes: 100 })).bytes, content);
      },
    },
    {
      name: "a UTF-8 byte-order mark round-trips",
      async run({ provider, probe }) {
        const content = Uint8Array.of(...BOM, ...utf8("bom\n"));
        await provider.write(await provider.resolve("bom.txt"), content);
        assertBytes(await probe.readFile("bom.txt"), content);
      },
    },
    {
      name: "invalid UTF-8 and NUL bytes round-trip",
      async run({ provider, probe }) {
        const content = Uint8Array.of(0xff, 0x00, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x00);
        await provider.write(await provider.resolve("raw.bin"), content);
        assertBytes(await probe.readFile("raw.bin"), content);
      },
    },
    {
      name: "non-ASCII and punctuated names resolve, list and write",
      async run({ provider, probe }) {
        const names = ["日本語.txt", "a b#c%d.txt", "quote'\"s.md", "ünïcödé"];
        for (const name of names) await provider.write(await provider.resolve(`dir/${name}`), utf8(name));
        for (const name of names) assertBytes(await probe.readFile(`dir/${name}`), name);
        assertEquals(
          (await provider.listDir(await provider.resolve("dir"))).map((e) => e.name),
          [...names].sort(byUtf8),
        );
      },
    },
    {
      name: "names differing only in Unicode normalization stay distinct",
      async run({ provider, probe }) {
        await provider.write(await provider.resolve("caf\u00e9"), utf8("nfc"));
        await provider.write(await provider.resolve("cafe\u0301"), utf8("nfd"));
        assertBytes(await probe.readFile("caf\u00e9"), "nfc");
        assertBytes(await probe.readFile("cafe\u0301"), "nfd");
      },
    },
    {
      name: "decoding a read removes and reports the byte-order mark",
      async run({ provider, probe }) {
        await probe.writeFile("bom.txt", Uint8Array.of(...BOM, ...utf8("héllo")));
        const { bytes } = await provider.readBytes(await provider.resolve("bom.txt"), { maxBytes: 100 });
        assertEquals(decodeText(bytes), { text: "héllo", bom: true });
      },
    },
    {
      name: "decoding invalid UTF-8 fails FS_NOT_TEXT",
      async run({ provider, probe }) {
        await probe.writeFile("bad.txt", Uint8Array.of(0x61, 0xff, 0x62));
        const { bytes } = await provider.readBytes(await provider.resolve("bad.txt"), { maxBytes: 100 });
        await assertRejectsCode(async () => decodeText(bytes), "FS_NOT_TEXT");
      },
    },
    {
      name: "a NUL in the first 8 KiB makes a file binary; a later NUL does not",
      async run({ provider, probe }) {
        const early = new Uint8Array(100).fill(0x61);
        early[50] = 0;
        const late = new Uint8Array(9000).fill(0x61);
        late[8500] = 0;
        await probe.writeFile("early", early);
        await probe.writeFile("late", late);
        const read = async (name: string) => (await provider.readBytes(await provider.resolve(name), { maxBytes: 10_000 })).bytes;
        const earlyBytes = await read("early");
        await assertRejectsCode(async () => decodeText(earlyBytes), "FS_NOT_TEXT");
        assertEquals(decodeText(await read("late")).text.length, 9000);
      },
    },
    {
      name: "streamed text decodes characters split across chunks",
      async run({ provider, probe }) {
        const source = "añ€😀\r\nz".repeat(50);
        await probe.writeFile("split.txt", source);
        const stream = await provider.readStream(await provider.resolve("split.txt"), { chunkSize: 3 });
        const decoder = new TextStreamDecoder();
        let out = "";
        for await (const chunk of stream) out += decoder.push(chunk);
        out += decoder.end();
        assertEquals(out, source);
      },
    },
  ],
};

function byUtf8(a: string, b: string): number {
  const x = utf8(a);
  const y = utf8(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return x.length - y.length;
}
