// The project's one test command (`npm test`, also what .ci/run runs): type checks, the build (skipped when
// dist/ is already what the sources build to), vitest, deno test, then a summary whose last line is
// `N passed, N failed, N skipped`, with the skipped tests and any failure outside a test listed above it.
// Counts come from each runner's machine-readable report; scripts/test-report.ts turns reports and exit
// statuses into counts, and a step that cannot be counted is a failure with its reason.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { denoTally, type StepExit, stepTally, summarize, type Tally, vitestTally } from "./test-report.ts";

const root = join(import.meta.dirname, "..");
const scratch = join(root, ".tmp");
const bin = (name: string) => join(root, "node_modules", ".bin", name);

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<StepExit> {
  return new Promise((resolve) => {
    console.log(`\n$ ${[command, ...args].map((a) => (a.includes(" ") ? JSON.stringify(a) : a)).join(" ")}`);
    let child;
    try {
      child = spawn(command, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env } });
    } catch (error) {
      resolve({ code: null, startError: (error as Error).message });
      return;
    }
    let startError: string | undefined;
    child.on("error", (error) => {
      startError = error.message;
    });
    child.on("close", (code, signal) => resolve({ code: startError === undefined ? code : null, signal, ...(startError === undefined ? {} : { startError }) }));
  });
}

const readReport = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);

async function vitest(): Promise<Tally> {
  const report = join(scratch, "vitest.json");
  const exit = await run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`]);
  return vitestTally(readReport(report), exit);
}

// Least permissions that work: memfs asks for the uid and gid; the probe's Deno.symlink refuses
// path-scoped read and write grants, so those two are unscoped. Search loads @vscode/ripgrep (which reads
// npm_config_arch) and runs its binary, named by the resolved path Deno's --allow-run compares against; the
// process runner starts children through setsid, signals their trees with kill and lists them with ps (Deno
// lets only --allow-all read /proc); the process tests run bash (which also starts bwrap for the confined-shell
// tests, so Deno needs no grant of its own for it), and those listen on 127.0.0.1 to show the sandbox has no
// network. The race group starts python3 (test/swap.py) and Deno itself (its writers); --allow-ffi lets the
// Deno adapter publish through libc's openat family (docs/notes/0009); sh sets ripgrep's memory limit.
async function denoTest(): Promise<Tally> {
  const rgPath = await import("@vscode/ripgrep").then(
    (module) => module.rgPath,
    () => undefined,
  );
  const report = join(scratch, "deno.xml");
  const programs = [rgPath, "setsid", "kill", "ps", "bash", "sh", "python3", realpathSync(bin("deno"))].filter((name) => name !== undefined).join(",");
  const exit = await run(
    bin("deno"),
    [
      "test",
      "--allow-read",
      "--allow-write",
      "--allow-sys=uid,gid",
      "--allow-env=npm_config_arch",
      `--allow-run=${programs}`,
      "--allow-ffi",
      "--allow-net=127.0.0.1",
      `--junit-path=${report}`,
    ],
    { NO_COLOR: "1" },
  );
  return denoTally(readReport(report), exit);
}

const step = async (name: string, command: string, args: string[]) => stepTally(name, await run(command, args));

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
// Built once here (or by `npm ci` before): no test builds, so none can empty dist/ under another.
tallies.push(await step("build", process.execPath, ["--import", "tsx", join(root, "scripts/build.ts"), "--if-changed"]));
tallies.push(await vitest());
tallies.push(await denoTest());

const { lines, ok } = summarize(tallies);
console.log(`\n${lines.join("\n")}`);
process.exit(ok ? 0 : 1);
