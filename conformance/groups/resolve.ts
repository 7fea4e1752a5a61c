import { assert, assertEquals, assertThrowsType } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { under, utf8 } from "../util.ts";

/** Path resolution: cwd handling, lexical display paths, canonical keys and containment. */
export const resolveGroup: ConformanceGroup = {
  name: "resolve",
  cases: [
    {
      name: "a relative path resolves against the provider's cwd",
      async run({ provider, probe }) {
        const target = await provider.resolve("a.txt");
        assertEquals(target.displayPath, under(probe.root, "a.txt"));
        assertEquals(target.key, under(probe.root, "a.txt"));
        assertEquals(provider.cwd, probe.root);
      },
    },
    {
      name: "a relative path resolves against options.cwd when given",
      async run({ provider, probe }) {
        await probe.mkdir("sub");
        const target = await provider.resolve("a.txt", { cwd: under(probe.root, "sub") });
        assertEquals(target.displayPath, under(probe.root, "sub/a.txt"));
      },
    },
    {
      name: "an absolute path ignores the cwd",
      async run({ provider, probe }) {
        await probe.mkdir("sub");
        const target = await provider.resolve(under(probe.root, "x.txt"), { cwd: under(probe.root, "sub") });
        assertEquals(target.displayPath, under(probe.root, "x.txt"));
      },
    },
    {
      name: "dot segments, repeated and trailing slashes collapse lexically in the display path",
      async run({ provider, probe }) {
        await probe.mkdir("sub");
        assertEquals((await provider.resolve("sub/../a.txt")).displayPath, under(probe.root, "a.txt"));
        assertEquals((await provider.resolve("./sub//")).displayPath, under(probe.root, "sub"));
        assertEquals((await provider.resolve(".")).displayPath, probe.root);
      },
    },
    {
      name: "every spelling of an existing file shares one key",
      async run({ provider, probe }) {
        await probe.mkdir("sub");
        await probe.writeFile("a.txt", "x");
        const keys = new Set<string>();
        for (const spelling of ["a.txt", "./a.txt", "sub/../a.txt", under(probe.root, "a.txt"), `${probe.root}//a.txt`]) {
          keys.add((await provider.resolve(spelling)).key);
        }
        assertEquals([...keys], [under(probe.root, "a.txt")]);
      },
    },
    {
      name: "a missing file's key is the key it has once created",
      async run({ provider }) {
        const before = await provider.resolve("later.txt");
        await provider.write(before, utf8("now"));
        const after = await provider.resolve("later.txt");
        assertEquals(after.key, before.key);
      },
    },
    {
      name: "a file under missing directories keeps its key across their creation",
      async run({ provider, probe }) {
        const before = await provider.resolve("new/deeper/f.txt");
        assertEquals(before.key, under(probe.root, "new/deeper/f.txt"));
        await provider.write(before, utf8("x"));
        assertEquals((await provider.resolve("new/deeper/f.txt")).key, before.key);
        assertEquals((await probe.info("new/deeper"))?.type, "directory");
      },
    },
    {
      name: "contains is true for the directory itself and its descendants",
      async run({ provider, probe }) {
        await probe.mkdir("ws/sub");
        const ws = await provider.resolve("ws");
        assert(provider.contains(ws, ws), "a directory contains itself");
        assert(provider.contains(ws, await provider.resolve("ws/sub")), "child");
        assert(provider.contains(ws, await provider.resolve("ws/sub/missing/deep.txt")), "missing descendant");
      },
    },
    {
      name: "contains is false for the parent and for a sibling sharing the name as a prefix",
      async run({ provider, probe }) {
        await probe.mkdir("ws/sub");
        await probe.mkdir("ws-evil");
        const ws = await provider.resolve("ws");
        assert(!provider.contains(ws, await provider.resolve("ws-evil/x.txt")), "ws-evil is not inside ws");
        assert(!provider.contains(await provider.resolve("ws/sub"), ws), "the parent is not inside the child");
        assert(!provider.contains(ws, await provider.resolve("ws/../x.txt")), "a .. escape is not inside");
      },
    },
    {
      name: "options.cwd must be an absolute path",
      async run({ provider }) {
        await assertThrowsType(() => provider.resolve("a.txt", { cwd: "relative/dir" }), TypeError);
      },
    },
  ],
};
