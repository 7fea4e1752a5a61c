import { assertEquals, assertRejectsCode } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { under, utf8 } from "../util.ts";

/** One-level directory listings. */
export const listGroup: ConformanceGroup = {
  name: "list",
  cases: [
    {
      name: "names come in UTF-8 byte order",
      async run({ provider, probe }) {
        // UTF-16 order would put the emoji (a surrogate pair) before the fullwidth z; UTF-8 order does not.
        const names = ["b", "😀", "a.txt", "ｚ", "B", "é", "_x", "a", "€", "10", "9"];
        for (const name of names) await probe.writeFile(`d/${name}`, "");
        const listed = (await provider.listDir(await provider.resolve("d"))).map((e) => e.name);
        assertEquals(listed, ["10", "9", "B", "_x", "a", "a.txt", "b", "é", "€", "ｚ", "😀"]);
      },
    },
    {
      name: "entries report file and directory types",
      async run({ provider, probe }) {
        await probe.writeFile("d/f.txt", "x");
        await probe.mkdir("d/sub");
        const entries = await provider.listDir(await provider.resolve("d"));
        assertEquals(
          entries.map((e) => [e.name, e.type]),
          [
            ["f.txt", "file"],
            ["sub", "directory"],
          ],
        );
      },
    },
    {
      name: "file entries carry their size and modification time",
      async run({ provider, probe }) {
        await probe.writeFile("d/f.txt", "hello");
        await probe.setMtime("d/f.txt", 1_600_000_000_000);
        const [entry] = await provider.listDir(await provider.resolve("d"));
        assertEquals(entry?.size, 5);
        assertEquals(Math.floor(entry?.mtimeMs ?? 0), 1_600_000_000_000);
      },
    },
    {
      name: "child targets join the listed display path and match a direct resolve",
      async run({ provider, probe }) {
        await probe.writeFile("d/f.txt", "x");
        const dir = await provider.resolve("./d/");
        const [entry] = await provider.listDir(dir);
        assertEquals(entry?.target.displayPath, under(probe.root, "d/f.txt"));
        assertEquals(entry?.target.key, (await provider.resolve("d/f.txt")).key);
      },
    },
    {
      name: "an empty directory lists nothing",
      async run({ provider, probe }) {
        await probe.mkdir("empty");
        assertEquals(await provider.listDir(await provider.resolve("empty")), []);
      },
    },
    {
      name: "listing a missing directory fails FS_NOT_FOUND",
      async run({ provider }) {
        await assertRejectsCode(provider.listDir(await provider.resolve("nope")), "FS_NOT_FOUND");
      },
    },
    {
      name: "listing a file fails FS_NOT_DIRECTORY",
      async run({ provider, probe }) {
        await probe.writeFile("f.txt", "x");
        await assertRejectsCode(provider.listDir(await provider.resolve("f.txt")), "FS_NOT_DIRECTORY");
      },
    },
    {
      name: "a listing after writes shows no staging leftovers",
      async run({ provider }) {
        for (let i = 0; i < 5; i++) await provider.write(await provider.resolve(`d/f${i}.txt`), utf8(`v${i}`));
        await provider.write(await provider.resolve("d/f0.txt"), utf8("again"));
        const names = (await provider.listDir(await provider.resolve("d"))).map((e) => e.name);
        assertEquals(names, ["f0.txt", "f1.txt", "f2.txt", "f3.txt", "f4.txt"]);
      },
    },
    {
      name: "the workspace root lists through '.'",
      async run({ provider, probe }) {
        await probe.writeFile("top.txt", "x");
        assertEquals(
          (await provider.listDir(await provider.resolve("."))).map((e) => e.name),
          ["top.txt"],
        );
      },
    },
  ],
};
