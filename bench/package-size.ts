// bench/package-size: what `npm i toolfs` costs, alone and with each optional integration. Packs this package
// (after the build), installs the tarball into fresh projects, and reports node_modules' size and package
// count. Run: npx tsx bench/package-size.ts
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
const scratch = mkdtempSync(join(tmpdir(), "toolfs-size-"));
const npm = (args: string[], cwd: string) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

function bytes(path: string): number {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  return readdirSync(path).reduce((sum, name) => sum + bytes(join(path, name)), 0);
}

function packages(modules: string): number {
  let count = 0;
  for (const name of readdirSync(modules)) {
    if (name.startsWith(".")) continue;
    if (name.startsWith("@")) count += readdirSync(join(modules, name)).length;
    else count += 1;
    for (const nested of [join(modules, name, "node_modules")]) {
      if (statSync(nested, { throwIfNoEntry: false })?.isDirectory()) count += packages(nested);
    }
  }
  return count;
}

try {
  const [report] = JSON.parse(npm(["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], repo)) as [
    { filename: string; size: number; unpackedSize: number },
  ];
  const tarball = join(scratch, report.filename);
  console.log(`tarball ${report.filename}: ${(report.size / 1024).toFixed(0)} KB packed, ${(report.unpackedSize / 1024).toFixed(0)} KB unpacked`);
  const variants: [string, string[]][] = [
    ["toolfs alone", []],
    ["+ @modelcontextprotocol/server (toolfs mcp, toolfs/mcp)", ["@modelcontextprotocol/server"]],
    ["+ ai (toolfs/ai)", ["ai"]],
    ["+ @openai/agents (toolfs/openai-agents)", ["@openai/agents"]],
    ["+ @agentclientprotocol/sdk (toolfs acp)", ["@agentclientprotocol/sdk"]],
    ["+ memfs (toolfs/memory, --backend memory)", ["memfs"]],
  ];
  for (const [label, extra] of variants) {
    const project = join(scratch, `p${variants.findIndex((v) => v[0] === label)}`);
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
    const specs = extra.map((name) => `${name}@${pkg.devDependencies[name]}`);
    npm(["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, ...specs], project);
    const modules = join(project, "node_modules");
    console.log(`${label.padEnd(56)} ${(bytes(modules) / 1e6).toFixed(1).padStart(5)} MB, ${packages(modules)} packages`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
