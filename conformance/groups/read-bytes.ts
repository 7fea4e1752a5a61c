import { isFsError } from "../../core/mod.ts";
import { assert, assertBytes, assertEquals, assertRejectsCode, assertThrowsType } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { pattern } from "../util.ts";

const GROW_CAP = 4096;
const GROW_READS = 400;

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
      name: `a file rewritten past the cap while it is read ${GROW_READS} times: never more than the cap, FS_TOO_LARGE otherwise`,
      async run({ provider, probe }, { rounds }) {
        const reads = rounds(GROW_READS);
        // A writer alternates a file under the cap with one four times over it, so some reads find it grown
        // after their stat (on a disk, FS_TOO_LARGE without a size); outcomes are counted, never timed.
        const short = new Uint8Array(GROW_CAP - 10).fill(0x61);
        const long = new Uint8Array(GROW_CAP * 4).fill(0x62);
        await probe.writeFile("g.bin", short);
        const target = await provider.resolve("g.bin");
        let running = true;
        const writer = (async () => {
          for (let i = 1; running; i++) {
            await probe.writeFile("g.bin", i % 2 === 1 ? long : short);
            // 0 to 22 quiet steps, in a fixed cycle, so that an in-memory backend meets the writer at every phase.
            for (let quiet = (i * 7) % 23; quiet > 0; quiet--) await Promise.resolve();
          }
        })();
        const outcomes: Record<string, number> = {};
        try {
          for (let i = 0; i < reads; i++) {
            const outcome = await provider.readBytes(target, { maxBytes: GROW_CAP }).then(
              ({ bytes }) => {
                assert(bytes.length <= GROW_CAP, `read ${i} returned ${bytes.length} bytes, past the cap of ${GROW_CAP}`);
                // The probe rewrites in place (truncate, then write), which no reader can see atomically: a read
                // that meets a rewrite mid-page may hold the start of one version and the rest of the next. So the
                // bytes are checked to be the writer's own, not one version's prefix; the cap is the claim here.
                const foreign = bytes.findIndex((byte) => byte !== 0x61 && byte !== 0x62);
                assert(foreign === -1, `read ${i} returned a byte the writer never wrote, at ${foreign}`);
                return "read";
              },
              (error: unknown) => {
                if (!isFsError(error, "FS_TOO_LARGE")) throw error;
                return error.details.size === undefined ? "grew while read" : "too large at stat";
              },
            );
            outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
          }
        } finally {
          running = false;
          await writer;
        }
        assertEquals(
          Object.values(outcomes).reduce((a, b) => a + b, 0),
          reads,
          JSON.stringify(outcomes),
        );
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
