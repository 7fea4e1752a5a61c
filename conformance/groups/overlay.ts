import {
  createEngineBackend,
  createOverlayProvider,
  type FileSystem,
  type FsVersion,
  type FilesResult,
  type FsWriteData,
  isOverlayError,
  type OverlayFileSystem,
  searchFiles,
  searchGrep,
} from "../../core/mod.ts";
import { assert, assertBytes, assertEquals } from "../assert.ts";
import type { Probe, Subject } from "../harness.ts";
import type { ConformanceCase, ConformanceGroup, SubjectTraits } from "../suite.ts";
import { needsSymlinks, pattern, sortedGrep, text, utf8 } from "../util.ts";
import { fails, includes, ok, toolkit } from "./tools-support.ts";

const needsOverlay = (traits: SubjectTraits): string | undefined => (traits.overlay ? undefined : "the subject is not an overlay with a probe of its base");

function overlayOf(subject: Subject): { ov: OverlayFileSystem; base: Probe } {
  assert(subject.baseProbe, "the subject has a probe of its base");
  return { ov: subject.provider as OverlayFileSystem, base: subject.baseProbe };
}

async function put(fs: FileSystem, path: string, content: string | Uint8Array, version?: FsVersion): Promise<void> {
  const bytes = typeof content === "string" ? utf8(content) : content;
  await fs.write(await fs.resolve(path), bytes, version ? { guard: { kind: "replaceIfVersion", version } } : undefined);
}

async function read(fs: FileSystem, path: string): Promise<Uint8Array | undefined> {
  const target = await fs.resolve(path);
  if ((await fs.stat(target))?.type !== "file") return undefined;
  return (await fs.readBytes(target, { maxBytes: 1 << 24 })).bytes;
}

