import { createEngineBackend, createToolkit, type FileSystem, isFsError, type SearchBackend, type ShellConfinement } from "../../core/mod.ts";
import { assert, assertBytes, assertEquals } from "../assert.ts";
import type { Probe, Subject } from "../harness.ts";
import type { ConformanceGroup, SubjectTraits } from "../suite.ts";
import { appendRounds } from "../worker.ts";
import { collect, text, under } from "../util.ts";

const ROUNDS = 200;
const SWAP_WRITES = 120;
const SWAP_READS = 100;
// The seam read race makes this many reads and listings of targets that resolved inside, however many
// rounds that takes (a target that resolved outside is not read); past the cap it fails rather than pass
// on too little evidence.
const SEAM_READS = 100;
const SEAM_ROUNDS_CAP = 20_000;
// What only the outside folder holds: its file's content, and the name of a file only it has.
const SECRET = "SECRET-9f2e";
const OUTSIDE_ONLY = "outside-only.txt";

const needs =
  (hook: keyof SubjectTraits["races"], what: string) =>
  (traits: SubjectTraits): string | undefined =>
    traits.races[hook] ? undefined : `the subject has no ${what} (races.${hook})`;

const needsPinning = (traits: SubjectTraits): string | undefined =>
  traits.races.swapper
    ? traits.pinnedPublication
      ? undefined
      : "publication is path-based here (pinnedPublication: false): a rename racing the last check can redirect a write outside the fence"
    : "the subject has no directory swapper (races.swapper)";

const needsPinnedReads = (traits: SubjectTraits): string | undefined =>
  traits.races.swapper
    ? traits.pinnedPublication
      ? undefined
      : "reads and listings are path-based here (pinnedPublication: false): a folder swapped on the path between the check and the open can redirect one"
    : "the subject has no directory swapper (races.swapper)";

// Counts outcomes by name.
function tally(outcomes: Record<string, number>, outcome: string): void {
  outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
}

const needsDeadWriters = (traits: SubjectTraits): string | undefined =>
  !traits.races.spawn
    ? "the subject cannot start writers in other processes (races.spawn)"
    : traits.detectsDeadWriters
      ? undefined
      : "the backend cannot tell a dead writer from a live one (detectsDeadWriters: false): its files go after an hour, its locks after 30 s";

// Every line `<tag> <i>` for the rounds a writer reported applied that the file does not hold.
function missing(content: string, tag: string, applied: readonly number[]): string[] {
  const lines = new Set(content.split("\n"));
  return applied.filter((i) => !lines.has(`${tag} ${i}`)).map((i) => `${tag} ${i}`);
}

// Names under `dir` (recursively), for reporting what appeared where it must not.
async function tree(probe: Probe, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await probe.list(dir)) {
    const path = `${dir}/${name}`;
    out.push(path);
    if ((await probe.info(path))?.type === "directory") out.push(...(await tree(probe, path)));
  }
  return out;
}

/**
 * Races that only other writers can create: another provider of the same storage, writers in other
 * processes (killed mid-write, too), and a process swapping a workspace directory with a symlink to an
 * outside folder while the toolkit writes into it. Outcomes are counted, never timed.
 */
