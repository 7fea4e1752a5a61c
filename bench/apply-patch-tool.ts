// bench/apply-patch-tool: the apply_patch tool applying a 100-file, 1,000-hunk patch through a toolkit, on the
// node and the memory providers, against a baseline in the same run: the same toolkit writing the same 100 new
// contents with `write`, one call per file. Both start after the same 100 reads (read-before-write); only the
// change itself is timed. Each (backend, phase) runs in its own child process on a fresh workspace per run; its
// peak RSS is the rise of the child's high-water mark during its first change (the warm-up). Times are medians of --runs
// runs (default 7) after one warm-up; compare the ratios, not the milliseconds.
// Run: npx tsx bench/apply-patch-tool.ts [--files N] [--lines N] [--hunks N] [--runs N]
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createNodeProvider } from "../adapters/node/mod.ts";
import { createToolkit, type FileSystem, parsePatch, planPatch } from "../core/mod.ts";

const flag = (name: string, fallback: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const FILES = flag("--files", 100);
const LINES = flag("--lines", 1000);
const HUNKS = flag("--hunks", 10);
const RUNS = flag("--runs", 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const backends = ["node", "memory"] as const;
const phases = ["write", "apply_patch"] as const;
type Backend = (typeof backends)[number];
type Phase = (typeof phases)[number];
interface Result {
  readonly ms: number;
  readonly cpuMs: number;
  readonly peakKiB: number;
}

function generate(dir: string): void {
  const patch = ["*** Begin Patch"];
  for (let f = 0; f < FILES; f++) {
    const lines = Array.from({ length: LINES }, (_, i) => (i % 7 === 6 ? "}" : `  const v${f}_${i} = compute(${i}, "file ${f}");`));
    writeFileSync(join(dir, "seed", `f${f}.ts`), `${lines.join("\n")}\n`);
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

async function child(dir: string, backend: Backend, phase: Phase): Promise<void> {
  const seed = new Map<string, string>();
  for (let f = 0; f < FILES; f++) seed.set(`f${f}.ts`, readFileSync(join(dir, "seed", `f${f}.ts`), "utf8"));
  const patch = readFileSync(join(dir, "patch.txt"), "utf8");
  // The contents write publishes: what the patch makes of each file, computed once, before anything is measured.
  const after = new Map((await planPatch(parsePatch(patch), async (p) => seed.get(p))).changes.map((c) => [c.path, c.kind === "update" ? c.after : ""]));
  let round = 0;
  const fresh = (): FileSystem => {
    if (backend === "memory") return createMemoryProvider({ files: Object.fromEntries(seed), cwd: "/ws" });
    const ws = join(dir, `ws${round++}`);
    cpSync(join(dir, "seed"), ws, { recursive: true });
    return createNodeProvider({ cwd: ws });
  };
  const times: number[] = [];
  const cpu: number[] = [];
  let peakKiB = 0;
  for (let r = -1; r < RUNS; r++) {
    const kit = createToolkit({ fs: fresh(), tools: ["read", "write", "apply_patch"] });
    for (const path of seed.keys()) if ((await kit.call("read", { path, limit: 1 })).isError) throw new Error(`read ${path}`);
    const rss0 = process.resourceUsage().maxRSS;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    if (phase === "apply_patch") {
      const result = await kit.call("apply_patch", { input: patch });
      if (result.isError) throw new Error(result.content);
    } else {
      for (const [path, content] of after) {
        const result = await kit.call("write", { path, content });
        if (result.isError) throw new Error(result.content);
      }
    }
    const c = process.cpuUsage(c0);
    if (r === -1) peakKiB = process.resourceUsage().maxRSS - rss0;
    if (r >= 0) {
      times.push(performance.now() - t0);
      cpu.push((c.user + c.system) / 1000);
    }
  }
  process.stdout.write(JSON.stringify({ ms: median(times), cpuMs: median(cpu), peakKiB } satisfies Result));
}

async function main(): Promise<void> {
  const at = process.argv.indexOf("--phase");
  if (at !== -1) return child(process.argv[at + 1] as string, process.argv[at + 2] as Backend, process.argv[at + 3] as Phase);
  const dir = mkdtempSync(join(tmpdir(), "toolfs-bench-apply-patch-tool-"));
  try {
    mkdirSync(join(dir, "seed"));
    generate(dir);
    const patchBytes = readFileSync(join(dir, "patch.txt")).length;
    console.log(`${FILES} files × ${LINES} lines, ${FILES * HUNKS} hunks; patch ${(patchBytes / 1024).toFixed(0)} KiB; median of ${RUNS} runs`);
    for (const backend of backends) {
      const results = new Map<Phase, Result>();
      for (const phase of phases) {
        const args = [...process.execArgv, process.argv[1] as string, "--phase", dir, backend, phase];
        for (const [name, value] of [
          ["--files", FILES],
          ["--lines", LINES],
          ["--hunks", HUNKS],
          ["--runs", RUNS],
        ] as const)
          args.push(name, `${value}`);
        const run = spawnSync(process.execPath, args, { encoding: "utf8" });
        if (run.status !== 0) throw new Error(`${backend} ${phase}: ${run.stderr}`);
        results.set(phase, JSON.parse(run.stdout) as Result);
      }
      const base = results.get("write") as Result;
      const x = (a: number, b: number) => `${(a / Math.max(b, 0.001)).toFixed(2)}x`;
      for (const [phase, r] of results) {
        console.log(
          `${backend.padEnd(6)} ${phase.padEnd(11)} wall ${r.ms.toFixed(1).padStart(7)} ms (${x(r.ms, base.ms)})  cpu ${r.cpuMs.toFixed(1).padStart(7)} ms (${x(r.cpuMs, base.cpuMs)})` +
            `  peak RSS +${(r.peakKiB / 1024).toFixed(1)} MiB — ratios against write`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