/** A base whose `write` fails part-way through staging the files `fails` picks: what a crash leaves. */
function failingWrites(base: FileSystem, fails: (key: string) => boolean): FileSystem {
  return new Proxy(base, {
    get(target, key) {
      if (key !== "write") {
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (to: Parameters<FileSystem["write"]>[0], data: FsWriteData, options: Parameters<FileSystem["write"]>[2]) => {
        if (!fails(to.key)) return target.write(to, data, options);
        const bytes = data as Uint8Array;
        async function* half(): AsyncGenerator<Uint8Array> {
          yield bytes.subarray(0, bytes.length >> 1);
          throw new Error("the writer died while staging");
        }
        return target.write(to, half(), options);
      };
    },
  });
}

// What a files result found, without which backend found it (the overlay's split and the engine differ there).
function found(result: FilesResult): unknown {
  const { searchedBy: _by, fallback: _fallback, ...rest } = result;
  return rest;
}

/**
 * The overlay's own promises: reads fall through to the base until a path is written, writes land in the
 * overlay only, the change set and its patch, checkpoints, and a commit that publishes nothing when the base
 * moved under any change. Registered for overlay subjects (conformance/overlay.ts).
 */
export const overlayGroup: ConformanceGroup = {
  name: "overlay",
  cases: (
    [
      {
        name: "opening an overlay reads nothing of its base",
        async run(subject) {
          const { ov } = overlayOf(subject);
          let calls = 0;
          const counted = new Proxy(ov.base, {
            get(target, key) {
              const value = Reflect.get(target, key, target) as unknown;
              if (typeof value !== "function") return value;
              return (...args: unknown[]) => {
                calls++;
                return (value as (...a: unknown[]) => unknown).apply(target, args);
              };
            },
          });
          const opened = createOverlayProvider({ base: counted });
          assertEquals([calls, opened.changes()], [0, []], "base calls and changes after opening");
        },
      },
      {
        name: "a loop of reads of the overlay's own files lets the event loop turn: a timer set meanwhile fires",
        async run(subject) {
          const { ov } = overlayOf(subject);
          await put(ov, "own.txt", "o");
          const target = await ov.resolve("own.txt");
          // A writer waiting for a timer (a lock file's backoff) starved behind such a loop; no base call is under
          // way here, so only the overlay's own turn-taking lets the timer run.
          let fired = false;
          setTimeout(() => (fired = true), 1);
          let reads = 0;
          while (!fired && reads < 200_000) {
            await ov.readBytes(target, { maxBytes: 16 });
            reads++;
          }
          assert(fired, `${reads} reads of the overlay's own file, and a 1 ms timer never fired`);
        },
      },
      {
        name: "reads fall through to the base until a path is written; writes land in the overlay only; listings merge",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("keep.txt", "k0");
          await base.writeFile("dir/a.txt", "a0");
          assertBytes(await read(ov, "keep.txt"), "k0");
          await base.writeFile("keep.txt", "k1 from another writer");
          assertBytes(await read(ov, "keep.txt"), "k1 from another writer", "an unwritten file shows the base as it is now");
          await put(ov, "dir/a.txt", "a1");
          await put(ov, "dir/new.txt", "n");
          await put(ov, "fresh/deep/x.txt", "x");
          assertEquals(
            (await ov.listDir(await ov.resolve("dir"))).map((e) => e.name),
            ["a.txt", "new.txt"],
          );
          assertEquals(
            (await ov.listDir(await ov.resolve("fresh"))).map((e) => [e.name, e.type]),
            [["deep", "directory"]],
          );
          assertBytes(await read(ov, "dir/a.txt"), "a1");
          assertBytes(await base.readFile("dir/a.txt"), "a0", "the base file");
          assertEquals([await base.list("dir"), await base.info("fresh")], [["a.txt"], undefined], "the base tree");
          assertEquals(
            ov.changes().map((c) => [c.path, c.status]),
            [
              ["dir/a.txt", "modified"],
              ["dir/new.txt", "created"],
              ["fresh/deep/x.txt", "created"],
            ],
          );
        },
      },
      {
        name: "a base file read through the overlay can be replaced under its version; a base change in between makes it stale",
        async run(subject) {
          const { ov } = overlayOf(subject);
          const { base } = overlayOf(subject);
          await base.writeFile("a.txt", "a0");
          await base.writeFile("b.txt", "b0");
          const a = await ov.readBytes(await ov.resolve("a.txt"), { maxBytes: 100 });
          await put(ov, "a.txt", "a1", a.version);
          const b = await ov.readBytes(await ov.resolve("b.txt"), { maxBytes: 100 });
          const baseB = (await ov.base.stat(await ov.base.resolve("b.txt")))?.version;
          await put(ov.base, "b.txt", "b changed by another writer", baseB);
          const stale = await ov.write(await ov.resolve("b.txt"), utf8("b1"), { guard: { kind: "replaceIfVersion", version: b.version } }).then(
            () => "written",
            (error: { code?: string }) => error.code,
          );
          assertEquals(stale, "FS_STALE_VERSION");
          assertBytes(await read(ov, "b.txt"), "b changed by another writer");
          assertBytes(await base.readFile("a.txt"), "a0");
        },
      },
      {
        name: "copy-up: the first write records the base version it replaced; later writes keep it",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("src/a.txt", "a0");
          const baseVersion = (await ov.base.stat(await ov.base.resolve("src/a.txt")))?.version;
          await put(ov, "src/a.txt", "a1");
          await put(ov, "src/a.txt", "a2");
          assertEquals(ov.changes(), [{ path: "src/a.txt", key: `${base.root}/src/a.txt`, status: "modified", baseVersion, size: 2 }]);
          assertEquals((await subject.probe.info("src"))?.type, "directory");
        },
      },
      {
        name: "patch() is one git-style diff: modified and new files in hunks, binary files named",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("m.txt", "one\ntwo\nthree\n");
          await base.writeFile("bin.dat", new Uint8Array([0, 1, 2]));
          await put(ov, "m.txt", "one\nTWO\nthree\n");
          await put(ov, "bin.dat", new Uint8Array([0, 1, 3]));
          await put(ov, "n.txt", "new\n");
          await put(ov, "same.txt", "x");
          await base.writeFile("same.txt", "x");
          assertEquals(
            await ov.patch(),
            [
              "diff --git a/bin.dat b/bin.dat",
              "Binary files a/bin.dat and b/bin.dat differ",
              "diff --git a/m.txt b/m.txt",
              "--- a/m.txt",
              "+++ b/m.txt",
              "@@ -1,3 +1,3 @@",
              " one",
              "-two",
              "+TWO",
              " three",
              "diff --git a/n.txt b/n.txt",
              "new file mode 100644",
              "--- /dev/null",
              "+++ b/n.txt",
              "@@ -0,0 +1,1 @@",
              "+new",
              "",
            ].join("\n"),
          );
        },
      },
      {
        name: "checkpoints: changes and patch since one show one step; restore puts the overlay back; an edit after it needs a fresh read",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("a.txt", "a0\n");
          await base.writeFile("b.txt", "b0\n");
          const kit = toolkit(subject);
          await ok(kit, "read", { path: "a.txt" });
          await ok(kit, "edit", { path: "a.txt", old_string: "a0", new_string: "a1" });
          const turn = ov.checkpoint("turn 2");
          const kept = ov.upper.get(`${base.root}/a.txt`);
          await ok(kit, "edit", { path: "a.txt", old_string: "a1", new_string: "a2" });
          await ok(kit, "write", { path: "c.txt", content: "c\n" });
          await ok(kit, "read", { path: "b.txt" });
          assertEquals(
            ov.changes({ since: turn }).map((c) => [c.path, c.status]),
            [
              ["a.txt", "modified"],
              ["c.txt", "created"],
            ],
          );
          includes(
            await ov.patch({ since: turn }),
            "-a1\n+a2\n",
            "diff --git a/c.txt b/c.txt\nnew file mode 100644\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1,1 @@\n+c\n",
          );
          const later = ov.checkpoint();
          await ov.restore(turn);
          assertBytes(await read(ov, "a.txt"), "a1\n");
          assertEquals(await read(ov, "c.txt"), undefined, "a file created after the checkpoint");
          assert(ov.upper.get(`${base.root}/a.txt`) === kept, "the restored file is the checkpoint's own node, not a copy");
          assertEquals(
            ov.changes().map((c) => [c.path, c.status]),
            [["a.txt", "modified"]],
          );
          assertEquals(
            ov.changes({ since: later }).map((c) => [c.path, c.status]),
            [
              ["a.txt", "modified"],
              ["c.txt", "deleted"],
            ],
          );
          assertEquals(
            ov.checkpoints().map((c) => [c.id, c.label, c.files]),
            [
              [turn, "turn 2", 1],
              [later, undefined, 2],
            ],
          );
          includes((await fails(kit, "edit", { path: "a.txt", old_string: "a1", new_string: "a3" }, "FS_STALE_VERSION")).content, "read it again");
          await fails(kit, "edit", { path: "b.txt", old_string: "b0", new_string: "b1" }, "FS_STALE_VERSION");
          await ok(kit, "read", { path: "a.txt" });
          await ok(kit, "edit", { path: "a.txt", old_string: "a1", new_string: "a3" });
          assertBytes(await base.readFile("a.txt"), "a0\n");
          const unknown = await ov.restore("cp-missing").then(
            () => undefined,
            (error: unknown) => error,
          );
          assert(isOverlayError(unknown, "OVERLAY_UNKNOWN_CHECKPOINT"), "an unknown checkpoint is refused");
        },
      },
      {
        name: "a restore waits for a write in flight, then undoes it",
        async run(subject) {
          const { ov } = overlayOf(subject);
          const start = ov.checkpoint();
          let staged!: () => void;
          let finish!: () => void;
          const stagedOnce = new Promise<void>((resolve) => (staged = resolve));
          const finished = new Promise<void>((resolve) => (finish = resolve));
          async function* slow(): AsyncGenerator<Uint8Array> {
            yield utf8("first half, ");
            staged();
            await finished;
            yield utf8("second half");
          }
          const order: string[] = [];
          const writing = ov.write(await ov.resolve("w.txt"), slow()).then(() => order.push("write"));
          await stagedOnce;
          const restoring = ov.restore(start).then(() => order.push("restore"));
          finish();
          await Promise.all([writing, restoring]);
          assertEquals(order, ["write", "restore"]);
          assertEquals(await read(ov, "w.txt"), undefined);
        },
      },
      {
        name: "discard empties the overlay: reads fall through again",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("a.txt", "a0");
          await put(ov, "a.txt", "a1");
          await put(ov, "b.txt", "b1");
          await ov.discard();
          assertEquals(ov.changes(), []);
          assertBytes(await read(ov, "a.txt"), "a0");
          assertEquals(await read(ov, "b.txt"), undefined);
        },
      },
      {
        name: "commit publishes every change to the base; the overlay then reads the base",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("a.txt", "a0\n");
          const kit = toolkit(subject);
          await ok(kit, "read", { path: "a.txt" });
          await ok(kit, "edit", { path: "a.txt", old_string: "a0", new_string: "a1" });
          await ok(kit, "write", { path: "new/b.txt", content: "b\n" });
          const result = await ov.commit();
          assertEquals(
            [result.ok, result.committed.map((c) => [c.path, c.status]), result.conflicts, result.pending],
            [
              true,
              [
                ["a.txt", "modified"],
                ["new/b.txt", "created"],
              ],
              [],
              [],
            ],
          );
          assertBytes(await base.readFile("a.txt"), "a1\n");
          assertBytes(await base.readFile("new/b.txt"), "b\n");
          assertEquals(ov.changes(), []);
          assertEquals(await ov.patch(), "");
          assertBytes(await read(ov, "a.txt"), "a1\n");
        },
      },
      {
        name: "commit with conflicts (the base changed after the overlay read it, or a file appeared) publishes nothing and names each",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("a.txt", "a0\n");
          await base.writeFile("b.txt", "b0\n");
          const kit = toolkit(subject);
          await ok(kit, "read", { path: "a.txt" });
          await ok(kit, "edit", { path: "a.txt", old_string: "a0", new_string: "a1" });
          await ok(kit, "read", { path: "b.txt" });
          await ok(kit, "edit", { path: "b.txt", old_string: "b0", new_string: "b1" });
          await ok(kit, "write", { path: "c.txt", content: "mine\n" });
          // Another writer of the base, between the overlay's read and the commit.
          const seen = (await ov.base.stat(await ov.base.resolve("a.txt")))?.version;
          await put(ov.base, "a.txt", "theirs\n", seen);
          await put(ov.base, "c.txt", "theirs too\n");
          const result = await ov.commit();
          assertEquals(
            [result.ok, result.committed, result.conflicts.map((c) => [c.change.path, c.reason]), result.pending.map((c) => c.path)],
            [
              false,
              [],
              [
                ["a.txt", "modified"],
                ["c.txt", "created"],
              ],
              ["a.txt", "b.txt", "c.txt"],
            ],
          );
          includes(result.conflicts[0]?.message ?? "", '"a.txt" was changed in the base');
          assertBytes(await base.readFile("a.txt"), "theirs\n");
          assertBytes(await base.readFile("b.txt"), "b0\n", "a change without a conflict is not published either");
          assertBytes(await base.readFile("c.txt"), "theirs too\n");
          assertEquals(ov.changes().length, 3, "the overlay keeps every change");
          const some = await ov.commit({ paths: ["b.txt"] });
          assertEquals([some.ok, some.committed.map((c) => c.path)], [true, ["b.txt"]]);
          assertBytes(await base.readFile("b.txt"), "b1\n");
          const none = await ov.commit({ paths: ["b.txt"] }).then(
            () => undefined,
            (error: unknown) => error,
          );
          assert(isOverlayError(none, "OVERLAY_NOT_CHANGED"), "a path without changes is refused");
        },
      },
      {
        name: "commit of a file whose base was deleted meanwhile reports it and publishes nothing",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("gone.txt", "g0\n");
          await put(ov, "gone.txt", "g1\n");
          await put(ov, "other.txt", "o\n");
          await base.remove("gone.txt");
          const result = await ov.commit();
          assertEquals([result.ok, result.committed, result.conflicts.map((c) => [c.change.path, c.reason])], [false, [], [["gone.txt", "deleted"]]]);
          assertEquals([await base.info("gone.txt"), await base.info("other.txt")], [undefined, undefined]);
        },
      },
      {
        name: "a commit that fails part-way leaves every base file whole, old or new, and nothing staged",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          const big = pattern(300_000, 7);
          for (const name of ["a", "b", "c"]) await base.writeFile(`d/${name}.bin`, `${name}0`);
          await put(ov, "d/a.bin", "a1");
          await put(ov, "d/b.bin", big);
          await put(ov, "d/c.bin", "c1");
          const crashing = createOverlayProvider({ base: failingWrites(ov.base, (key) => key.endsWith("/b.bin")), upper: ov.upper });
          const result = await crashing.commit();
          assertEquals(
            [result.ok, result.committed.map((c) => c.path), result.conflicts.map((c) => [c.change.path, c.reason]), result.pending.map((c) => c.path)],
            [false, ["d/a.bin"], [["d/b.bin", "failed"]], ["d/c.bin"]],
          );
          includes(result.conflicts[0]?.message ?? "", "the writer died while staging");
          assertBytes(await base.readFile("d/a.bin"), "a1");
          assertBytes(await base.readFile("d/b.bin"), "b0", "the file whose publication failed");
          assertBytes(await base.readFile("d/c.bin"), "c0");
          assertEquals(await base.list("d"), ["a.bin", "b.bin", "c.bin"], "nothing staged is left");
          assertEquals(
            ov.changes().map((c) => c.path),
            ["d/b.bin", "d/c.bin"],
          );
          assertEquals((await ov.commit()).ok, true);
          assertBytes(await base.readFile("d/b.bin"), big);
        },
      },
      {
        name: "commit publishes only where the overlay wrote: a folder swapped for an outward symlink is a conflict",
        skip: (traits) => needsOverlay(traits) ?? needsSymlinks(traits),
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("d/keep.txt", "k");
          await put(ov, "d/x.txt", "model bytes");
          await base.rename("d", "d-moved");
          await base.symlink(base.outside, "d");
          const result = await ov.commit();
          assertEquals([result.ok, result.conflicts.map((c) => [c.change.path, c.reason])], [false, [["d/x.txt", "moved"]]]);
          assertEquals([await base.list(base.outside), await base.list("d-moved")], [[], ["keep.txt"]]);
        },
      },
      {
        name: "commit publishes only where the overlay wrote: a folder swapped after the check is refused by the publication",
        skip: (traits) => needsOverlay(traits) ?? needsSymlinks(traits),
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          await base.writeFile("d/keep.txt", "k");
          await put(ov, "d/x.txt", "model bytes");
          // Another writer swaps the folder between the commit's check and its publication.
          const racing = new Proxy(ov.base, {
            get(target, key) {
              const value = Reflect.get(target, key, target) as unknown;
              if (key !== "write") return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
              return async (...args: Parameters<FileSystem["write"]>) => {
                await base.rename("d", "d-moved");
                await base.symlink(base.outside, "d");
                return target.write(...args);
              };
            },
          });
          const result = await createOverlayProvider({ base: racing, upper: ov.upper }).commit();
          assertEquals([result.ok, result.committed, result.conflicts.map((c) => [c.change.path, c.reason])], [false, [], [["d/x.txt", "moved"]]]);
          assertEquals([await base.list(base.outside), await base.list("d-moved")], [[], ["keep.txt"]]);
        },
      },
      {
        name: "glob and grep over the overlay equal the engine's walk of the merged tree",
        async run(subject) {
          const { ov, base } = overlayOf(subject);
          assert(subject.search, "the subject has a search backend");
          const files = ["a.ts", "src/b.ts", "src/c.ts", "src/deep/d.ts", "lib/e.ts", ".hidden/h.ts", "skipped/s.ts", "z.md"];
          for (const [i, path] of files.entries()) {
            await base.writeFile(path, `export const v${i} = ${i};\n${i % 2 ? "needle\n" : ""}`);
            await base.setMtime(path, Date.UTC(2020, 0, 1) + i * 60_000);
          }
          await base.writeFile(".ignore", "skipped/\n");
          await base.setMtime(".ignore", Date.UTC(2019, 0, 1));
          await put(ov, "src/b.ts", "changed, no match\n");
          await put(ov, "a.ts", "needle in a changed file\n");
          await put(ov, "src/new.ts", "needle in a new file\n");
          await put(ov, "fresh/dir/n.ts", "needle\n");
          await put(ov, "skipped/new.ts", "needle, ignored\n");
          await put(ov, ".hidden/new.ts", "needle, hidden\n");
          // Some of the overlay's files older than base files, one tied with a base file (ties go in walk order).
          const tie = Date.UTC(2021, 0, 1);
          await subject.probe.setMtime("src/new.ts", tie);
          await base.setMtime("lib/e.ts", tie);
          await subject.probe.setMtime("a.ts", Date.UTC(2019, 6, 1));
          await base.setMtime("z.md", Date.UTC(2100, 0, 1));
          const engine = createEngineBackend(ov);
          const cwd = base.root;
          const vcs = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"].flatMap((v) => [{ glob: `!${v}` }, { glob: `!${v}/**` }]);
          for (const sort of [{ by: "modified" }, { by: "modified", reverse: true }, { by: "path" }] as const) {
            const request = { cwd, globs: [{ glob: "*" }, ...vcs], hidden: true, noIgnore: true, sort };
            assertEquals(found(await searchFiles(subject.search, request)), found(await engine.files(request)), `files sorted by ${JSON.stringify(sort)}`);
          }
          const unsorted = { cwd, globs: [{ glob: "*.ts" }] };
          assertEquals(
            (await searchFiles(subject.search, unsorted)).paths.slice().sort(),
            (await engine.files(unsorted)).paths.slice().sort(),
            "unsorted, ignore rules",
          );
          for (const request of [
            { cwd, pattern: "needle" },
            { cwd, pattern: "needle", paths: ["src/new.ts", "a.ts"] },
            { cwd, pattern: "no|needle", globs: [{ glob: "*.ts" }] },
          ]) {
            assertEquals(sortedGrep(await searchGrep(subject.search, request)), sortedGrep(await engine.grep(request)), `grep ${JSON.stringify(request)}`);
          }
          // An ignore file the overlay changed changes what the base's files show.
          await put(ov, ".ignore", "lib/\n");
          const request = { cwd, pattern: "needle|export" };
          assertEquals(sortedGrep(await searchGrep(subject.search, request)), sortedGrep(await engine.grep(request)), "after .ignore changed");
          assertEquals(text(await base.readFile(".ignore")), "skipped/\n");
        },
      },
    ] satisfies ConformanceCase[]
  ).map((c: ConformanceCase) => ({ skip: needsOverlay, ...c })),
};
