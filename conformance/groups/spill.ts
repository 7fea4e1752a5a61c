import { createFsSpillStore, isFsError, type SpillWriter } from "../../core/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceCase, ConformanceGroup } from "../suite.ts";
import { needsOwners, needsSymlinks, text } from "../util.ts";

async function refusal(save: Promise<unknown>): Promise<Error> {
  const error = await save.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert(isFsError(error, "FS_PERMISSION_DENIED"), `the save was refused FS_PERMISSION_DENIED, got ${String(error)}`);
  return error as Error;
}

const spillDirectory = (subject: Subject) => `${subject.probe.outside}/spill`;

function begin(subject: Subject): SpillWriter {
  const store = createFsSpillStore(subject.provider, spillDirectory(subject));
  assert(store.begin !== undefined, "the FileSystem spill store writes as it goes");
  return store.begin({ tool: "glob" });
}

const cases: ConformanceCase[] = [
  {
    name: "a streamed spill is published whole by finish, and holds the producer back while the store is behind",
    async run(subject) {
      const writer = begin(subject);
      // Three mebibytes written without yielding: the store cannot take them as fast, so the writer asks
      // the producer to wait, and lets it go on once the store has caught up.
      const line = `${"x".repeat(63)}\n`;
      let waited = 0;
      for (let i = 0; i < 3 * 16384; i++) {
        writer.write(line);
        if (i % 16384 === 16383) {
          const wait = writer.ready();
          if (wait) {
            waited++;
            await wait;
          }
        }
      }
      assertEquals(waited > 0, true, "the writer asked the producer to wait");
      assertEquals(writer.size, 3 * 1024 * 1024, "bytes written");
      const receipt = await writer.finish();
      const bytes = await subject.probe.readFile(receipt.locator);
      assertEquals(bytes?.length, 3 * 1024 * 1024, "published bytes");
      assertEquals(text(bytes?.subarray(0, 128)), line + line, "published content");
      assertEquals(await subject.probe.list(spillDirectory(subject)), [receipt.locator.slice(receipt.locator.lastIndexOf("/") + 1)]);
    },
  },
  {
    name: "an abandoned spill publishes nothing and leaves nothing behind",
    async run(subject) {
      const writer = begin(subject);
      for (let i = 0; i < 40_000; i++) writer.write(`path/number/${i}\n`);
      await writer.abort();
      const left = await subject.probe.list(spillDirectory(subject)).catch(() => []);
      assertEquals(left, [], "files in the spill directory");
    },
  },
  {
    name: "a spill that cannot be written fails finish and never holds the producer back",
    async run(subject) {
      // The spill directory is a file, so nothing can be created in it.
      await subject.probe.writeFile(spillDirectory(subject), "not a directory\n");
      const writer = begin(subject);
      for (let i = 0; i < 50_000; i++) writer.write(`path/number/${i}\n`);
      const wait = writer.ready();
      if (wait) await wait;
      let failed = false;
      await writer.finish().catch(() => (failed = true));
      assertEquals(failed, true, "finish rejected");
      assertEquals(writer.ready(), undefined, "ready after the failure");
      assertEquals(text(await subject.probe.readFile(spillDirectory(subject))), "not a directory\n");
    },
  },
  {
    name: "a spill folder swapped for a symbolic link gets no spill: nothing lands where the link leads",
    skip: needsSymlinks,
    async run(subject) {
      const dir = spillDirectory(subject);
      const elsewhere = `${subject.probe.outside}/elsewhere`;
      const store = createFsSpillStore(subject.provider, dir);
      const first = await store.save({ tool: "grep", content: "kept\n" });
      assertEquals(text(await subject.probe.readFile(first.locator)), "kept\n", "the first spill");
      // What a command of the model's shell could do between two searches.
      await subject.probe.remove(dir);
      await subject.probe.mkdir(elsewhere);
      await subject.probe.symlink(elsewhere, dir);
      const error = await refusal(store.save({ tool: "grep", content: "moved?\n" }));
      assert(error.message.includes("leads elsewhere"), `the reason names the swap: ${error.message}`);
      // A store made after the swap resolves its folder's parent, never the folder: refused the same way.
      await refusal(createFsSpillStore(subject.provider, dir).save({ tool: "glob", content: "moved?\n" }));
      const writer = store.begin!({ tool: "glob" });
      writer.write("streamed\n");
      await refusal(writer.finish());
      assertEquals(await subject.probe.list(elsewhere), [], "entries where the link leads");
    },
  },
  {
    name: "a spill folder another user owns gets no spill, whatever its mode",
    skip: needsOwners,
    async run(subject) {
      const dir = spillDirectory(subject);
      await subject.probe.mkdir(dir);
      await subject.probe.chmod(dir, 0o755);
      const me = (await subject.probe.info(dir))?.owner;
      assert(me !== undefined, "the probe reports the folder's owner");
      const other = me === 65534 ? 65533 : 65534;
      if (!subject.probe.chown) return; // the probe cannot give a folder away: nothing to check
      try {
        await subject.probe.chown(dir, other);
      } catch {
        return; // only a privileged user can give a folder away (a disk subject not run as root)
      }
      const error = await refusal(createFsSpillStore(subject.provider, dir).save({ tool: "grep", content: "secret\n" }));
      // Where permissions hold (memory, a disk as an ordinary user) the other user's 0755 folder refuses the
      // write by itself; where they do not (a disk run as root), only the owner check stands in the way.
      if (!subject.provider.capabilities.permissionErrors) {
        assert(error.message.includes("belongs to another user"), `the reason names the owner: ${error.message}`);
      }
      assertEquals(await subject.probe.list(dir), [], "entries in the other user's folder");
    },
  },
];

/** The FileSystem spill store: streamed spills are atomic, bounded and fail without hanging. */
export const spillGroup: ConformanceGroup = { name: "spill", cases };
