import { assertBytes, assertEquals, assertRejectsCode, assertThrowsType } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { collect, pattern, utf8 } from "../util.ts";

/** Streaming reads. */
export const readGroup: ConformanceGroup = {
  name: "read",
  cases: [
    {
      name: "the streamed chunks concatenate to the file's bytes",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "line one\nline two\n");
        assertBytes(await collect(await provider.readStream(await provider.resolve("a.txt"))), "line one\nline two\n");
      },
    },
    {
      name: "a multi-chunk file streams byte for byte",
      async run({ provider, probe }) {
        const content = pattern((1 << 20) + 123);
        await probe.writeFile("big.bin", content);
        const stream = await provider.readStream(await provider.resolve("big.bin"), { chunkSize: 64 * 1024 });
        assertBytes(await collect(stream), content);
      },
    },
    {
      name: "with reuseBuffer, each chunk still carries the next bytes of the file",
      async run({ provider, probe }) {
        const content = pattern((1 << 20) + 123);
        await probe.writeFile("big.bin", content);
        const stream = await provider.readStream(await provider.resolve("big.bin"), { chunkSize: 64 * 1024, reuseBuffer: true });
        assertBytes(await collect(stream), content);
      },
    },
    {
      name: "chunks never exceed the requested chunk size",
      async run({ provider, probe }) {
        await probe.writeFile("a.bin", pattern(1000));
        const stream = await provider.readStream(await provider.resolve("a.bin"), { chunkSize: 7 });
        for await (const chunk of stream) {
          if (chunk.length > 7) throw new Error(`chunk of ${chunk.length} bytes`);
        }
      },
    },
    {
      name: "the stream reports the file's metadata with the same version as stat",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "12345");
        const target = await provider.resolve("a.txt");
        const stream = await provider.readStream(target);
        await stream.close();
        assertEquals(stream.info.type, "file");
        assertEquals(stream.info.size, 5);
        assertEquals(stream.info.version, (await provider.stat(target))?.version);
      },
    },
    {
      name: "an empty file streams no bytes",
      async run({ provider, probe }) {
        await probe.writeFile("empty", "");
        assertEquals((await collect(await provider.readStream(await provider.resolve("empty")))).length, 0);
      },
    },
    {
      name: "streaming a missing file fails FS_NOT_FOUND",
      async run({ provider }) {
        await assertRejectsCode(provider.readStream(await provider.resolve("missing.txt")), "FS_NOT_FOUND");
      },
    },
    {
      name: "streaming a directory fails FS_NOT_REGULAR_FILE",
      async run({ provider, probe }) {
        await probe.mkdir("d");
        await assertRejectsCode(provider.readStream(await provider.resolve("d")), "FS_NOT_REGULAR_FILE");
      },
    },
    {
      name: "a stream opened before a replacement keeps reading the old bytes",
      async run({ provider, probe }) {
        const old = pattern(300_000, 7);
        await probe.writeFile("a.bin", old);
        const target = await provider.resolve("a.bin");
        const stream = await provider.readStream(target, { chunkSize: 100_000 });
        const parts: Uint8Array[] = [];
        let replaced = false;
        for await (const chunk of stream) {
          parts.push(chunk.slice());
          if (!replaced) {
            replaced = true;
            await provider.write(target, pattern(250_000, 9));
          }
        }
        const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let at = 0;
        for (const part of parts) {
          joined.set(part, at);
          at += part.length;
        }
        assertBytes(joined, old, "the stream's bytes");
        assertBytes(await probe.readFile("a.bin"), pattern(250_000, 9), "the file afterwards");
      },
    },
    {
      name: "closing a stream early is allowed and idempotent",
      async run({ provider, probe }) {
        await probe.writeFile("a.bin", pattern(10_000));
        const target = await provider.resolve("a.bin");
        const stream = await provider.readStream(target, { chunkSize: 1000 });
        for await (const _chunk of stream) break;
        await stream.close();
        await stream.close();
        await provider.write(target, utf8("after"));
        assertBytes(await probe.readFile("a.bin"), "after");
      },
    },
    {
      name: "a chunk size that is not a positive integer is a RangeError",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "x");
        const target = await provider.resolve("a.txt");
        await assertThrowsType(() => provider.readStream(target, { chunkSize: 0 }), RangeError);
        await assertThrowsType(() => provider.readStream(target, { chunkSize: 1.5 }), RangeError);
      },
    },
  ],
};
