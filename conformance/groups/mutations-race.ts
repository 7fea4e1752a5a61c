import { type FileSystem, FsError, type FsFence, type FsTarget, type FsVersion, isFsError } from "../../core/mod.ts";
import { assert, assertBytes, assertEquals } from "../assert.ts";
import type { Probe } from "../harness.ts";
import type { ConformanceGroup, SubjectTraits } from "../suite.ts";
import { text, under, utf8 } from "../util.ts";
import { editRounds } from "../worker.ts";

const SWAP_ROUNDS = 100;
const ROUNDS = 200;
const KILLS = 5;

const needsPinnedMutations = (traits: SubjectTraits): string | undefined =>
  !traits.races.swapper
    ? "the subject has no directory swapper (races.swapper)"
    : traits.pinnedPublication
      ? undefined
      : "moves and removals are path-based here (pinnedPublication: false): a rename racing the last check can redirect one outside the fence";

const needsSibling = (traits: SubjectTraits): string | undefined => (traits.races.sibling ? undefined : "the subject has no second provider (races.sibling)");

const needsKillableMovers = (traits: SubjectTraits): string | undefined =>
  !traits.races.spawn
    ? "the subject cannot start movers in other processes (races.spawn)"
    : traits.detectsDeadWriters
      ? undefined
      : "the backend cannot tell a killed mover from a live one (detectsDeadWriters: false): its locks go after 30 s";

const needsEditorProcess = (traits: SubjectTraits): string | undefined =>
  traits.races.spawn ? undefined : "the subject cannot start editors in other processes (races.spawn)";

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

/**
 * `rounds` times: read the shared file and, guarded by the version read, move it to the archive (even rounds)
 * or remove it (odd rounds). Returns the content of every removal that reported success: the guard proves
 * those were the bytes removed.
 */
async function moveRounds(fs: FileSystem, rounds: number): Promise<string[]> {
  const file = await fs.resolve("shared.txt");
  const removed: string[] = [];
  for (let i = 0; i < rounds; i++) {
    let read: { bytes: Uint8Array; version: FsVersion };
    try {
      read = await fs.readBytes(file, { maxBytes: 1 << 20 });
    } catch (error) {
      if (!isFsError(error, "FS_NOT_FOUND")) throw error;
      // Let the editor create it again.
      await new Promise((resolve) => setTimeout(resolve, 0));
      continue;
    }
    const guard = { kind: "ifVersion", version: read.version } as const;
    try {
      if (i % 2 === 0) await fs.move(file, await fs.resolve(`archive/${i}.txt`), { guard });
      else {
        await fs.remove(file, { guard });
        removed.push(text(read.bytes));
      }
    } catch (error) {
      if (!isFsError(error, "FS_STALE_VERSION")) throw error;
    }
  }
  return removed;
}

// Every generation of the shared file ended moved to the archive, removed (with the bytes the guard proved),
// or is still there: each applied edit must be in one of them, and no line in two (a removed or moved file
// written again by a stale edit would carry its old lines into a second generation).
async function checkGenerations(probe: Probe, applied: readonly string[], removed: readonly string[]): Promise<void> {
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
      async run({ provider, probe, races }, { rounds }) {
        const target = under(probe.outside, "target");
        // The outside folder holds every name the rounds act on, so a redirected move or removal would show.
        for (let i = 0, n = rounds(SWAP_ROUNDS); i < n; i++) {
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
          for (let i = 0, n = rounds(SWAP_ROUNDS); i < n; i++) {
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
      async run({ probe, races }, { rounds }) {
        await probe.writeFile("a.txt", "payload\n");
        await probe.writeFile("dir-a/inside.txt", "inside\n");
        const outcomes: Record<string, number> = {};
        for (let i = 0, n = rounds(KILLS); i < n; i++) {
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
      async run({ provider, probe, races }, { rounds }) {
        const other = await races!.sibling!();
        await probe.mkdir("archive");
        const [applied, removed] = await Promise.all([editRounds(provider, "shared.txt", rounds(ROUNDS)), moveRounds(other, rounds(ROUNDS))]);
        await checkGenerations(probe, applied, removed);
      },
    },
    {
      name: `an editor in another process, ${ROUNDS} rounds of guarded edits against guarded moves and removals here: no edit reported applied is lost, no removed file comes back`,
      skip: needsEditorProcess,
      async run({ provider, probe, races }, { rounds }) {
        await probe.mkdir("archive");
        const editor = await races!.spawn!({ kind: "edit", path: "shared.txt", rounds: rounds(ROUNDS) });
        await editor.waitFor("ready");
        editor.go();
        const [line, removed] = await Promise.all([editor.result(), moveRounds(provider, rounds(ROUNDS))]);
        await checkGenerations(probe, JSON.parse(line) as string[], removed);
      },
    },
  ],
};
