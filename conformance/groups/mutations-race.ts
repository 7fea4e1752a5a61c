import { FsError, type FileSystem, type FsFence, type FsTarget, isFsError } from "../../core/mod.ts";
import { assert, assertBytes, assertEquals } from "../assert.ts";
import type { Probe } from "../harness.ts";
import type { ConformanceGroup, SubjectTraits } from "../suite.ts";
import { text, under, utf8 } from "../util.ts";
import { needsMutations } from "./mutations.ts";

const SWAP_ROUNDS = 100;
const ROUNDS = 200;
const KILLS = 5;

const needsPinnedMutations = (traits: SubjectTraits): string | undefined =>
  needsMutations(traits) ??
  (!traits.races.swapper
    ? "the subject has no directory swapper (races.swapper)"
    : traits.pinnedPublication
      ? undefined
      : "moves and removals are path-based here (pinnedPublication: false): a rename racing the last check can redirect one outside the fence");

const needsSibling = (traits: SubjectTraits): string | undefined =>
  needsMutations(traits) ?? (traits.races.sibling ? undefined : "the subject has no second provider (races.sibling)");

const needsKillableMovers = (traits: SubjectTraits): string | undefined =>
  needsMutations(traits) ??
  (!traits.races.spawn
    ? "the subject cannot start movers in other processes (races.spawn)"
    : traits.detectsDeadWriters
      ? undefined
      : "the backend cannot tell a killed mover from a live one (detectsDeadWriters: false): its locks go after 30 s");

// The fence of a workspace: nothing outside `root` may change.
function workspaceFence(provider: FileSystem, root: FsTarget): FsFence {
  return (target) => {
    if (!provider.contains(root, target)) {
      throw new FsError("FS_SANDBOX_DENIED", `"${target.displayPath}" is outside the workspace`, { details: { path: target.displayPath } });
    }
  };
}

// Every entry under `dir`, recursively, with a file's content, for comparing a folder before and after.
async function snapshot(probe: Probe, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await probe.list(dir)) {
    const path = `${dir}/${name}`;
    const info = await probe.info(path);
    if (info?.type === "directory") out.push(`${path}/`, ...(await snapshot(probe, path)));
    else out.push(`${path} ${info?.type === "file" ? text(await probe.readFile(path)) : info?.type}`);
  }
  return out;
}

function tally(outcomes: Record<string, number>, outcome: string): void {
  outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
}

async function attempt(outcomes: Record<string, number>, what: string, work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    tally(outcomes, `${what}: done`);
    return true;
  } catch (error) {
    if (!isFsError(error)) throw error;
    tally(outcomes, `${what}: ${error.code}`);
    return false;
  }
}

/**
 * Removal and moves raced: a folder swapped for an outward symlink while they run, and another provider's
 * guarded edits of the file they remove and move. Outcomes are counted, never timed.
 */
