import { FsError, type FsTarget } from "../../core/mod.ts";
import { assert, assertBytes, assertEquals, assertRejectsCode } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { needsFileModes, pattern, text, under, utf8 } from "../util.ts";

// Rewrites a concurrent reader races (scaled by the run's stress factor).
const REWRITES = 200;

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Atomic publication, the fence hook, and what a write leaves behind. */
export const writeGroup: ConformanceGroup = {
  name: "write",
  cases: [
    {
      name: "an unguarded write creates a missing file",
      async run({ provider, probe }) {
        const result = await provider.write(await provider.resolve("a.txt"), utf8("new"));
        assertEquals(result.operation, "create");
        assertBytes(await probe.readFile("a.txt"), "new");
      },
    },
    {
      name: "an unguarded write replaces an existing file",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "old content that is longer");
        const result = await provider.write(await provider.resolve("a.txt"), utf8("new"));
        assertEquals(result.operation, "update");
        assertBytes(await probe.readFile("a.txt"), "new");
      },
    },
    {
      name: "missing parent directories are created",
      async run({ provider, probe }) {
        await provider.write(await provider.resolve("x/y/z.txt"), utf8("deep"));
        assertBytes(await probe.readFile("x/y/z.txt"), "deep");
      },
    },
    {
      name: "empty content makes an empty file",
      async run({ provider, probe }) {
        await provider.write(await provider.resolve("empty"), new Uint8Array(0));
        assertEquals((await probe.info("empty"))?.size, 0);
      },
    },
    {
      name: "large content is published byte for byte",
      async run({ provider, probe }) {
        const content = pattern(4 * 1024 * 1024 + 17, 11);
        await provider.write(await provider.resolve("big.bin"), content);
        assertBytes(await probe.readFile("big.bin"), content);
      },
    },
    {
      name: "a write without the durability flush still publishes whole bytes, and nothing staged remains",
      async run({ provider, probe }) {
        await probe.writeFile("d/a.txt", "old");
        const content = pattern(200_000, 5);
        const result = await provider.write(await provider.resolve("d/a.txt"), content, { durable: false });
        assertEquals(result.operation, "update");
        assertBytes(await probe.readFile("d/a.txt"), content);
        assertEquals(await probe.list("d"), ["a.txt"]);
      },
    },
    {
      name: "a streamed write publishes every chunk in order, and nothing before the stream ends",
      async run({ provider, probe }) {
        await probe.writeFile("s.bin", "old");
        const parts = [pattern(70_000, 3), new Uint8Array(0), pattern(1_500_000, 4), pattern(9, 5)];
        let seenMidway: Uint8Array | undefined;
        async function* source(): AsyncGenerator<Uint8Array> {
          for (const [i, part] of parts.entries()) {
            if (i === 2) seenMidway = await probe.readFile("s.bin");
            yield part;
          }
        }
        const result = await provider.write(await provider.resolve("s.bin"), source());
        assertEquals(result.operation, "update");
        assertBytes(seenMidway, "old");
        assertBytes(await probe.readFile("s.bin"), concat(parts));
        assertEquals(await probe.list("."), ["s.bin"]);
      },
    },
    {
      name: "a stream that fails publishes nothing and leaves nothing staged",
      async run({ provider, probe }) {
        await probe.writeFile("d/s.txt", "old");
        async function* source(): AsyncGenerator<Uint8Array> {
          yield utf8("partial ");
          throw new Error("the producer broke");
        }
        const error = await provider.write(await provider.resolve("d/s.txt"), source()).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert(error !== undefined, "the write must fail when its source fails");
        assertBytes(await probe.readFile("d/s.txt"), "old");
        assertEquals(await probe.list("d"), ["s.txt"]);
      },
    },
    {
      name: "a refused streamed write closes its source",
      async run({ provider, probe }) {
        await probe.writeFile("s.txt", "exists");
        async function* source(): AsyncGenerator<Uint8Array> {
          yield utf8("new");
        }
        const stream = source();
        await assertRejectsCode(provider.write(await provider.resolve("s.txt"), stream, { guard: { kind: "createIfAbsent" } }), "FS_NOT_OBSERVED");
        assertEquals((await stream.next()).done, true, "the write must close the stream it was given");
        assertBytes(await probe.readFile("s.txt"), "exists");
      },
    },
    {
      name: "the result names the canonical destination",
      async run({ provider, probe }) {
        await probe.mkdir("sub");
        const result = await provider.write(await provider.resolve("sub/../a.txt"), utf8("x"));
        assertEquals(result.target.key, under(probe.root, "a.txt"));
      },
    },
    {
      name: "nothing is left beside the file after a write",
      async run({ provider, probe }) {
        const target = await provider.resolve("d/a.txt");
        await provider.write(target, utf8("one"));
        await provider.write(target, utf8("two"));
        assertEquals(await probe.list("d"), ["a.txt"]);
      },
    },
    {
      name: "the new bytes are not visible at the destination before publication",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "old");
        const seen: string[] = [];
        await provider.write(await provider.resolve("a.txt"), utf8("new"), {
          fence: async () => void seen.push(text(await probe.readFile("a.txt"))),
        });
        assert(seen.length > 0, "the fence ran");
        assertEquals([...new Set(seen)], ["old"]);
        assertBytes(await probe.readFile("a.txt"), "new");
      },
    },
    {
      name: "the fence receives the canonical destination and display path",
      async run({ provider, probe }) {
        await probe.mkdir("sub");
        const calls: FsTarget[] = [];
        await provider.write(await provider.resolve("sub/../a.txt"), utf8("x"), { fence: (t) => void calls.push(t) });
        assert(calls.length > 0, "the fence ran");
        for (const call of calls) {
          assertEquals(call.key, under(probe.root, "a.txt"));
          assertEquals(call.displayPath, under(probe.root, "a.txt"));
        }
      },
    },
    {
      name: "a fence refusal publishes nothing and creates no directory",
      async run({ provider, probe }) {
        const deny = (): never => {
          throw new FsError("FS_SANDBOX_DENIED", "denied by the test fence");
        };
        await assertRejectsCode(provider.write(await provider.resolve("newdir/a.txt"), utf8("x"), { fence: deny }), "FS_SANDBOX_DENIED");
        assertEquals(await probe.info("newdir"), undefined);
        assertEquals(await probe.list("."), []);
      },
    },
    {
      name: "a refusal at the last fence check leaves the old bytes and no staging leftovers",
      async run({ provider, probe }) {
        await probe.writeFile("d/a.txt", "old");
        let calls = 0;
        const fence = (): void => {
          calls += 1;
          if (calls > 1) throw new FsError("FS_SANDBOX_DENIED", "denied at publication");
        };
        await assertRejectsCode(provider.write(await provider.resolve("d/a.txt"), utf8("new"), { fence }), "FS_SANDBOX_DENIED");
        assertBytes(await probe.readFile("d/a.txt"), "old");
        assertEquals(await probe.list("d"), ["a.txt"]);
      },
    },
    {
      name: "files staged during publication are owner-only",
      skip: needsFileModes,
      async run({ provider, probe }) {
        await probe.writeFile("d/a.txt", "old");
        const staged: { name: string; mode: number }[] = [];
        await provider.write(await provider.resolve("d/a.txt"), utf8("new"), {
          fence: async () => {
            for (const name of await probe.list("d")) {
              const info = await probe.info(`d/${name}`);
              if (name !== "a.txt" && info?.type === "file") staged.push({ name, mode: info.mode });
            }
          },
        });
        // Publication stages beside the destination: a case that saw nothing staged proved nothing.
        assert(staged.length > 0, "a staged file beside the destination while the fence ran");
        for (const { name, mode } of staged) assertEquals(mode & 0o077, 0, `${name}: mode ${mode.toString(8)}`);
      },
    },
    {
      name: "a name of 240 bytes (é × 120) is created and replaced under guards like any other",
      async run({ provider, probe }) {
        const name = "é".repeat(120);
        const target = await provider.resolve(name);
        const created = await provider.write(target, utf8("one\n"), { guard: { kind: "createIfAbsent" } });
        const updated = await provider.write(target, utf8("two\n"), { guard: { kind: "replaceIfVersion", version: created.version } });
        assertEquals(updated.operation, "update");
        assertBytes(await probe.readFile(name), "two\n");
        assertEquals(await probe.list("."), [name]);
      },
    },
    {
      name: "a private write makes an owner-only file in owner-only new folders",
      skip: needsFileModes,
      async run({ provider, probe }) {
        await provider.write(await provider.resolve("p/q/a.txt"), utf8("secret"), { private: true, guard: { kind: "createIfAbsent" } });
        assertEquals((await probe.info("p"))?.mode, 0o700, "new folder p");
        assertEquals((await probe.info("p/q"))?.mode, 0o700, "new folder q");
        assertEquals((await probe.info("p/q/a.txt"))?.mode, 0o600, "the file");
      },
    },
    {
      name: "a private write refuses a folder other users can write to, and a replacement keeps its mode",
      skip: needsFileModes,
      async run({ provider, probe }) {
        await probe.mkdir("shared");
        await probe.chmod("shared", 0o777);
        await assertRejectsCode(provider.write(await provider.resolve("shared/a.txt"), utf8("secret"), { private: true }), "FS_PERMISSION_DENIED");
        assertEquals(await probe.list("shared"), []);
        await probe.writeFile("own/a.txt", "old");
        await probe.chmod("own", 0o700);
        await probe.chmod("own/a.txt", 0o640);
        await provider.write(await provider.resolve("own/a.txt"), utf8("new"), { private: true });
        assertEquals((await probe.info("own/a.txt"))?.mode, 0o640);
      },
    },
    {
      name: "a replacement keeps the file's permission bits",
      skip: needsFileModes,
      async run({ provider, probe }) {
        await probe.writeFile("a.sh", "old");
        await probe.chmod("a.sh", 0o750);
        await provider.write(await provider.resolve("a.sh"), utf8("new"));
        assertEquals((await probe.info("a.sh"))?.mode, 0o750);
      },
    },
    {
      name: `a concurrent reader during ${REWRITES} rewrites only sees whole old or new bytes`,
      async run({ provider, probe }, { rounds }) {
        const a = pattern(70_000, 21);
        const b = pattern(30_000, 22);
        await probe.writeFile("a.bin", a);
        const target = await provider.resolve("a.bin");
        let done = false;
        let reads = 0;
        let torn: string | undefined;
        const reader = (async () => {
          while (!done && torn === undefined) {
            const { bytes } = await provider.readBytes(target, { maxBytes: 100_000 });
            reads++;
            const same = (x: Uint8Array) => x.length === bytes.length && x.every((v, i) => v === bytes[i]);
            if (!same(a) && !same(b)) torn = `read ${reads} saw ${bytes.length} bytes that are neither version`;
          }
        })();
        try {
          for (let i = 0, n = rounds(REWRITES); i < n && torn === undefined; i++) await provider.write(target, i % 2 === 0 ? b : a);
        } finally {
          done = true;
          await reader;
        }
        assert(torn === undefined, torn ?? "");
        assert(reads > 1, "the reader ran during the rewrites");
      },
    },
    {
      name: "concurrent unguarded writes to one file apply in call order",
      async run({ provider, probe }) {
        const target = await provider.resolve("a.txt");
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => provider.write(target, utf8(`writer ${i}`))));
        assertEquals(new Set(results.map((r) => r.version)).size, 20, "distinct versions");
        assertBytes(await probe.readFile("a.txt"), "writer 19");
      },
    },
  ],
};
