// bench/read-edit: the read tool on the last window of a 1 GiB file against `wc -l` on it (both must read every
// byte; target: at most 2x), with its peak RSS above a baseline process that loads the same modules (target:
// under 64 MiB); the diff write shows after a full rewrite of a 2,000-line file; and edit of one line in a 10 MB
// file against a bare read-modify-write of the same file. Figures are medians of several runs in this
// process's machine conditions, each read run next to its wc -l run; ratios are what to compare.
// Run: npx tsx bench/read-edit.ts [--gib N]
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, fsyncSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createToolkit, unifiedDiff } from "../core/mod.ts";
import { createNodeProvider } from "../adapters/node/mod.ts";

const GIB = Number(process.argv[process.argv.indexOf("--gib") + 1] ?? 1) || 1;
const dir = mkdtempSync(join(tmpdir(), "toolfs-bench-"));
const worker = new URL("./read-edit-worker.ts", import.meta.url).pathname;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function makeBigFile(path: string, bytes: number): number {
  const line = "2026-11-30T12:00:00Z INFO request handled path=/api/items/42 status=200 duration_ms=17 bytes=4096\n";
  const block = Buffer.from(line.repeat(Math.floor((8 << 20) / line.length)));
  const fd = openSync(path, "w");
  let written = 0;
  while (written + block.length <= bytes) written += writeSync(fd, block);
  closeSync(fd);
  return written / line.length;
}

// CPU time of reaped children, from /proc/self/stat (cutime + cstime, in clock ticks of 10 ms); undefined
// without /proc. On a loaded machine CPU time says more than wall time.
function childrenCpuMs(): number | undefined {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

function runWorker(args: string[]): { ms: number; cpuMs: number; maxRssKiB: number; detail: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", worker, ...args], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim().split("\n").at(-1) as string);
}

try {
  const big = join(dir, "big.log");
  const lines = makeBigFile(big, GIB * 1024 ** 3);
  const offset = lines - 1999;
  const wc: number[] = [];
  const wcCpu: number[] = [];
  const read: number[] = [];
  const readCpu: number[] = [];
  const ratios: number[] = [];
  const rss: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < 5; i++) {
    const c0 = childrenCpuMs();
    const t0 = performance.now();
    execFileSync("wc", ["-l", big], { stdio: ["ignore", "ignore", "inherit"] });
    wc.push(performance.now() - t0);
    const c1 = childrenCpuMs();
    if (c0 !== undefined && c1 !== undefined) wcCpu.push(c1 - c0);
    const r = runWorker(["read", big, String(offset)]);
    read.push(r.ms);
    readCpu.push(r.cpuMs);
    ratios.push(r.ms / (wc.at(-1) as number));
    rss.push(r.maxRssKiB);
    baseline.push(runWorker(["baseline"]).maxRssKiB);
    if (i === 0) console.log(`read footer: ${r.detail}`);
  }
  const rssDelta = (median(rss) - median(baseline)) / 1024;
  console.log(
    `read the last window of ${GIB} GiB (${lines} lines): ${median(read).toFixed(0)} ms; wc -l: ${median(wc).toFixed(0)} ms; ` +
      `ratio ${median(ratios).toFixed(2)}x (median of per-pair ratios ${ratios.map((x) => x.toFixed(2)).join(", ")}; target <= 2)`,
  );
  if (wcCpu.length > 0) {
    console.log(
      `CPU time: read ${median(readCpu).toFixed(0)} ms, wc -l ${median(wcCpu).toFixed(0)} ms (10 ms ticks); ratio ${(median(readCpu) / Math.max(10, median(wcCpu))).toFixed(2)}x`,
    );
  }
  console.log(
    `peak RSS: read ${(median(rss) / 1024).toFixed(1)} MiB, baseline process ${(median(baseline) / 1024).toFixed(1)} MiB, above baseline ${rssDelta.toFixed(1)} MiB (target < 64)`,
  );
  rmSync(big);

  const numbered = Array.from({ length: 2000 }, (_, i) => `line ${i + 1} of the file`);
  const rewrites: [string, string, string][] = [
    ["a full rewrite of 2,000 lines", numbered.join("\n"), numbered.map((l) => `new ${l}`).join("\n")],
    [
      "a rewrite of 2,000 lines that keeps every third line (a brace)",
      numbered.map((l, i) => (i % 3 === 0 ? "}" : l)).join("\n"),
      numbered.map((l, i) => (i % 3 === 0 ? "}" : `new ${l}`)).join("\n"),
    ],
    ["2,000 lines reversed (the comparison budget is spent)", numbered.join("\n"), numbered.toReversed().join("\n")],
  ];
  for (const [name, before, after] of rewrites) {
    const times: number[] = [];
    let shown = "";
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      const diff = unifiedDiff("a.txt", before, after);
      times.push(performance.now() - t0);
      shown = `+${diff.added} -${diff.removed}${diff.coarse ? ", coarse" : ""}`;
    }
    console.log(`diff of ${name}: ${median(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (${shown})`);
  }

  const file = join(dir, "ten.txt");
  const rows = Array.from({ length: 200_000 }, (_, i) => `row ${i} ${"x".repeat(40)}`);
  const original = `${rows.join("\n")}\n`;
  const fs = createNodeProvider({ cwd: dir });
  const edits: number[] = [];
  const bare: number[] = [];
  const durable: number[] = [];
  for (let i = 0; i < 7; i++) {
    writeFileSync(file, original);
    const kit = createToolkit({ fs });
    await kit.call("read", { path: "ten.txt", limit: 1 });
    const t0 = performance.now();
    const result = await kit.call("edit", { path: "ten.txt", old_string: "row 100000 ", new_string: "row 100000 edited " });
    edits.push(performance.now() - t0);
    if (result.isError) throw new Error(result.content);

    writeFileSync(file, original);
    const t1 = performance.now();
    writeFileSync(file, readFileSync(file, "utf8").replace("row 100000 ", "row 100000 edited "));
    bare.push(performance.now() - t1);

    writeFileSync(file, original);
    const t2 = performance.now();
    const next = readFileSync(file, "utf8").replace("row 100000 ", "row 100000 edited ");
    const fd = openSync(`${file}.tmp`, "w", 0o600);
    writeSync(fd, next);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(`${file}.tmp`, file);
    durable.push(performance.now() - t2);
  }
  const size = (Buffer.byteLength(original) / 1024 / 1024).toFixed(1);
  console.log(
    `edit one line of ${size} MB: ${median(edits).toFixed(1)} ms; bare read-modify-write ${median(bare).toFixed(1)} ms ` +
      `(ratio ${(median(edits) / median(bare)).toFixed(2)}x, target <= 2); with temp file + fsync + rename ${median(durable).toFixed(1)} ms ` +
      `(ratio ${(median(edits) / median(durable)).toFixed(2)}x)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