export const mutationsRaceGroup: ConformanceGroup = {
  name: "mutations-race",
  cases: [
    {
      name: `a directory swapped with an outward symlink during ${SWAP_ROUNDS} rounds of moves, removals and folder creation: nothing outside changes`,
      skip: needsPinnedMutations,
      async run({ provider, probe, races }) {
        const target = under(probe.outside, "target");
        // The outside folder holds every name the rounds act on, so a redirected move or removal would show.
        for (let i = 0; i < SWAP_ROUNDS; i++) {
          await probe.writeFile(`${target}/m-${i}.txt`, `outside m ${i}\n`);
          await probe.writeFile(`${target}/n-${i}.txt`, `outside n ${i}\n`);
          await probe.mkdir(`${target}/dir-${i}`);
        }
        await probe.writeFile("d/keep.txt", "inside\n");
        await probe.symlink(target, "swap");
        const outsideBefore = await snapshot(probe, target);
        const fence = workspaceFence(provider, await provider.resolve(probe.root));
        const outcomes: Record<string, number> = {};
        const swapper = await races!.swapper!("d", "swap");
        try {
          for (let i = 0; i < SWAP_ROUNDS; i++) {
            const at = (name: string) => provider.resolve(`d/${name}`);
            await attempt(outcomes, "write", async () => provider.write(await at(`m-${i}.txt`), utf8(`inside ${i}\n`), { fence }));
            await attempt(outcomes, "move", async () => provider.move(await at(`m-${i}.txt`), await at(`n-${i}.txt`), { fence }));
            await attempt(outcomes, "remove", async () => provider.remove(await at(`n-${i}.txt`), { fence }));
            await attempt(outcomes, "mkdir", async () => provider.mkdir(await at(`dir-${i}`), { fence }));
            await attempt(outcomes, "move folder", async () => provider.move(await at(`dir-${i}`), await at(`moved-${i}`), { fence }));
            await attempt(outcomes, "remove folder", async () => provider.remove(await at(`moved-${i}`), { fence, directory: true }));
          }
        } finally {
          await swapper.stop();
        }
        assertEquals(await snapshot(probe, target), outsideBefore, `the outside folder (outcomes: ${JSON.stringify(outcomes)})`);
        assertEquals((await probe.info("d"))?.type, "directory", "the swapper restored d");
        assertBytes(await probe.readFile("d/keep.txt"), "inside\n");
        assertEquals(
          (await probe.list("d")).filter((name) => name.includes(".toolfs-")),
          [],
          "staged or lock files left behind",
        );
      },
    },
    {
      name: `movers killed mid-move ${KILLS} times (a file and a folder, shuttled between two names): one of the names always holds the bytes`,
      skip: needsKillableMovers,
      async run({ probe, races }) {
        await probe.writeFile("a.txt", "payload\n");
        await probe.writeFile("dir-a/inside.txt", "inside\n");
        const outcomes: Record<string, number> = {};
        for (let i = 0; i < KILLS; i++) {
          const movers = await Promise.all([
            races!.spawn!({ kind: "shuttle", path: "a.txt", other: "b.txt" }),
            races!.spawn!({ kind: "shuttle", path: "dir-a", other: "dir-b" }),
          ]);
          await Promise.all(movers.map((mover) => mover.waitFor("moving")));
          await Promise.all(movers.map((mover) => mover.kill()));
          const files = (await Promise.all(["a.txt", "b.txt"].map((name) => probe.readFile(name)))).filter((bytes) => bytes !== undefined);
          assert(files.length > 0, `kill ${i}: both file names are missing`);
          for (const bytes of files) assertBytes(bytes, "payload\n", `kill ${i}: a file name holds other bytes`);
          // A kill between the link and the unlink of a file move leaves both names: the next mover starts from one.
          tally(outcomes, `file under ${files.length} name(s)`);
          if (files.length === 2) await probe.remove("b.txt");
          const folders = (await Promise.all(["dir-a", "dir-b"].map((name) => probe.info(name)))).filter((info) => info?.type === "directory");
          assertEquals(folders.length, 1, `kill ${i}: folders holding the contents (${JSON.stringify(outcomes)})`);
          const folder = (await probe.info("dir-a")) ? "dir-a" : "dir-b";
          assertBytes(await probe.readFile(`${folder}/inside.txt`), "inside\n", `kill ${i}: the folder's contents`);
        }
      },
    },
    {
      name: `two providers of one storage, ${ROUNDS} rounds of guarded edits against guarded moves and removals: no edit reported applied is lost, no removed file comes back`,
      skip: needsSibling,
      async run({ provider, probe, races }) {
        const other = await races!.sibling!();
        await probe.mkdir("archive");
        const file = await provider.resolve("shared.txt");
        // Where every generation of the file ended: moved to the archive, removed (with the bytes the guard
        // proved were removed), or still there at the end.
        const removed: string[] = [];
        const applied: string[] = [];
        const editor = async () => {
          for (let i = 0; i < ROUNDS; i++) {
            let read: { bytes: Uint8Array; version: import("../../core/mod.ts").FsVersion } | undefined;
            try {
              read = await provider.readBytes(file, { maxBytes: 1 << 20 });
            } catch (error) {
              if (!isFsError(error, "FS_NOT_FOUND")) throw error;
            }
            const line = read ? `edit ${i}` : `start ${i}`;
            const bytes = utf8(`${read ? text(read.bytes) : ""}${line}\n`);
            try {
              await provider.write(file, bytes, { guard: read ? { kind: "replaceIfVersion", version: read.version } : { kind: "createIfAbsent" } });
              applied.push(line);
            } catch (error) {
              if (!isFsError(error, "FS_STALE_VERSION") && !isFsError(error, "FS_NOT_OBSERVED")) throw error;
            }
          }
        };
        const mover = async () => {
          const mine = await other.resolve("shared.txt");
          for (let i = 0; i < ROUNDS; i++) {
            let read: { bytes: Uint8Array; version: import("../../core/mod.ts").FsVersion };
            try {
              read = await other.readBytes(mine, { maxBytes: 1 << 20 });
            } catch (error) {
              if (!isFsError(error, "FS_NOT_FOUND")) throw error;
              await new Promise((resolve) => setTimeout(resolve, 0));
              continue;
            }
            const guard = { kind: "ifVersion", version: read.version } as const;
            try {
              if (i % 2 === 0) await other.move(mine, await other.resolve(`archive/${i}.txt`), { guard });
              else {
                await other.remove(mine, { guard });
                removed.push(text(read.bytes));
              }
            } catch (error) {
              if (!isFsError(error, "FS_STALE_VERSION")) throw error;
            }
          }
        };
        await Promise.all([editor(), mover()]);
        const ends = [...removed];
        for (const name of await probe.list("archive")) ends.push(text(await probe.readFile(`archive/${name}`)));
        const final = await probe.readFile("shared.txt");
        if (final) ends.push(text(final));
        const lines = ends.flatMap((content) => content.split("\n").filter((line) => line !== ""));
        const lost = applied.filter((line) => !lines.includes(line));
        assertEquals(lost, [], "edits reported applied that no generation of the file holds");
        const twice = lines.filter((line, index) => lines.indexOf(line) !== index);
        assertEquals(twice, [], "lines found in two generations: a removed or moved file came back");
        assertEquals(
          (await probe.list(probe.root)).filter((name) => name.includes(".toolfs-")),
          [],
          "staged or lock files left behind",
        );
      },
    },
  ],
};
