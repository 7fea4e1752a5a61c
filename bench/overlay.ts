// bench/overlay: on a generated tree of 30,000 files and 255 MB,
// 1. opening an overlay over the Node provider (and serving a first read) against loading the tree into a memory
//    volume, as `--backend memory` does (target: the overlay at least 100x faster to open);
// 2. glob * and grep through the toolkit on an overlay holding 100 changed files (50 modified, 50 created)
//    against the same calls on the base alone, ripgrep both times (target: at most 1.5x); and the same calls
//    through the engine walking the merged view, the alternative the split route replaces.
// Medians of alternating runs (--runs N, default 7; the memory load runs 3 times). Compare the ratios, not the
// milliseconds. Run: npx tsx bench/overlay.ts [--runs N]
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  createEngineBackend,
  createFsSpillStore,
  createOverlayProvider,
  createOverlaySearchBackend,
  createToolkit,
  type FileSystem,
  type SearchBackend,
  type Toolkit,
} from "../core/mod.ts";
import { loadDirectory } from "../adapters/memory/load.ts";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createNodeProvider, createNodeSearchBackend } from "../adapters/node/mod.ts";

const RUNS = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? 7) || 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const dir = mkdtempSync(join(tmpdir(), "toolfs-bench-overlay-"));
const root = join(dir, "tree");
const FILES = 30_000;
const TOTAL_BYTES = 255 * 1024 * 1024;

// 30 top-level folders of 10 folders of 100 files; sizes from 1 KiB to about 16 KiB averaging 8.5 KiB; one file in
// twenty holds the needle; mtimes one second apart in creation order.
function makeTree(): number {
  const line = "const value = compute(input, options); // an ordinary line of source text\n";
  const average = Math.floor(TOTAL_BYTES / FILES);
  const t0 = Date.UTC(2024, 0, 1) / 1000;
  let written = 0;
  let n = 0;
  for (let a = 0; a < 30; a++) {
    for (let b = 0; b < 10; b++) {
      const sub = join(root, `pkg${a}`, `mod${b}`);
      mkdirSync(sub, { recursive: true });
      for (let f = 0; f < 100; f++, n++) {
        const size = Math.max(1024, Math.round(average * (0.12 + (1.76 * ((n * 7919) % 1000)) / 1000)));
        let text = n % 20 === 0 ? "export const needle = true;\n" : "";
        while (text.length < size) text += line;
        text = `${text.slice(0, size - 1)}\n`;
        const path = join(sub, `file${f}.ts`);
        writeFileSync(path, text);
        utimesSync(path, t0 + n, t0 + n);
        written += text.length;
      }
    }
  }
  writeFileSync(join(root, "README.md"), "# Bench tree\n");
  return written;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
}

// The engine over the merged view can take longer than the default 30 s search timeout on a loaded machine.
function kit(fs: FileSystem, search: SearchBackend): Toolkit {
  return createToolkit({
    fs,
    workspace: root,
    search,
    limits: { searchTimeoutMs: 600_000 },
    spill: createFsSpillStore(createNodeProvider({ cwd: root }), join(dir, "spill")),
  });
}

async function call(toolkit: Toolkit, tool: string, args: unknown): Promise<string> {
  const result = await toolkit.call(tool, args);
  if (result.isError) throw new Error(`${tool}: ${result.content}`);
  return result.content.split("\n")[0] ?? "";
}

try {
  const bytes = makeTree();
  console.log(`tree: ${FILES} files, ${(bytes / 1024 / 1024).toFixed(0)} MB, in 30 top-level folders`);

  // 1. Opening.
  const overlayOpen: number[] = [];
  const overlayFirstRead: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    overlayOpen.push(await timed(async () => createOverlayProvider({ base: createNodeProvider({ cwd: root }) })));
    overlayFirstRead.push(
      await timed(async () => {
        const fs = createOverlayProvider({ base: createNodeProvider({ cwd: root }) });
        await fs.readBytes(await fs.resolve("README.md"), { maxBytes: 1 << 20 });
      }),
    );
  }
  const memoryLoad: number[] = [];
  for (let i = 0; i < 3; i++) {
    memoryLoad.push(await timed(async () => createMemoryProvider({ volume: await loadDirectory(root), cwd: root })));
  }
  const [open, first, load] = [median(overlayOpen), median(overlayFirstRead), median(memoryLoad)];
  console.log(
    `open: overlay ${open.toFixed(3)} ms (with a first read of README.md ${first.toFixed(2)} ms); memory volume load ${load.toFixed(0)} ms; ` +
      `ratio ${(load / first).toFixed(0)}x with the first read, ${(load / open).toFixed(0)}x for opening alone (target >= 100x)`,
  );

  // 2. Search with 100 changed files.
  const baseFs = createNodeProvider({ cwd: root });
  const rg = createNodeSearchBackend();
  const overlay = createOverlayProvider({ base: baseFs });
  for (let i = 0; i < 50; i++) {
    const path = `pkg${i % 30}/mod${i % 10}/file${i}.ts`;
    await overlay.write(await overlay.resolve(path), new TextEncoder().encode(`export const changed${i} = ${i % 2 ? "needle" : "1"};\n`));
    await overlay.write(await overlay.resolve(`pkg${i % 30}/new${i}/added.ts`), new TextEncoder().encode(`export const needle${i} = ${i};\n`));
  }
  const onBase = kit(baseFs, rg);
  const onOverlay = kit(overlay, createOverlaySearchBackend(overlay, rg));
  const onEngine = kit(overlay, createEngineBackend(overlay));
  const calls = [
    ["glob", { pattern: "*" }],
    ["grep", { pattern: "needle" }],
  ] as const;
  for (const [tool, args] of calls) {
    const base: number[] = [];
    const split: number[] = [];
    const engine: number[] = [];
    let heads: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
      for (const which of order) {
        if (which === 0) base.push(await timed(async () => (heads[0] = await call(onBase, tool, args))));
        if (which === 1) split.push(await timed(async () => (heads[1] = await call(onOverlay, tool, args))));
        if (which === 2 && i < 3) engine.push(await timed(async () => (heads[2] = await call(onEngine, tool, args))));
      }
    }
    const [b, s, e] = [median(base), median(split), median(engine)];
    console.log(
      `${tool} ${JSON.stringify(args)}: base alone ${b.toFixed(0)} ms; overlay with 100 changed files ${s.toFixed(0)} ms, ratio ${(s / b).toFixed(2)} ` +
        `(target <= 1.5); the engine over the merged view ${e.toFixed(0)} ms, ratio ${(e / b).toFixed(2)}`,
    );
    console.log(`  first lines: base "${heads[0]}" | overlay "${heads[1]}" | engine "${heads[2]}"`);
    heads = [];
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
