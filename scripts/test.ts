// The project's one test command (`npm test`, also what .ci/run runs): type checks, build, vitest, deno
// test, then one summary line `N passed, N failed` summing the test runners. A step that is not a test
// runner (a type check, the build) adds nothing when it succeeds and one failure when it fails.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const scratch = join(root, ".tmp");
const bin = (name: string) => join(root, "node_modules", ".bin", name);

interface Tally {
  readonly step: string;
  /** Test runners report counts; other steps only succeed or fail. */
  readonly runner: boolean;
  readonly passed: number;
  readonly failed: number;
}

function run(command: string, args: string[], options: { capture?: boolean; env?: Record<string, string> } = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    console.log(`\n$ ${[command, ...args].map((a) => (a.includes(" ") ? JSON.stringify(a) : a)).join(" ")}`);
    const child = spawn(command, args, {
      cwd: root,
      stdio: ["ignore", options.capture ? "pipe" : "inherit", "inherit"],
      env: { ...process.env, ...options.env },
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      output += chunk.toString("utf8");
    });
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

async function step(name: string, command: string, args: string[]): Promise<Tally> {
  const { code } = await run(command, args);
  return { step: name, runner: false, passed: 0, failed: code === 0 ? 0 : 1 };
}

async function vitest(): Promise<Tally> {
  const report = join(scratch, "vitest.json");
  const { code } = await run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`]);
  try {
    const json = JSON.parse(readFileSync(report, "utf8")) as { numPassedTests: number; numFailedTests: number };
    const failed = json.numFailedTests + (code !== 0 && json.numFailedTests === 0 ? 1 : 0);
    return { step: "vitest", runner: true, passed: json.numPassedTests, failed };
  } catch {
    return { step: "vitest", runner: true, passed: 0, failed: 1 };
  }
}

// Least permissions that work: memfs asks for the uid and gid; the probe's Deno.symlink refuses
// path-scoped read and write grants, so those two are unscoped. Search loads @vscode/ripgrep (which reads
// npm_config_arch) and runs its binary, named by the resolved path Deno's --allow-run compares against; the
// process runner starts children through setsid, signals their trees with kill and lists them with ps (Deno
// lets only --allow-all read /proc); the process tests run bash; sh sets ripgrep's memory limit.
const rgPath = await import("@vscode/ripgrep").then(
  (module) => module.rgPath,
  () => undefined,
);

async function denoTest(): Promise<Tally> {
  const programs = [rgPath, "setsid", "kill", "ps", "bash", "sh"].filter((name) => name !== undefined).join(",");
  const { code, output } = await run(
    bin("deno"),
    ["test", "--allow-read", "--allow-write", "--allow-sys=uid,gid", "--allow-env=npm_config_arch", `--allow-run=${programs}`],
    { capture: true, env: { NO_COLOR: "1" } },
  );
  const summary = /(\d+) passed \| (\d+) failed/.exec(output);
  if (!summary) return { step: "deno test", runner: true, passed: 0, failed: 1 };
  const failed = Number(summary[2]) + (code !== 0 && Number(summary[2]) === 0 ? 1 : 0);
  return { step: "deno test", runner: true, passed: Number(summary[1]), failed };
}

rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });

const tallies: Tally[] = [];
tallies.push(await step("tsc (core, conformance, fixtures)", bin("tsc"), ["-p", "tsconfig.json"]));
tallies.push(await step("tsc (node side)", bin("tsc"), ["-p", "tsconfig.node.json"]));
const denoChecked = [
  "core/mod.ts",
  "conformance/mod.ts",
  "adapters/deno/mod.ts",
  "adapters/deno/api_check.ts",
  "adapters/memory/mod.ts",
  "adapters/acp/mod.ts",
  "adapters/cli/main_deno.ts",
];
tallies.push(await step("deno check", bin("deno"), ["check", ...denoChecked]));
tallies.push(await step("build", bin("tsup"), []));
tallies.push(await vitest());
tallies.push(await denoTest());

console.log("\nSummary");
for (const t of tallies) {
  console.log(`  ${t.step}: ${t.runner ? `${t.passed} passed, ${t.failed} failed` : t.failed ? "FAILED" : "ok"}`);
}
const passed = tallies.reduce((n, t) => n + t.passed, 0);
const failed = tallies.reduce((n, t) => n + t.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
