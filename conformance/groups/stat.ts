import { assert, assertEquals, assertNotEquals } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { sleep, under, utf8 } from "../util.ts";

/** Metadata and the version token. */
export const statGroup: ConformanceGroup = {
  name: "stat",
  cases: [
    {
      name: "a file reports its type, byte size, modification time and a version",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "héllo");
        await probe.setMtime("a.txt", 1_700_000_000_125);
        const info = await provider.stat(await provider.resolve("a.txt"));
        assertEquals(info?.type, "file");
        assertEquals(info?.size, 6);
        assertEquals(Math.floor(info?.mtimeMs ?? 0), 1_700_000_000_125);
        assert(typeof info?.version === "string" && info.version.length > 0, "a non-empty version");
      },
    },
    {
      name: "a directory reports type directory",
      async run({ provider, probe }) {
        await probe.mkdir("d");
        assertEquals((await provider.stat(await provider.resolve("d")))?.type, "directory");
      },
    },
    {
      name: "a missing path stats as undefined",
      async run({ provider }) {
        assertEquals(await provider.stat(await provider.resolve("nope.txt")), undefined);
      },
    },
    {
      name: "an empty file has size 0",
      async run({ provider, probe }) {
        await probe.writeFile("empty", "");
        assertEquals((await provider.stat(await provider.resolve("empty")))?.size, 0);
      },
    },
    {
      name: "the version is stable while nothing changes",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "x");
        const target = await provider.resolve("a.txt");
        const first = await provider.stat(target);
        await sleep(5);
        assertEquals((await provider.stat(target))?.version, first?.version);
      },
    },
    {
      name: "same-size rewrites within one millisecond each change the version",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "0000");
        const target = await provider.resolve("a.txt");
        const versions = new Set([(await provider.stat(target))?.version]);
        for (const content of ["1111", "2222", "1111", "2222"]) {
          const { version } = await provider.write(target, utf8(content));
          versions.add(version);
        }
        assertEquals(versions.size, 5, "five distinct versions");
      },
    },
    {
      name: "an outside in-place rewrite of the same size that restores the mtime changes the version",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "aaaa");
        await probe.setMtime("a.txt", 1_700_000_000_000);
        const target = await provider.resolve("a.txt");
        const before = await provider.stat(target);
        // Let the change time move past the backend's timestamp resolution, as any real later write would.
        await sleep(provider.capabilities.timestampResolutionMs + 20);
        await probe.writeFile("a.txt", "bbbb");
        await probe.setMtime("a.txt", 1_700_000_000_000);
        const after = await provider.stat(target);
        assertEquals(after?.size, before?.size);
        assertEquals(after?.mtimeMs, before?.mtimeMs);
        assertNotEquals(after?.version, before?.version, "the version after the rewrite");
      },
    },
    {
      name: "an outside replacement by rename changes the version",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "aaaa");
        const target = await provider.resolve("a.txt");
        const before = await provider.stat(target);
        await probe.writeFile("b.txt", "aaaa");
        await probe.rename("b.txt", "a.txt");
        assertNotEquals((await provider.stat(target))?.version, before?.version);
      },
    },
    {
      name: "the version returned by a write equals a fresh stat",
      async run({ provider }) {
        const target = await provider.resolve("a.txt");
        const result = await provider.write(target, utf8("content"));
        assertEquals((await provider.stat(target))?.version, result.version);
      },
    },
    {
      name: "lstat reports a file, a directory, and undefined for a missing path",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "abc");
        await probe.mkdir("d");
        assertEquals((await provider.lstat("a.txt"))?.type, "file");
        assertEquals((await provider.lstat("a.txt"))?.size, 3);
        assertEquals((await provider.lstat("d"))?.type, "directory");
        assertEquals(await provider.lstat("missing"), undefined);
      },
    },
    {
      name: "lstat resolves a relative path against options.cwd",
      async run({ provider, probe }) {
        await probe.writeFile("sub/a.txt", "abc");
        assertEquals((await provider.lstat("a.txt", { cwd: under(probe.root, "sub") }))?.type, "file");
        assertEquals(await provider.lstat("a.txt"), undefined);
      },
    },
  ],
};
