import {
  createEngineBackend,
  createOverlayProvider,
  type FileSystem,
  type FsVersion,
  type OverlayFileSystem,
  searchFiles,
  searchGrep,
} from "../../core/mod.ts";
import { assert, assertBytes, assertEquals, assertRejectsCode } from "../assert.ts";
import type { Probe, Subject } from "../harness.ts";
import type { ConformanceCase, ConformanceGroup, SubjectTraits } from "../suite.ts";
import { needsSymlinks, sortedGrep, utf8 } from "../util.ts";

const needsOverlay = (traits: SubjectTraits): string | undefined => (traits.overlay ? undefined : "the subject is not an overlay with a probe of its base");

function overlayOf(subject: Subject): { ov: OverlayFileSystem; base: Probe } {
  assert(subject.baseProbe, "the subject has a probe of its base");
  return { ov: subject.provider as OverlayFileSystem, base: subject.baseProbe };
}

async function put(fs: FileSystem, path: string, content: string): Promise<void> {
  await fs.write(await fs.resolve(path), utf8(content));
}

async function read(fs: FileSystem, path: string): Promise<string | undefined> {
  const target = await fs.resolve(path);
  if ((await fs.stat(target))?.type !== "file") return undefined;
  return new TextDecoder().decode((await fs.readBytes(target, { maxBytes: 1 << 24 })).bytes);
}

async function names(fs: FileSystem, path: string): Promise<string[]> {
  return (await fs.listDir(await fs.resolve(path))).map((e) => e.name);
}

async function versionOf(fs: FileSystem, path: string): Promise<FsVersion> {
  const info = await fs.stat(await fs.resolve(path));
  assert(info, `${path} exists`);
  return info.version;
}

async function remove(fs: FileSystem, path: string, directory = false): Promise<void> {
  await fs.remove(await fs.resolve(path), directory ? { directory } : undefined);
}

async function move(fs: FileSystem, from: string, to: string): Promise<void> {
  await fs.move(await fs.resolve(from), await fs.resolve(to), { parents: true });
}

/**
 * Deletions and moves in the overlay (issue 20 item 5): whiteouts hide the base's entries, moves copy up under
 * the new names, the change set and the patch show them, checkpoints cover them, and a commit deletes or moves
 * in the base only what the base still holds as the overlay saw it. Registered for overlay subjects.
 */
