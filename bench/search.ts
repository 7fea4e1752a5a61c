// bench/search: toolfs glob and grep against bare ripgrep with the same argv, in the same run, on a generated
// 100,000-file tree; and the over-cap sampler on 100,000 and 1,000,000 paths. Medians of alternating runs
// (--runs N, default 11); compare the ratios, not the milliseconds. Run: npx tsx bench/search.ts [--runs N]
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { rgPath } from "@vscode/ripgrep";
import { createFsSpillStore, createToolkit, ripgrepFilesArgs, ripgrepGrepArgs, sampleAcrossEntries } from "../core/mod.ts";
import { createNodeProvider, createNodeSearchBackend } from "../adapters/node/mod.ts";

const RUNS = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? 11) || 11;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const dir = mkdtempSync(join(tmpdir(), "toolfs-bench-search-"));
const root = join(dir, "tree");

function makeTree(): void {
  const t0 = Date.UTC(2024, 0, 1) / 1000;
  const needles = Array.from({ length: 8 }, (_, i) => `n${i}`).join("\n");
  for (let d = 0; d < 100; d++) {
    const sub = join(root, `p${d}`);
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 1000; f++) {
      const path = join(sub, `f${f}.ts`);
      // One file in ten holds eight matching lines: about 80,000 matches in 10,000 files.
      writeFileSync(path, f % 10 === 0 ? `export const v = ${f};\n${needles}\n` : `export const v = ${f};\n`);
      utimesSync(path, t0 + d * 1000 + f, t0 + d * 1000 + f);
    }
  }
}

function bare(args: string[]): number {
  const t0 = performance.now();
  const result = spawnSync(rgPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (result.status !== 0) throw new Error(`rg exited ${result.status}: ${result.stderr}`);
  return ms;
}

try {
  makeTree();
  const fs = createNodeProvider({ cwd: root });
  const kit = createToolkit({ fs, search: createNodeSearchBackend(), spill: createFsSpillStore(fs, join(dir, "spill")) });
  const vcs = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"].flatMap((v) => [{ glob: `!${v}` }, { glob: `!${v}/**` }]);
  const globArgs = ripgrepFilesArgs({ cwd: root, globs: [{ glob: "*" }, ...vcs], hidden: true, noIgnore: true, sort: { by: "modified" } });
  const grepArgs = ripgrepGrepArgs({ cwd: root, pattern: "^n\\d" });
  const globTool: number[] = [];
  const globBare: number[] = [];
  const grepTool: number[] = [];
  const grepBare: number[] = [];
  let grepHeader = "";
  // Alternate which of each pair runs first, so neither always follows the other benchmark's cache effects.
  const timed = async (work: () => Promise<void> | void): Promise<number> => {
    const t0 = performance.now();
    await work();
    return performance.now() - t0;
  };
  for (let i = 0; i < RUNS; i++) {
    const toolGlob = () =>
      timed(async () => {
        const glob = await kit.call("glob", { pattern: "*" });
        if (glob.isError) throw new Error(glob.content);
      });
    const toolGrep = () =>
      timed(async () => {
        const grep = await kit.call("grep", { pattern: "^n\\d" });
        if (grep.isError) throw new Error(grep.content);
        grepHeader = grep.content.split("\n")[0] ?? "";
      });
    if (i % 2 === 0) {
      globTool.push(await toolGlob());
      globBare.push(bare(globArgs));
      grepTool.push(await toolGrep());
      grepBare.push(bare(grepArgs));
    } else {
      globBare.push(bare(globArgs));
      globTool.push(await toolGlob());
      grepBare.push(bare(grepArgs));
      grepTool.push(await toolGrep());
    }
  }
  console.log(`tree: 100,000 files in 100 top-level entries; argv glob: rg ${globArgs.slice(0, 6).join(" ")} …`);
  console.log(`glob *: toolfs ${median(globTool).toFixed(0)} ms, bare rg ${median(globBare).toFixed(0)} ms, ratio ${(median(globTool) / median(globBare)).toFixed(2)} (target <= 1.10)`);
  console.log(`grep ^n\\d (${grepHeader}): toolfs ${median(grepTool).toFixed(0)} ms, bare rg --json ${median(grepBare).toFixed(0)} ms, ratio ${(median(grepTool) / median(grepBare)).toFixed(2)} (target <= 1.5)`);

  const sample = (count: number, groups: number) => {
    const paths = Array.from({ length: count }, (_, i) => `g${i % groups}/f${i}`);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      sampleAcrossEntries(paths, 100);
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  const small = sample(100_000, 12_500);
  const large = sample(1_000_000, 125_000);
  const sameEntries = sample(1_000_000, 12_500);
  console.log(
    `sampler: 100,000 paths / 12,500 entries ${small.toFixed(1)} ms; 1,000,000 paths / 125,000 entries ${large.toFixed(1)} ms ` +
      `(${(large / small).toFixed(1)}x for 10x input); 1,000,000 paths / 12,500 entries ${sameEntries.toFixed(1)} ms (${(sameEntries / small).toFixed(1)}x)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