export const raceGroup: ConformanceGroup = {
  name: "race",
  cases: [
    {
      name: `a directory swapped with an outward symlink during ${SWAP_WRITES} creates and replaces: nothing lands outside`,
      skip: needsPinning,
      async run({ provider, probe, races }, { rounds }) {
        const target = under(probe.outside, "target");
        await probe.writeFile(`${target}/victim.txt`, "outside\n");
        await probe.writeFile("d/victim.txt", "inside\n");
        await probe.symlink(target, "swap");
        const kit = createToolkit({ fs: provider, workspace: probe.root, sandbox: { mode: "workspace-write" } });
        const swapper = await races!.swapper!("d", "swap");
        const created: string[] = [];
        let replaced = 0;
        try {
          for (let i = 0, n = rounds(SWAP_WRITES); i < n; i++) {
            const name = `new-${i}.txt`;
            if (!(await kit.call("write", { path: `d/${name}`, content: `model bytes ${i}\n` })).isError) created.push(name);
            await kit.call("read", { path: "d/victim.txt" });
            if (!(await kit.call("write", { path: "d/victim.txt", content: `replaced ${i}\n` })).isError) replaced++;
          }
        } finally {
          await swapper.stop();
        }
        assertEquals(await tree(probe, target), [`${target}/victim.txt`], "entries in the outside folder");
        assertBytes(await probe.readFile(`${target}/victim.txt`), "outside\n", "the outside file");
        assertEquals((await probe.info("d"))?.type, "directory", "the swapper restored d");
        const inside = await probe.list("d");
        const lost = created.filter((name) => !inside.includes(name));
        assertEquals(lost, [], "files reported created that are not in the workspace folder");
        assertEquals(
          inside.filter((name) => name.includes(".toolfs-")),
          [],
          "staged or lock files left behind",
        );
        assert(replaced === 0 || text(await probe.readFile("d/victim.txt")).startsWith("replaced "), "the inside file holds a replacement");
      },
    },
    {
      name: `a directory swapped with an outward symlink during ${SWAP_READS} rounds of reads and listings: no outside byte or name comes back`,
      skip: needsPinnedReads,
      async run({ provider, probe, races }, { rounds: scaled }) {
        const reads = scaled(SEAM_READS);
        const target = under(probe.outside, "target");
        await probe.writeFile(`${target}/f.txt`, `${SECRET}\n`);
        await probe.writeFile(`${target}/${OUTSIDE_ONLY}`, `${SECRET}\n`);
        await probe.writeFile("d/f.txt", "inside\n");
        await probe.symlink(target, "swap");
        const root = await provider.resolve(probe.root);
        const leaks: string[] = [];
        const outcomes: Record<string, number> = {};
        let made = 0;
        let rounds = 0;
        const swapper = await races!.swapper!("d", "swap");
        try {
          for (; made < reads && rounds < scaled(SEAM_ROUNDS_CAP); rounds++) {
            // The seam: whatever the path led to when it was resolved inside is all a read or a listing may see.
            const file = await provider.resolve("d/f.txt");
            const dir = await provider.resolve("d");
            const attempts: [string, () => Promise<string>][] = [
              ["readBytes", async () => text((await provider.readBytes(file, { maxBytes: 1024 })).bytes)],
              ["readStream", async () => text(await collect(await provider.readStream(file)))],
              ["listDir", async () => (await provider.listDir(dir)).map((e) => e.name).join(" ")],
            ];
            for (const [what, attempt] of attempts) {
              if (!provider.contains(root, what === "listDir" ? dir : file)) {
                tally(outcomes, `${what}: resolved outside`);
                continue;
              }
              made++;
              const seen = await attempt().catch((error: unknown) => (isFsError(error) ? error.code : String(error)));
              if (seen.includes(SECRET) || seen.includes(OUTSIDE_ONLY)) leaks.push(`${what}: ${seen}`);
              tally(outcomes, `${what}: ${seen.startsWith("FS_") ? seen : "read"}`);
            }
          }
        } finally {
          const swaps = await swapper.stop();
          assert(swaps > 0, "the swapper exchanged the directory");
        }
        assert(
          made >= reads,
          `only ${made} of ${reads} reads and listings were made in ${rounds} rounds: the targets kept resolving outside, so the case has too little evidence (outcomes ${JSON.stringify(outcomes)})`,
        );
        assertEquals(leaks, [], `reads or listings that returned what the outside folder holds, of ${made} made (outcomes ${JSON.stringify(outcomes)})`);
      },
    },
    {
      name: `under the workspace read scope, ${SWAP_READS} rounds of read, write, edit, grep and glob racing a swapped directory: no outside byte or name in any result`,
      skip: needsPinnedReads,
      // The engine searches through this provider, so its walk and reads are the seam's on every backend.
      run: (subject, { rounds }) => toolsRace(subject, createEngineBackend(subject.provider), undefined, rounds(SWAP_READS)),
    },
    {
      name: `under the workspace read scope, ${SWAP_READS} rounds of read, write, edit, grep and glob racing a swapped directory, searching with the subject's backend inside its OS confinement: no outside byte or name in any result`,
      skip: (traits) =>
        needsPinnedReads(traits) ??
        (traits.search === undefined
          ? "the subject has no search backend"
          : !traits.confinement
            ? "the subject offers no OS confinement"
            : traits.confinement.available
              ? undefined
              : `the subject's OS confinement is unavailable: ${traits.confinement.reason ?? "no reason given"}`),
      run: (subject, { rounds }) => toolsRace(subject, subject.search!, subject.confinement, rounds(SWAP_READS)),
    },
    {
      name: `under the workspace read scope, ${SWAP_READS} rounds of read, write, edit, grep and glob racing a swapped directory, searching with the subject's backend without OS confinement: no outside byte or name in any result`,
      skip: (traits) => needsPinnedReads(traits) ?? (traits.search === undefined ? "the subject has no search backend" : undefined),
      run: (subject, { rounds }) => toolsRace(subject, subject.search!, undefined, rounds(SWAP_READS)),
    },
    {
      name: `two providers of one storage, ${ROUNDS} rounds each of read then guarded append: no reported edit is lost`,
      skip: needs("sibling", "second provider"),
      async run({ provider, probe, races }, { rounds }) {
        await probe.writeFile("shared.txt", "start\n");
        const other: FileSystem = await races!.sibling!();
        const [left, right] = await Promise.all([
          appendRounds(provider, "shared.txt", "left", rounds(ROUNDS)),
          appendRounds(other, "shared.txt", "right", rounds(ROUNDS)),
        ]);
        const content = text(await probe.readFile("shared.txt"));
        assertEquals([...missing(content, "left", left), ...missing(content, "right", right)], [], "edits reported applied and missing");
        assertEquals(content.split("\n").length - 2, left.length + right.length, "lines appended");
      },
    },
    {
      name: `two processes, ${ROUNDS} rounds each of read then guarded append: no reported edit is lost`,
      skip: needs("spawn", "writers in other processes"),
      async run({ probe, races }, { rounds }) {
        await probe.writeFile("shared.txt", "start\n");
        const writers = await Promise.all(["one", "two"].map((tag) => races!.spawn!({ kind: "append", path: "shared.txt", tag, rounds: rounds(ROUNDS) })));
        await Promise.all(writers.map((w) => w.waitFor("ready")));
        for (const w of writers) w.go();
        const [one, two] = (await Promise.all(writers.map((w) => w.result()))).map((line, i) => appended(line, i === 0 ? "one" : "two"));
        const content = text(await probe.readFile("shared.txt"));
        assertEquals([...missing(content, "one", one!), ...missing(content, "two", two!)], [], "edits reported applied and missing");
        assertEquals(content.split("\n").length - 2, one!.length + two!.length, "lines appended");
      },
    },
    {
      name: "writers killed mid-staging leave nothing once the next writer writes in that folder",
      skip: needsDeadWriters,
      async run({ provider, probe, races }) {
        await probe.writeFile("d/a.txt", "old\n");
        const writers = await Promise.all([0, 1, 2].map(() => races!.spawn!({ kind: "stall-staging", path: "d/a.txt" })));
        await Promise.all(writers.map((w) => w.waitFor("staged")));
        const staged = (await probe.list("d")).filter((name) => name.endsWith(".toolfs-tmp"));
        assertEquals(staged.length, 3, "each writer has a staged file");
        await Promise.all(writers.map((w) => w.kill()));
        await provider.write(await provider.resolve("d/b.txt"), new TextEncoder().encode("next\n"));
        assertEquals(await probe.list("d"), ["a.txt", "b.txt"]);
        assertBytes(await probe.readFile("d/a.txt"), "old\n");
      },
    },
    {
      name: "a writer killed while holding the publication lock does not block the next writer",
      skip: needsDeadWriters,
      async run({ provider, probe, races }) {
        await probe.writeFile("d/a.txt", "old\n");
        const writer = await races!.spawn!({ kind: "stall-locked", path: "d/a.txt" });
        await writer.waitFor("locked");
        assert(
          (await probe.list("d")).some((name) => name.endsWith(".toolfs-lock")),
          "the writer holds a lock file",
        );
        await writer.kill();
        await provider.write(await provider.resolve("d/a.txt"), new TextEncoder().encode("next\n"));
        assertBytes(await probe.readFile("d/a.txt"), "next\n");
        assertEquals(await probe.list("d"), ["a.txt"]);
      },
    },
  ],
};