export const overlayMutationsGroup: ConformanceGroup = {
  name: "overlay-mutations",
  cases: (
    [
      {
        name: "a deleted base file is FS_NOT_FOUND through the overlay and gone from its folder; the base keeps it; writing it again is a modification",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("d/a.txt", "a0");
          await base.writeFile("d/b.txt", "b0");
          const seen = await versionOf(ov.base, "d/a.txt");
          await ov.remove(await ov.resolve("d/a.txt"), { guard: { kind: "ifVersion", version: await versionOf(ov, "d/a.txt") } });
          await assertRejectsCode(async () => ov.readBytes(await ov.resolve("d/a.txt"), { maxBytes: 10 }), "FS_NOT_FOUND", "a read");
          assertEquals([await ov.stat(await ov.resolve("d/a.txt")), await ov.lstat("d/a.txt"), await names(ov, "d")], [undefined, undefined, ["b.txt"]]);
          assertBytes(await base.readFile("d/a.txt"), "a0", "the base file");
          assertEquals(
            ov.changes().map((c) => [c.path, c.status, c.baseVersion]),
            [["d/a.txt", "deleted", seen]],
          );
          await assertRejectsCode(async () => remove(ov, "d/a.txt"), "FS_NOT_FOUND", "a second delete");
          await put(ov, "d/a.txt", "a again");
          assertEquals([await read(ov, "d/a.txt"), await names(ov, "d")], ["a again", ["a.txt", "b.txt"]]);
          assertEquals(
            ov.changes().map((c) => [c.path, c.status, c.baseVersion]),
            [["d/a.txt", "modified", seen]],
          );
          // Deleted again, a file the overlay itself created leaves nothing behind.
          await put(ov, "mine.txt", "m");
          await remove(ov, "mine.txt");
          assertEquals(
            ov.changes().map((c) => c.path),
            ["d/a.txt"],
          );
        },
      },
      {
        name: "an empty base folder can be deleted, a non-empty one is FS_NOT_EMPTY; a folder made again over it shows nothing of the base",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("full/x.txt", "x");
          await base.mkdir("empty");
          await assertRejectsCode(async () => remove(ov, "full", true), "FS_NOT_EMPTY");
          await remove(ov, "empty", true);
          await remove(ov, "full/x.txt");
          await remove(ov, "full", true);
          assertEquals(await names(ov, "."), []);
          assertEquals((await base.list(".")).sort(), ["empty", "full"]);
          assertEquals(
            ov.changes().map((c) => [c.path, c.status, c.type]),
            [
              ["empty", "deleted", "directory"],
              ["full", "deleted", "directory"],
              ["full/x.txt", "deleted", undefined],
            ],
          );
          await ov.mkdir(await ov.resolve("full"));
          await ov.mkdir(await ov.resolve("brand/new"), { parents: true });
          assertEquals([await names(ov, "full"), await names(ov, "."), await read(ov, "full/x.txt")], [[], ["brand", "full"], undefined]);
          assertEquals(
            ov.changes().map((c) => [c.path, c.status, c.type]),
            [
              ["brand/new", "created", "directory"],
              ["empty", "deleted", "directory"],
              ["full/x.txt", "deleted", undefined],
            ],
          );
        },
      },
      {
        name: "moving a folder with files: the new names read the files, the old ones are gone; changes() lists renames; the base is untouched",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("src/a.txt", "a\n");
          await base.writeFile("src/sub/b.txt", "b\n");
          await put(ov, "src/c.txt", "mine\n");
          const a = await versionOf(ov.base, "src/a.txt");
          await move(ov, "src", "lib");
          assertEquals([await names(ov, "."), await names(ov, "lib"), await names(ov, "lib/sub")], [["lib"], ["a.txt", "c.txt", "sub"], ["b.txt"]]);
          assertEquals([await read(ov, "lib/a.txt"), await read(ov, "lib/sub/b.txt"), await read(ov, "lib/c.txt")], ["a\n", "b\n", "mine\n"]);
          await assertRejectsCode(async () => ov.readBytes(await ov.resolve("src/a.txt"), { maxBytes: 10 }), "FS_NOT_FOUND");
          assertEquals((await base.list("src")).sort(), ["a.txt", "sub"]);
          assertEquals(await base.info("lib"), undefined);
          assertEquals(
            ov.changes().map((c) => [c.path, c.status, c.from, c.type]),
            [
              ["lib/a.txt", "renamed", "src/a.txt", undefined],
              ["lib/c.txt", "created", undefined, undefined],
              ["lib/sub/b.txt", "renamed", "src/sub/b.txt", undefined],
              ["src", "deleted", undefined, "directory"],
              ["src/sub", "deleted", undefined, "directory"],
            ],
          );
          assertEquals(ov.changes()[0]?.baseVersion, a, "a rename names the version it moved");
          // A file moved without its folder, and a refused move onto an existing name.
          await move(ov, "lib/sub/b.txt", "b.txt");
          await assertRejectsCode(async () => move(ov, "lib/a.txt", "b.txt"), "FS_EXISTS");
          assertEquals(ov.changes().find((c) => c.path === "b.txt")?.from, "src/sub/b.txt", "a file moved twice keeps its first name");
        },
      },
      {
        name: "patch() shows a deletion as deleted file mode and a move as a rename, with hunks when the content changed too",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("gone.txt", "bye\n");
          await base.writeFile("old.txt", "same\n");
          await base.writeFile("edit.txt", "1\n2\n3\n4\n5\n6\n");
          await remove(ov, "gone.txt");
          await move(ov, "old.txt", "new.txt");
          await move(ov, "edit.txt", "moved/edit.txt");
          await put(ov, "moved/edit.txt", "1\n2\n3\n4\n5\nsix\n");
          assertEquals(
            await ov.patch(),
            [
              "diff --git a/gone.txt b/gone.txt",
              "deleted file mode 100644",
              "--- a/gone.txt",
              "+++ /dev/null",
              "@@ -1,1 +0,0 @@",
              "-bye",
              "diff --git a/edit.txt b/moved/edit.txt",
              "similarity index 71%",
              "rename from edit.txt",
              "rename to moved/edit.txt",
              "--- a/edit.txt",
              "+++ b/moved/edit.txt",
              "@@ -3,4 +3,4 @@",
              " 3",
              " 4",
              " 5",
              "-6",
              "+six",
              "diff --git a/old.txt b/new.txt",
              "similarity index 100%",
              "rename from old.txt",
              "rename to new.txt",
              "",
            ].join("\n"),
          );
        },
      },
      {
        name: "commit deletes and moves in the base; the overlay then reads the base",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("src/a.txt", "a\n");
          await base.writeFile("src/sub/b.txt", "b\n");
          await base.writeFile("gone.txt", "g\n");
          await base.mkdir("empty");
          await move(ov, "src", "lib");
          await put(ov, "lib/a.txt", "a changed\n");
          await remove(ov, "gone.txt");
          await remove(ov, "empty", true);
          await ov.mkdir(await ov.resolve("made"));
          const result = await ov.commit();
          assertEquals([result.ok, result.conflicts, result.pending], [true, [], []]);
          assertEquals((await base.list(".")).sort(), ["lib", "made"]);
          assertEquals([text(await base.readFile("lib/a.txt")), text(await base.readFile("lib/sub/b.txt"))], ["a changed\n", "b\n"]);
          assertEquals([ov.changes(), await ov.patch()], [[], ""]);
          assertEquals([await read(ov, "lib/a.txt"), await names(ov, ".")], ["a changed\n", ["lib", "made"]]);
        },
      },
      {
        name: "commit with a base change meanwhile (a deleted file edited, a moved file edited, a destination created) is a conflict and changes nothing",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("del.txt", "d0");
          await base.writeFile("mv.txt", "m0");
          await base.writeFile("mv2.txt", "n0");
          await base.writeFile("ok.txt", "o0");
          await remove(ov, "del.txt");
          await move(ov, "mv.txt", "moved.txt");
          await move(ov, "mv2.txt", "there.txt");
          await remove(ov, "ok.txt");
          // Another writer of the base, after the overlay saw these files.
          await ov.base.write(await ov.base.resolve("del.txt"), utf8("d1"));
          await ov.base.write(await ov.base.resolve("mv.txt"), utf8("m1"));
          await ov.base.write(await ov.base.resolve("there.txt"), utf8("theirs"));
          const result = await ov.commit();
          assertEquals(
            [result.ok, result.committed, result.conflicts.map((c) => [c.change.path, c.reason]), result.pending.length],
            [
              false,
              [],
              [
                ["moved.txt", "modified"],
                ["there.txt", "created"],
                ["del.txt", "modified"],
              ],
              4,
            ],
          );
          assertEquals((await base.list(".")).sort(), ["del.txt", "mv.txt", "mv2.txt", "ok.txt", "there.txt"]);
          assertEquals([text(await base.readFile("del.txt")), text(await base.readFile("mv.txt"))], ["d1", "m1"]);
          assertEquals(ov.changes().length, 4, "the overlay keeps every change");
        },
      },
      {
        name: "a deleted folder that gained a file in the base meanwhile is a conflict (not-empty)",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("d/a.txt", "a");
          await remove(ov, "d/a.txt");
          await remove(ov, "d", true);
          await base.writeFile("d/theirs.txt", "t");
          const result = await ov.commit();
          assertEquals([result.ok, result.conflicts.map((c) => [c.change.path, c.reason])], [false, [["d", "not-empty"]]]);
          assertEquals((await base.list("d")).sort(), ["a.txt", "theirs.txt"]);
        },
      },
      {
        name: "a base file changed between the commit's check and its deletion: the guard refuses it, and the result says what was committed",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          for (const name of ["a", "c", "d"]) await base.writeFile(`${name}.txt`, `${name}0`);
          await move(ov, "a.txt", "b.txt");
          await remove(ov, "c.txt");
          await remove(ov, "d.txt");
          // Another writer changes d.txt after the check, right before the commit deletes it.
          const racing = new Proxy(ov.base, {
            get(target, key) {
              const value = Reflect.get(target, key, target) as unknown;
              if (key !== "remove") return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
              return async (...args: Parameters<FileSystem["remove"]>) => {
                if (args[0].key.endsWith("/d.txt")) await target.write(await target.resolve(args[0].key), utf8("theirs"));
                return target.remove(...args);
              };
            },
          });
          const result = await createOverlayProvider({ base: racing, upper: ov.upper }).commit();
          assertEquals(
            [result.ok, result.committed.map((c) => [c.path, c.status]), result.conflicts.map((c) => [c.change.path, c.reason]), result.pending],
            [
              false,
              [
                ["b.txt", "renamed"],
                ["c.txt", "deleted"],
              ],
              [["d.txt", "modified"]],
              [],
            ],
          );
          assertEquals((await base.list(".")).sort(), ["b.txt", "d.txt"]);
          assertEquals(text(await base.readFile("d.txt")), "theirs");
          assertEquals(
            ov.changes().map((c) => [c.path, c.status]),
            [["d.txt", "deleted"]],
          );
        },
      },
      {
        name: "a base symlink is removed itself, never its target, in the overlay and then by the commit",
        skip: (traits) => needsOverlay(traits) ?? needsSymlinks(traits),
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("target.txt", "t");
          await base.symlink("target.txt", "link");
          await remove(ov, "link");
          assertEquals([await ov.lstat("link"), await read(ov, "target.txt")], [undefined, "t"]);
          assertEquals(
            ov.changes().map((c) => [c.path, c.status]),
            [["link", "deleted"]],
          );
          assertEquals(await ov.patch(), "", "a symbolic link is not in the patch");
          const result = await ov.commit();
          assertEquals([result.ok, (await base.list(".")).sort()], [true, ["target.txt"]]);
        },
      },
      {
        name: "a file written into a folder while the overlay moves it is not lost: it moves with the folder",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("src/a.txt", "a");
          // The move reads src/a.txt from the base; the write lands while it waits.
          let reading!: () => void;
          let proceed!: () => void;
          const started = new Promise<void>((resolve) => (reading = resolve));
          const resumed = new Promise<void>((resolve) => (proceed = resolve));
          const held = new Proxy(ov.base, {
            get(target, key) {
              const value = Reflect.get(target, key, target) as unknown;
              if (key !== "readBytes") return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
              return async (...args: Parameters<FileSystem["readBytes"]>) => {
                reading();
                await resumed;
                return target.readBytes(...args);
              };
            },
          });
          const mover = createOverlayProvider({ base: held, upper: ov.upper });
          const moving = move(mover, "src", "lib");
          await started;
          await put(ov, "src/new.txt", "written meanwhile");
          proceed();
          await moving;
          assertEquals([await read(ov, "lib/a.txt"), await read(ov, "lib/new.txt"), await ov.lstat("src")], ["a", "written meanwhile", undefined]);
        },
      },
      {
        name: "checkpoints and restore cover deletions and moves",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("a.txt", "a\n");
          await base.writeFile("b.txt", "b\n");
          const before = ov.checkpoint();
          await remove(ov, "a.txt");
          await move(ov, "b.txt", "c.txt");
          assertEquals(
            ov.changes({ since: before }).map((c) => [c.path, c.status, c.from]),
            [
              ["a.txt", "deleted", undefined],
              ["c.txt", "renamed", "b.txt"],
            ],
          );
          const patch = await ov.patch({ since: before });
          assert(patch.includes("deleted file mode 100644\n--- a/a.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n"), patch);
          assert(patch.includes("diff --git a/b.txt b/c.txt\nsimilarity index 100%\nrename from b.txt\nrename to c.txt\n"), patch);
          const after = ov.checkpoint();
          await ov.restore(before);
          assertEquals([await read(ov, "a.txt"), await read(ov, "b.txt"), await read(ov, "c.txt"), ov.changes()], ["a\n", "b\n", undefined, []]);
          await ov.restore(after);
          assertEquals([await read(ov, "a.txt"), await read(ov, "b.txt"), await read(ov, "c.txt")], [undefined, undefined, "b\n"]);
          assertEquals(
            ov.changes().map((c) => [c.path, c.status]),
            [
              ["a.txt", "deleted"],
              ["c.txt", "renamed"],
            ],
          );
        },
      },
      {
        name: "glob and grep over the overlay leave out deleted and moved-away files, as the engine's walk of the merged tree does",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          assert(subject.search, "the subject has a search backend");
          for (const path of ["a.ts", "src/b.ts", "src/c.ts", "lib/d.ts", "keep/e.ts"]) await base.writeFile(path, `needle ${path}\n`);
          await remove(ov, "a.ts");
          await move(ov, "src", "moved");
          await remove(ov, "lib/d.ts");
          await remove(ov, "lib", true);
          const engine = createEngineBackend(ov);
          const cwd = base.root;
          const files = { cwd, globs: [{ glob: "*.ts" }], sort: { by: "path" } } as const;
          const globbed = await searchFiles(subject.search, files);
          assertEquals(globbed.paths, ["keep/e.ts", "moved/b.ts", "moved/c.ts"]);
          assertEquals(globbed.paths, (await engine.files(files)).paths);
          const grep = { cwd, pattern: "needle" };
          assertEquals(sortedGrep(await searchGrep(subject.search, grep)), sortedGrep(await engine.grep(grep)));
          // Only deletions, no file of the overlay's own.
          await ov.discard();
          await remove(ov, "keep/e.ts");
          assertEquals((await searchFiles(subject.search, files)).paths, ["a.ts", "lib/d.ts", "src/b.ts", "src/c.ts"]);
        },
      },
    ] satisfies ConformanceCase[]
  ).map((c: ConformanceCase) => ({ skip: needsOverlay, ...c })),
};

function text(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? "<missing>" : new TextDecoder().decode(bytes);
}
