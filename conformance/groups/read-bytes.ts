import { assertBytes, assertEquals, assertRejectsCode, assertThrowsType } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { pattern } from "../util.ts";

/** Bounded whole-file reads. */
export const readBytesGroup: ConformanceGroup = {
  name: "read-bytes",
  cases: [
    {
      name: "returns raw bytes, NUL and invalid UTF-8 included",
      async run({ provider, probe }) {
        const raw = Uint8Array.of(0x00, 0xff, 0xfe, 0x41, 0x0d, 0x0a, 0xc3);
        await probe.writeFile("raw.bin", raw);
        const { bytes } = await provider.readBytes(await provider.resolve("raw.bin"), { maxBytes: 100 });
        assertBytes(bytes, raw);
      },
    },
    {
      name: "a file exactly at the cap is read",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "12345");
        assertBytes((await provider.readBytes(await provider.resolve("a.txt"), { maxBytes: 5 })).bytes, "12345");
      },
    },
    {
      name: "a file one byte over the cap fails FS_TOO_LARGE",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "123456");
        await assertRejectsCode(provider.readBytes(await provider.resolve("a.txt"), { maxBytes: 5 }), "FS_TOO_LARGE");
      },
    },
    {
      name: "a cap of zero reads an empty file and refuses a one-byte file",
      async run({ provider, probe }) {
        await probe.writeFile("empty", "");
        await probe.writeFile("one", "1");
        assertEquals((await provider.readBytes(await provider.resolve("empty"), { maxBytes: 0 })).bytes.length, 0);
        await assertRejectsCode(provider.readBytes(await provider.resolve("one"), { maxBytes: 0 }), "FS_TOO_LARGE");
      },
    },
    {
      name: "a large file is read byte for byte",
      async run({ provider, probe }) {
        const content = pattern(3 * 1024 * 1024 + 5, 3);
        await probe.writeFile("big.bin", content);
        const { bytes } = await provider.readBytes(await provider.resolve("big.bin"), { maxBytes: 4 * 1024 * 1024 });
        assertBytes(bytes, content);
      },
    },
    {
      name: "the version read with the bytes equals stat's",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "x");
        const target = await provider.resolve("a.txt");
        const { version } = await provider.readBytes(target, { maxBytes: 10 });
        assertEquals(version, (await provider.stat(target))?.version);
      },
    },
    {
      name: "reading a missing file fails FS_NOT_FOUND and a directory FS_NOT_REGULAR_FILE",
      async run({ provider, probe }) {
        await probe.mkdir("d");
        await assertRejectsCode(provider.readBytes(await provider.resolve("nope"), { maxBytes: 10 }), "FS_NOT_FOUND");
        await assertRejectsCode(provider.readBytes(await provider.resolve("d"), { maxBytes: 10 }), "FS_NOT_REGULAR_FILE");
      },
    },
    {
      name: "a cap that is not a non-negative integer is a RangeError",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "x");
        const target = await provider.resolve("a.txt");
        for (const maxBytes of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
          await assertThrowsType(() => provider.readBytes(target, { maxBytes }), RangeError, `maxBytes ${maxBytes}`);
        }
      },
    },
  ],
};
