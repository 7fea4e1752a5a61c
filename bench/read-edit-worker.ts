// Runs one measured operation in a fresh process so its peak RSS is its own. Prints one JSON line.
import process from "node:process";
import { createToolkit } from "../core/mod.ts";
import { createNodeProvider } from "../adapters/node/mod.ts";

const [mode, file, offset] = process.argv.slice(2);
const toolkit = createToolkit({ fs: createNodeProvider({ cwd: "/" }) });
const started = performance.now();
const cpu = process.cpuUsage();
let detail = "";
if (mode === "read") {
  const result = await toolkit.call("read", { path: file, offset: Number(offset) });
  if (result.isError) throw new Error(result.content);
  detail = result.content.split("\n").at(-1) ?? "";
}
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
const cpuMs = (used.user + used.system) / 1000;
console.log(JSON.stringify({ mode, ms, cpuMs, maxRssKiB: process.resourceUsage().maxRSS, detail }));
