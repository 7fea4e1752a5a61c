import { readFileSync } from "node:fs";
import type { Options } from "tsup";

// deno.json's export map is the single list of entry points: each subpath becomes one dist file, named
// as package.json's export map expects ("." -> index).
const denoExports = JSON.parse(readFileSync("deno.json", "utf8")).exports as Record<string, string>;

export const entryNames: Record<string, string> = Object.fromEntries(
  Object.entries(denoExports).map(([subpath, source]) => [subpath === "." ? "index" : subpath.slice(2), source]),
);

const config: Options = {
  // The library's entry points, plus the `toolfs` executable (package.json "bin").
  entry: { ...entryNames, cli: "adapters/cli/main.ts" },
  format: ["esm"],
  // Declarations come from scripts/build.ts, file by file: tsup's bundled declarations took a minute.
  dts: false,
  tsconfig: "tsconfig.node.json",
  clean: true,
  target: "es2022",
  platform: "neutral",
  sourcemap: false,
  splitting: true,
  // Dependencies and optional peers stay imports; an optional peer is loaded only by the entry that needs it.
  external: [
    "memfs",
    "zod",
    "re2js",
    "diff",
    "@vscode/ripgrep",
    "@agentclientprotocol/sdk",
    "eventsource-parser",
    "@modelcontextprotocol/server",
    "ai",
    "@openai/agents",
    "unpdf",
  ],
};

export default config;
