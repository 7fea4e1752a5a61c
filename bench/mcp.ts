// bench/mcp: toolfs's MCP server against the reference MCP filesystem server (@modelcontextprotocol/server-
// filesystem), both over stdio and driven by the same v2 SDK client: toolfs `glob` vs `search_files` for every
// .ts file of a generated 100,000-file tree (20,000 .ts), and toolfs `read` vs `read_text_file` on a 10 MB
// file. Medians of alternating runs (--runs N, default 5); compare the ratios, not the milliseconds.
// Run after the build: npx tsx bench/mcp.ts [--runs N]
import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const RUNS = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? 5) || 5;
const repo = fileURLToPath(new URL("..", import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-bench-mcp-")));
const root = join(dir, "tree");

// 100 top-level folders of 10 subfolders of 100 files: one in five is .ts, the rest .js, .md and .json.
function makeTree(): void {
  const t0 = Date.UTC(2024, 0, 1) / 1000;
  const kinds = ["ts", "js", "md", "json", "js"];
  let n = 0;
  for (let a = 0; a < 100; a++) {
    for (let b = 0; b < 10; b++) {
      const sub = join(root, `pkg${a}`, `mod${b}`);
      mkdirSync(sub, { recursive: true });
      for (let f = 0; f < 100; f++) {
        const path = join(sub, `file${f}.${kinds[f % 5]}`);
        writeFileSync(path, `// ${n}\n`);
        utimesSync(path, t0 + n, t0 + n);
        n++;
      }
    }
  }
  // 10 MB of source-like lines.
  const line = "export function handler(request, response) { return response.send(request.body); }\n";
  writeFileSync(join(root, "big.js"), line.repeat(Math.ceil((10 << 20) / line.length)));
}

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  // The client's default 10 MB message limit would drop the reference server's answer for the 10 MB file
  // (the text twice: content and structuredContent); raised so that both servers can answer.
  await client.connect(new StdioClientTransport({ command, args, env: { PATH: process.env.PATH ?? "" }, stderr: "ignore", maxBufferSize: 256 << 20 }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ ms: number; bytes: number; text: string }> {
  const t0 = performance.now();
  const result = await client.callTool({ name, arguments: args }, { timeout: 600_000 });
  const ms = performance.now() - t0;
  const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return { ms, bytes: Buffer.byteLength(JSON.stringify(result)), text };
}

try {
  makeTree();
  const toolfs = await connect(process.execPath, [join(repo, "dist/cli.js"), "mcp", "--root", root]);
  const reference = await connect(process.execPath, [join(repo, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), root]);
  const pairs = {
    glob: {
      toolfs: () => call(toolfs, "glob", { pattern: "*.ts" }),
      reference: () => call(reference, "search_files", { path: root, pattern: "**/*.ts" }),
    },
    read: {
      toolfs: () => call(toolfs, "read", { path: "big.js" }),
      reference: () => call(reference, "read_text_file", { path: join(root, "big.js") }),
    },
  };
  interface Sample {
    toolfs: number[];
    reference: number[];
    toolfsBytes: number;
    referenceBytes: number;
    toolfsText: string;
    referenceText: string;
  }
  const samples: Record<string, Sample> = {};
  for (const [name, pair] of Object.entries(pairs)) {
    const s: Sample = { toolfs: [], reference: [], toolfsBytes: 0, referenceBytes: 0, toolfsText: "", referenceText: "" };
    samples[name] = s;
    await pair.toolfs(); // warm both: the first call pays for module loading and the page cache
    await pair.reference();
    for (let i = 0; i < RUNS; i++) {
      // Alternate which side runs first, so neither always inherits the other's cache effects.
      const order = i % 2 === 0 ? (["toolfs", "reference"] as const) : (["reference", "toolfs"] as const);
      for (const side of order) {
        const r = await pair[side]();
        s[side].push(r.ms);
        if (side === "toolfs") Object.assign(s, { toolfsBytes: r.bytes, toolfsText: r.text });
        else Object.assign(s, { referenceBytes: r.bytes, referenceText: r.text });
      }
    }
  }
  await Promise.all([toolfs.close(), reference.close()]);

  const glob = samples.glob!;
  const read = samples.read!;
  const paths = (text: string) => text.split("\n").filter((l) => l.endsWith(".ts")).length;
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`tree: 100,000 files (20,000 .ts) + a 10 MB file; ${RUNS} runs each, medians; Node ${process.version}`);
  console.log("");
  console.log(`glob *.ts             toolfs ${median(glob.toolfs).toFixed(0)} ms, ${kb(glob.toolfsBytes)}, ${paths(glob.toolfsText)} paths shown`);
  console.log(`search_files **/*.ts  reference ${median(glob.reference).toFixed(0)} ms, ${kb(glob.referenceBytes)}, ${paths(glob.referenceText)} paths`);
  console.log(`  footer: ${glob.toolfsText.split("\n").find((l) => l.startsWith("(Showing")) ?? "(none)"}`);
  console.log(`  ratio: toolfs ${(median(glob.reference) / median(glob.toolfs)).toFixed(1)}x faster (target >= 30x)`);
  console.log("");
  console.log(`read big.js           toolfs ${median(read.toolfs).toFixed(0)} ms, ${kb(read.toolfsBytes)} (one window)`);
  console.log(`read_text_file        reference ${median(read.reference).toFixed(0)} ms, ${kb(read.referenceBytes)} (whole file)`);
  console.log(`  ratio: toolfs ${(median(read.reference) / median(read.toolfs)).toFixed(1)}x faster (target: not slower)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
