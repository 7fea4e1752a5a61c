// bench/apply-patch: planning a 100-file, 1,000-hunk apply_patch (parse, find every hunk, build each file's new
// text and its unified diff) against a baseline that only splits the same files into lines. Each phase runs in
// its own child process on files read from a temporary directory, so its peak RSS above the child's own
// starting point is the phase's; times (wall and CPU, the
// latter less sensitive to a loaded machine) are medians of --runs runs (default 9) after one warm-up. Compare the
// ratios, not the milliseconds. Run: npx tsx bench/apply-patch.ts [--files N] [--lines N] [--hunks N] [--runs N]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { applyHunks, parsePatch, planPatch } from "../core/text/patch/mod.ts";

const flag = (name: string, fallback: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const FILES = flag("--files", 100);
const LINES = flag("--lines", 1000);
const HUNKS = flag("--hunks", 10);
const RUNS = flag("--runs", 9);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const phases = ["split", "parse", "apply", "plan"] as const;
type Phase = (typeof phases)[number];

function generate(dir: string): void {
  const patch = ["*** Begin Patch"];
  for (let f = 0; f < FILES; f++) {
    const lines = Array.from({ length: LINES }, (_, i) => (i % 7 === 6 ? "}" : `  const v${f}_${i} = compute(${i}, "file ${f}");`));
    writeFileSync(join(dir, `f${f}.ts`), `${lines.join("\n")}\n`);
    patch.push(`*** Update File: f${f}.ts`);
    for (let h = 0; h < HUNKS; h++) {
      const at = Math.floor(((h + 0.5) * LINES) / HUNKS);
      patch.push("@@", ...lines.slice(at - 3, at).map((l) => ` ${l}`), `-${lines[at]}`, `+${lines[at]?.replace("compute", "recompute")}`, "+  // changed");
      patch.push(...lines.slice(at + 1, at + 4).map((l) => ` ${l}`));
    }
  }
  patch.push("*** End Patch");
  writeFileSync(join(dir, "patch.txt"), patch.join("\n"));
}

async function child(dir: string, phase: Phase): Promise<void> {
  const files = new Map<string, string>();
  for (let f = 0; f < FILES; f++) files.set(`f${f}.ts`, readFileSync(join(dir, `f${f}.ts`), "utf8"));
  const patch = readFileSync(join(dir, "patch.txt"), "utf8");
  const ops = phase === "apply" ? parsePatch(patch) : [];
  const read = async (path: string) => files.get(path);
  const once = async (): Promise<unknown> => {
    if (phase === "split") return [...files.values()].map((t) => t.split("\n"));
    if (phase === "parse") return parsePatch(patch);
    if (phase === "apply") return ops.map((op) => (op.kind === "update" ? applyHunks(files.get(op.path) as string, op.hunks) : ""));
    return planPatch(parsePatch(patch), read);
  };
  const startRss = process.resourceUsage().maxRSS;
  let kept = await once();
  const peak = process.resourceUsage().maxRSS - startRss;
  const times: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    kept = await once();
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    times.push(performance.now() - t0);
  }
  if (kept === undefined) throw new Error("nothing kept");
  process.stdout.write(JSON.stringify({ ms: median(times), cpuMs: median(cpu), peakKiB: peak }));
}

async function main(): Promise<void> {
  const phaseArg = process.argv.indexOf("--phase");
  if (phaseArg !== -1) return child(process.argv[phaseArg + 1] as string, process.argv[phaseArg + 2] as Phase);
  const dir = mkdtempSync(join(tmpdir(), "toolfs-bench-apply-patch-"));
  try {
    generate(dir);
    const patchBytes = readFileSync(join(dir, "patch.txt")).length;
    console.log(`${FILES} files × ${LINES} lines, ${FILES * HUNKS} hunks; patch ${(patchBytes / 1024).toFixed(0)} KiB; median of ${RUNS} runs`);
    const results = new Map<Phase, { ms: number; cpuMs: number; peakKiB: number }>();
    for (const phase of phases) {
      const args = [
        ...process.execArgv,
        process.argv[1] as string,
        "--phase",
        dir,
        phase,
        "--files",
        `${FILES}`,
        "--lines",
        `${LINES}`,
        "--hunks",
        `${HUNKS}`,
        "--runs",
        `${RUNS}`,
      ];
      const run = spawnSync(process.execPath, args, { encoding: "utf8" });
      if (run.status !== 0) throw new Error(`${phase}: ${run.stderr}`);
      results.set(phase, JSON.parse(run.stdout));
    }
    const base = results.get("split") as { ms: number; cpuMs: number; peakKiB: number };
    for (const [phase, r] of results) {
      const x = (a: number, b: number) => `${(a / Math.max(b, 0.001)).toFixed(1)}x`;
      console.log(
        `${phase.padEnd(6)} wall ${r.ms.toFixed(1).padStart(7)} ms (${x(r.ms, base.ms)})  cpu ${r.cpuMs.toFixed(1).padStart(7)} ms (${x(r.cpuMs, base.cpuMs)})` +
          `  peak RSS +${(r.peakKiB / 1024).toFixed(1)} MiB (${x(r.peakKiB, base.peakKiB)}) — ratios against split`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
