// bench/races: the attacks of issue 9, counted. Over any conformance subject with race hooks it measures
// files that land outside while a process swaps a workspace directory with an outward symlink, edits lost by
// two providers or two processes doing read-then-guarded-append, staged files left by writers killed with
// SIGKILL at random moments (and what remains once the next writer has written there), and whether a
// 240-byte name can be written and edited. Entry points: bench/races.node.ts (node, memory) and
// bench/races.deno.ts (deno with and without FFI, memory).
import { appendRounds, type CreateSubject, type Subject } from "../conformance/mod.ts";
import { createToolkit } from "../core/mod.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface RaceFigures {
  readonly subject: string;
  readonly swap?: { swaps: number; created: number; replaced: number; outsideEntries: number; outsideOverwritten: boolean; createdMissing: number };
  readonly lostProviders?: { rounds: number; applied: number; lost: number };
  readonly lostProcesses?: { rounds: number; applied: number; lost: number };
  readonly kills?: { kills: number; leftAfterKills: number; leftAfterNextWrite: number };
  readonly longName?: { write: string; edit: string };
}

export interface RaceOptions {
  readonly swapWrites?: number;
  readonly rounds?: number;
  readonly kills?: number;
  /** Milliseconds to wait before each kill, chosen at random below this. */
  readonly killWithinMs?: number;
}

export async function measureRaces(name: string, createSubject: CreateSubject, options?: RaceOptions): Promise<RaceFigures> {
  const figures: Record<string, unknown> = { subject: name };
  const once = async <T>(work: (subject: Subject) => Promise<T>): Promise<T> => {
    const subject = await createSubject();
    try {
      return await work(subject);
    } finally {
      await subject.dispose();
    }
  };
  const probeSubject = await createSubject();
  const hooks = probeSubject.races;
  await probeSubject.dispose();
  if (hooks?.swapper) figures.swap = await once((s) => swapRace(s, options?.swapWrites ?? 300));
  if (hooks?.sibling) figures.lostProviders = await once((s) => lostUpdates(s, "providers", options?.rounds ?? 200));
  if (hooks?.spawn) figures.lostProcesses = await once((s) => lostUpdates(s, "processes", options?.rounds ?? 200));
  if (hooks?.spawn) figures.kills = await once((s) => killLeftovers(s, options?.kills ?? 60, options?.killWithinMs ?? 40));
  figures.longName = await once(longName);
  return figures as unknown as RaceFigures;
}

async function swapRace({ provider, probe, races }: Subject, writes: number): Promise<NonNullable<RaceFigures["swap"]>> {
  const target = `${probe.outside}/target`;
  await probe.writeFile(`${target}/victim.txt`, "outside\n");
  await probe.writeFile("d/victim.txt", "inside\n");
  await probe.symlink(target, "swap");
  const kit = createToolkit({ fs: provider, workspace: probe.root, sandbox: { mode: "workspace-write" } });
  const swapper = await races!.swapper!("d", "swap");
  const created: string[] = [];
  let replaced = 0;
  let swaps = 0;
  try {
    for (let i = 0; i < writes; i++) {
      if (!(await kit.call("write", { path: `d/new-${i}.txt`, content: `model bytes ${i}\n` })).isError) created.push(`new-${i}.txt`);
      await kit.call("read", { path: "d/victim.txt" });
      if (!(await kit.call("write", { path: "d/victim.txt", content: `replaced ${i}\n` })).isError) replaced++;
    }
  } finally {
    swaps = await swapper.stop();
  }
  const outside = (await probe.list(target)).filter((n) => n !== "victim.txt");
  const inside = await probe.list("d");
  return {
    swaps,
    created: created.length,
    replaced,
    outsideEntries: outside.length,
    outsideOverwritten: decoder.decode(await probe.readFile(`${target}/victim.txt`)) !== "outside\n",
    createdMissing: created.filter((n) => !inside.includes(n)).length,
  };
}

async function lostUpdates(
  { provider, probe, races }: Subject,
  how: "providers" | "processes",
  rounds: number,
): Promise<{ rounds: number; applied: number; lost: number }> {
  await probe.writeFile("shared.txt", "start\n");
  let applied: [string, number[]][];
  if (how === "providers") {
    const other = await races!.sibling!();
    const [a, b] = await Promise.all([appendRounds(provider, "shared.txt", "a", rounds), appendRounds(other, "shared.txt", "b", rounds)]);
    applied = [
      ["a", a],
      ["b", b],
    ];
  } else {
    const writers = await Promise.all(["a", "b"].map((tag) => races!.spawn!({ kind: "append", path: "shared.txt", tag, rounds })));
    await Promise.all(writers.map((w) => w.waitFor("ready")));
    for (const w of writers) w.go();
    const results = await Promise.all(writers.map((w) => w.result()));
    applied = [
      ["a", JSON.parse(results[0]!)],
      ["b", JSON.parse(results[1]!)],
    ];
  }
  const lines = new Set(decoder.decode(await probe.readFile("shared.txt")).split("\n"));
  let total = 0;
  let lost = 0;
  for (const [tag, rounds] of applied) {
    total += rounds.length;
    lost += rounds.filter((i) => !lines.has(`${tag} ${i}`)).length;
  }
  return { rounds, applied: total, lost };
}

async function killLeftovers({ provider, probe, races }: Subject, kills: number, withinMs: number): Promise<NonNullable<RaceFigures["kills"]>> {
  await probe.writeFile("d/a.txt", "seed\n");
  for (let i = 0; i < kills; i++) {
    const writer = await races!.spawn!({ kind: "rewrite", path: "d/a.txt" });
    await writer.waitFor("writing");
    await new Promise((resolve) => setTimeout(resolve, Math.random() * withinMs));
    await writer.kill();
  }
  const staged = (names: string[]) => names.filter((n) => n.includes(".toolfs-")).length;
  const leftAfterKills = staged(await probe.list("d"));
  await provider.write(await provider.resolve("d/next.txt"), encoder.encode("next\n"));
  return { kills, leftAfterKills, leftAfterNextWrite: staged(await probe.list("d")) };
}

async function longName({ provider, probe }: Subject): Promise<{ write: string; edit: string }> {
  const name = "é".repeat(120);
  const kit = createToolkit({ fs: provider, workspace: probe.root });
  const write = await kit.call("write", { path: name, content: "one\ntwo\n" });
  const edit = await kit.call("edit", { path: name, old_string: "two", new_string: "three" });
  const outcome = (r: typeof write) => (r.isError ? `failed ${r.error?.code}: ${r.content.slice(0, 120)}` : "ok");
  return { write: outcome(write), edit: outcome(edit) };
}
