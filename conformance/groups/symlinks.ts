import { FsError, type FsTarget, type FsVersion, isFsError } from "../../core/mod.ts";
import { assert, assertBytes, assertEquals, assertRejectsCode } from "../assert.ts";
import type { ConformanceCase, ConformanceGroup } from "../suite.ts";
import { needsSymlinks, sleep, under, utf8 } from "../util.ts";

const cases: ConformanceCase[] = [
  {
    name: "a symlink and its target share one key; the display path keeps the link's spelling",
    async run({ provider, probe }) {
      await probe.writeFile("real.txt", "x");
      await probe.symlink("real.txt", "alias.txt");
      const alias = await provider.resolve("alias.txt");
      assertEquals(alias.key, (await provider.resolve("real.txt")).key);
      assertEquals(alias.displayPath, under(probe.root, "alias.txt"));
    },
  },
  {
    name: "stat follows a symlink; lstat reports the link itself",
    async run({ provider, probe }) {
      await probe.writeFile("real.txt", "12345");
      await probe.symlink("real.txt", "alias.txt");
      const followed = await provider.stat(await provider.resolve("alias.txt"));
      assertEquals([followed?.type, followed?.size], ["file", 5]);
      assertEquals((await provider.lstat("alias.txt"))?.type, "symlink");
    },
  },
  {
    name: "a write through a symlink updates the target and keeps the link",
    async run({ provider, probe }) {
      await probe.writeFile("real.txt", "old");
      await probe.symlink("real.txt", "alias.txt");
      await provider.write(await provider.resolve("alias.txt"), utf8("new"));
      assertBytes(await probe.readFile("real.txt"), "new");
      assertEquals((await probe.info("alias.txt"))?.type, "symlink");
    },
  },
  {
    name: "a dangling symlink stats as missing, lstats and lists as a symlink",
    async run({ provider, probe }) {
      await probe.symlink("gone.txt", "d/dangling");
      assertEquals(await provider.stat(await provider.resolve("d/dangling")), undefined);
      assertEquals((await provider.lstat("d/dangling"))?.type, "symlink");
      assertEquals(
        (await provider.listDir(await provider.resolve("d"))).map((e) => [e.name, e.type]),
        [["dangling", "symlink"]],
      );
    },
  },
  {
    name: "a write to a dangling symlink fails FS_NOT_REGULAR_FILE and keeps the link, with or without a guard",
    async run({ provider, probe }) {
      await probe.symlink("gone.txt", "dangling");
      const target = await provider.resolve("dangling");
      await assertRejectsCode(provider.write(target, utf8("x")), "FS_NOT_REGULAR_FILE");
      await assertRejectsCode(provider.write(target, utf8("x"), { guard: { kind: "createIfAbsent" } }), "FS_NOT_REGULAR_FILE");
      assertEquals((await probe.info("dangling"))?.type, "symlink");
      assertEquals(await probe.info("gone.txt"), undefined);
    },
  },
  {
    name: "a dangling symlink's key is where it points",
    async run({ provider, probe }) {
      await probe.symlink(under(probe.outside, "gone.txt"), "dangling");
      const target = await provider.resolve("dangling");
      assertEquals(target.key, under(probe.outside, "gone.txt"));
      assert(!provider.contains(await provider.resolve("."), target), "not inside the workspace");
    },
  },
  {
    name: "a missing file under a symlinked directory keys by the real directory, stable across creation",
    async run({ provider, probe }) {
      await probe.mkdir("realdir");
      await probe.symlink("realdir", "linkdir");
      const before = await provider.resolve("linkdir/new.txt");
      assertEquals(before.key, under(probe.root, "realdir/new.txt"));
      await provider.write(before, utf8("x"));
      assertEquals((await provider.resolve("linkdir/new.txt")).key, before.key);
      assertBytes(await probe.readFile("realdir/new.txt"), "x");
    },
  },
  {
    name: "a symlinked parent pointing outside gives a key outside the workspace",
    async run({ provider, probe }) {
      await probe.symlink(probe.outside, "escape");
      const target = await provider.resolve("escape/secret.txt");
      assertEquals(target.key, under(probe.outside, "secret.txt"));
      assert(!provider.contains(await provider.resolve("."), target), "not inside the workspace");
    },
  },
  {
    name: "the fence sees the canonical destination through a symlinked parent",
    async run({ provider, probe }) {
      await probe.symlink(probe.outside, "escape");
      const seen: FsTarget[] = [];
      const fence = (t: FsTarget): never => {
        seen.push(t);
        throw new FsError("FS_SANDBOX_DENIED", "outside");
      };
      await assertRejectsCode(provider.write(await provider.resolve("escape/new/x.txt"), utf8("x"), { fence }), "FS_SANDBOX_DENIED");
      assertEquals(seen[0]?.key, under(probe.outside, "new/x.txt"));
      assertEquals(await probe.list(probe.outside), [], "nothing created outside");
    },
  },
  {
    name: "a parent swapped for an outward symlink between the fence checks is refused",
    async run({ provider, probe }) {
      await probe.mkdir("dir");
      const workspace = await provider.resolve(".");
      let swapped = false;
      const fence = async (t: FsTarget): Promise<void> => {
        if (!provider.contains(workspace, t)) throw new FsError("FS_SANDBOX_DENIED", "outside");
        if (!swapped) {
          swapped = true;
          await probe.rename("dir", "dir-moved");
          await probe.symlink(probe.outside, "dir");
        }
      };
      await assertRejectsCode(provider.write(await provider.resolve("dir/x.txt"), utf8("x"), { fence }), "FS_SANDBOX_DENIED");
      assertEquals(await probe.list(probe.outside), [], "nothing written outside");
    },
  },
  {
    name: "a refused write through a parent swapped for an outward symlink after the first check creates no directory outside",
    async run({ provider, probe }) {
      await probe.mkdir("dir");
      const workspace = await provider.resolve(".");
      let swapped = false;
      const fence = async (t: FsTarget): Promise<void> => {
        if (!provider.contains(workspace, t)) throw new FsError("FS_SANDBOX_DENIED", "outside");
        if (!swapped) {
          swapped = true;
          await probe.rename("dir", "dir-moved");
          await probe.symlink(probe.outside, "dir");
        }
      };
      const error = await provider.write(await provider.resolve("dir/new/deeper/x.txt"), utf8("x"), { fence }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert(isFsError(error, "FS_SANDBOX_DENIED") || isFsError(error, "FS_STALE_VERSION"), `refused, got ${String(error)}`);
      assertEquals(await probe.list(probe.outside), [], "nothing created outside");
      assertEquals(await probe.list("dir-moved"), [], "nothing created in the folder that was moved away either");
    },
  },
  {
    name: "a symlink loop fails FS_IO_ERROR on resolve and still lists as a symlink",
    async run({ provider, probe }) {
      await probe.symlink("loop-b", "d/loop-a");
      await probe.symlink("loop-a", "d/loop-b");
      await assertRejectsCode(provider.resolve("d/loop-a"), "FS_IO_ERROR");
      assertEquals(
        (await provider.listDir(await provider.resolve("d"))).map((e) => e.type),
        ["symlink", "symlink"],
      );
    },
  },
  {
    name: "listing through a symlinked directory keeps the alias in display paths and the real path in keys",
    async run({ provider, probe }) {
      await probe.writeFile("realdir/f.txt", "x");
      await probe.symlink("realdir", "linkdir");
      const [entry] = await provider.listDir(await provider.resolve("linkdir"));
      assertEquals(entry?.target.displayPath, under(probe.root, "linkdir/f.txt"));
      assertEquals(entry?.target.key, under(probe.root, "realdir/f.txt"));
    },
  },
  {
    name: "a symlink entry in a listing keys by what it points to",
    async run({ provider, probe }) {
      await probe.writeFile("d/real.txt", "x");
      await probe.symlink("real.txt", "d/alias.txt");
      const entries = await provider.listDir(await provider.resolve("d"));
      assertEquals(
        entries.map((e) => [e.name, e.type, e.target.key]),
        [
          ["alias.txt", "symlink", under(probe.root, "d/real.txt")],
          ["real.txt", "file", under(probe.root, "d/real.txt")],
        ],
      );
    },
  },
  {
    name: "a change through one alias makes a version read through the other stale",
    async run({ provider, probe }) {
      await probe.writeFile("real.txt", "v1");
      await probe.symlink("real.txt", "alias.txt");
      const viaAlias = await provider.resolve("alias.txt");
      const version = (await provider.stat(viaAlias))?.version as FsVersion;
      await sleep(provider.capabilities.timestampResolutionMs + 5);
      await provider.write(await provider.resolve("real.txt"), utf8("v2"));
      await assertRejectsCode(provider.write(viaAlias, utf8("v3"), { guard: { kind: "replaceIfVersion", version } }), "FS_STALE_VERSION");
      assertBytes(await probe.readFile("real.txt"), "v2");
    },
  },
];

/** Symbolic links: identity, following, dangling links, loops, and the fence through links. */
export const symlinksGroup: ConformanceGroup = {
  name: "symlinks",
  cases: cases.map((c) => ({ ...c, skip: needsSymlinks })),
};