/**
 * The tools under the workspace read scope while test/swap.py exchanges `d` with a symlink to a folder
 * outside: 100 rounds of read, write, edit, grep and glob, every result checked for the outside folder's
 * content and names. `search` runs glob and grep, inside `confinement` when one is given.
 */
async function toolsRace({ provider, probe, races }: Subject, search: SearchBackend, confinement: ShellConfinement | undefined, reads: number): Promise<void> {
  const target = under(probe.outside, "target");
  await probe.writeFile(`${target}/f.txt`, `${SECRET}\n`);
  await probe.writeFile(`${target}/${OUTSIDE_ONLY}`, `${SECRET}\n`);
  await probe.writeFile("d/f.txt", "inside\n");
  await probe.symlink(target, "swap");
  const kit = createToolkit({
    fs: provider,
    workspace: probe.root,
    search,
    sandbox: { mode: "workspace-write", readScope: "workspace", ...(confinement ? { confinement } : {}) },
  });
  // Before the race: the search works in this configuration and finds the inside folder's file.
  const grep = await kit.call("grep", { pattern: ".", path: "d" });
  assert(!grep.isError && grep.content.includes("inside"), `grep before the race: ${grep.content}`);
  const glob = await kit.call("glob", { pattern: "*", path: "d" });
  assert(!glob.isError && glob.content.includes("f.txt"), `glob before the race: ${glob.content}`);
  const leaks: string[] = [];
  const outcomes: Record<string, number> = {};
  const swapper = await races!.swapper!("d", "swap");
  try {
    for (let i = 0; i < reads; i++) {
      const calls: [string, Record<string, unknown>][] = [
        ["read", { path: "d/f.txt" }],
        ["write", { path: "d/f.txt", content: `inside ${i}\n` }],
        ["edit", { path: "d/f.txt", old_string: `inside ${i}`, new_string: `inside ${i}.` }],
        ["grep", { pattern: ".", path: "d" }],
        ["glob", { pattern: "*", path: "d" }],
      ];
      for (const [tool, args] of calls) {
        const result = await kit.call(tool, args);
        if (result.content.includes(SECRET) || result.content.includes(OUTSIDE_ONLY)) leaks.push(`${tool}: ${result.content}`);
        tally(outcomes, `${tool}: ${result.error?.code ?? "ok"}`);
      }
    }
  } finally {
    const swaps = await swapper.stop();
    assert(swaps > 0, "the swapper exchanged the directory");
  }
  assertEquals(leaks, [], `${leaks.length} of ${reads * 5} results showed what the outside folder holds (outcomes ${JSON.stringify(outcomes)})`);
  // A swap is no reason for a search to fail: what it makes unreachable is left out or reported as a problem.
  assertEquals(
    Object.keys(outcomes).filter((outcome) => outcome.endsWith("SEARCH_FAILED")),
    [],
    `searches that failed (outcomes ${JSON.stringify(outcomes)})`,
  );
  assertEquals(await tree(probe, target), [`${target}/f.txt`, `${target}/${OUTSIDE_ONLY}`].sort(), "entries in the outside folder");
  assertBytes(await probe.readFile(`${target}/f.txt`), `${SECRET}\n`, "the outside file");
}

// A writer's last line is the JSON list of the rounds it appended; anything else means it failed on the way.
function appended(line: string, tag: string): number[] {
  try {
    const rounds: unknown = JSON.parse(line);
    if (Array.isArray(rounds)) return rounds as number[];
  } catch {
    // reported below
  }
  throw new Error(`writer ${tag} ended without its result; its last line was ${JSON.stringify(line)} (its error is in the output above)`);
}
