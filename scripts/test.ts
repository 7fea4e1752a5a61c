// The project's one test command (`npm test`, also what .ci/run runs): type checks, the build (skipped when
// dist/ is already what the sources build to), vitest and deno test, then a summary whose last line is
// `N passed, N failed, N skipped`, with the skipped tests, any failure outside a test, each step's time and
// the slowest tests listed above it. Counts come from each runner's machine-readable report;
// scripts/test-report.ts turns reports and exit statuses into counts, and a step that cannot be counted is a
// failure with its reason.
//
// Independent steps run side by side (docs/notes/0011): after the build, vitest, deno test, the three type
// checks and Biome's lint and format check all at once, each runner with TOOLFS_TEST_WORKERS files at a time.
// Vitest keeps the terminal; a step that runs beside it writes to a log under .tmp/ that is printed whole when
// it ends, so no two steps' lines interleave. TOOLFS_TEST_SERIAL=1 runs every step alone, in order.
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { denoTally, slowestTests, type StepExit, stepTally, summarize, type Tally, type TimedTest, vitestTally } from "./test-report.ts";

const root = join(import.meta.dirname, "..");
const scratch = join(root, ".tmp");
const bin = (name: string) => join(root, "node_modules", ".bin", name);

const serial = process.env.TOOLFS_TEST_SERIAL === "1";
// Test files each runner runs at once (vitest's workers, deno's --parallel jobs). Vitest's own default is
// one less than the cores, which on two cores is one; the tests mostly wait on child processes, so the core
// count serves better (docs/notes/0011). TOOLFS_TEST_WORKERS overrides it.
const workers = serial
  ? 1
  : Number(process.env.TOOLFS_TEST_WORKERS) > 0
    ? Math.floor(Number(process.env.TOOLFS_TEST_WORKERS))
    : Math.max(2, availableParallelism());
const times: { step: string; seconds: number }[] = [];

/**
 * Runs one step. With `log`, its output goes to that file and is printed whole when it ends (for a step
 * running beside another); without, it writes to the terminal as it goes.
 */
async function run(step: string, command: string, args: string[], options: { env?: Record<string, string>; log?: string } = {}): Promise<StepExit> {
  const shown = `$ ${[command, ...args].map((a) => (a.includes(" ") ? JSON.stringify(a) : a)).join(" ")}`;
  if (options.log === undefined) console.log(`\n${shown}`);
  const started = performance.now();
  const exit = await new Promise<StepExit>((resolve) => {
    const out = options.log === undefined ? undefined : createWriteStream(options.log);
    let child;
    try {
      child = spawn(command, args, {
        cwd: root,
        stdio: ["ignore", out ? "pipe" : "inherit", out ? "pipe" : "inherit"],
        env: { ...process.env, ...options.env },
      });
    } catch (error) {
      out?.end();
      resolve({ code: null, startError: (error as Error).message });
      return;
    }
    child.stdout?.pipe(out!, { end: false });
    child.stderr?.pipe(out!, { end: false });
    let startError: string | undefined;
    child.on("error", (error) => {
      startError = error.message;
    });
    child.on("close", (code, signal) => {
      const exit = { code: startError === undefined ? code : null, signal, ...(startError === undefined ? {} : { startError }) };
      if (out === undefined) resolve(exit);
      else out.end(() => resolve(exit));
    });
  });
  times.push({ step, seconds: (performance.now() - started) / 1000 });
  if (options.log !== undefined) console.log(`\n${shown}\n${readReport(options.log) ?? ""}`);
  return exit;
}

/** Runs steps side by side (each but the first into its own log), or one after another when serial. */
async function together<T>(steps: ((log: string | undefined) => Promise<T>)[], logs: string[]): Promise<T[]> {
  if (serial) {
    const results: T[] = [];
    for (const step of steps) results.push(await step(undefined));
    return results;
  }
  return Promise.all(steps.map((step, i) => step(i === 0 ? undefined : join(scratch, logs[i]!))));
}

const readReport = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);

const vitestReport = join(scratch, "vitest.json");
const denoReport = join(scratch, "deno.xml");

async function vitest(log: string | undefined): Promise<Tally> {
  const exit = await run(
    "vitest",
    bin("vitest"),
    ["run", `--maxWorkers=${workers}`, "--reporter=default", "--reporter=json", `--outputFile.json=${vitestReport}`],
    { log },
  );
  return vitestTally(readReport(vitestReport), exit);
}

// Least permissions that work: memfs asks for the uid and gid; the probe's Deno.symlink refuses
// path-scoped read and write grants, so those two are unscoped. Search loads @vscode/ripgrep (which reads
// npm_config_arch) and runs its binary, named by the resolved path Deno's --allow-run compares against; the
// process runner starts children through setsid, signals their trees with kill and lists them with ps (Deno
// lets only --allow-all read /proc); the process tests run bash (which also starts bwrap for the confined-shell
// tests, so Deno needs no grant of its own for it), and those listen on 127.0.0.1 to show the sandbox has no
// network. The race group starts python3 (test/swap.py) and Deno itself (its writers); --allow-ffi lets the
// Deno adapter publish through libc's openat family (docs/notes/0009); sh sets ripgrep's memory limit.
async function denoTest(log: string | undefined): Promise<Tally> {
  const rgPath = await import("@vscode/ripgrep").then(
    (module) => module.rgPath,
    () => undefined,
  );
  const programs = [rgPath, "setsid", "kill", "ps", "bash", "sh", "python3", realpathSync(bin("deno"))].filter((name) => name !== undefined).join(",");
  const exit = await run(
    "deno test",
    bin("deno"),
    [
      "test",
      ...(workers > 1 ? ["--parallel"] : []),
      "--allow-read",
      "--allow-write",
      "--allow-sys=uid,gid",
      "--allow-env=npm_config_arch,TOOLFS_STRESS",
      `--allow-run=${programs}`,
      "--allow-ffi",
      "--allow-net=127.0.0.1",
      `--junit-path=${denoReport}`,
    ],
    { env: { NO_COLOR: "1", DENO_JOBS: String(workers) }, log },
  );
  return denoTally(readReport(denoReport), exit);
}

const step = (name: string, command: string, args: string[]) => async (log: string | undefined) => stepTally(name, await run(name, command, args, { log }));

rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });

const denoChecked = [
  "core/mod.ts",
  "conformance/mod.ts",
  "adapters/deno/mod.ts",
  "adapters/deno/api-check.ts",
  "adapters/memory/mod.ts",
  "adapters/acp/mod.ts",
  "adapters/cli/main.deno.ts",
];
const tallies: Tally[] = [];
// Built once here (or by `npm ci` before): no test builds, so none can empty dist/ under another.
tallies.push(await step("build", process.execPath, ["--import", "tsx", join(root, "scripts/build.ts"), "--if-changed"])(undefined));
// Then everything at once: the checks read sources and write nothing, and most test time is spent waiting on
// children (bubblewrap, the CLI, deno, servers on 127.0.0.1), so two cores serve more than two of them.
tallies.push(
  ...(await together(
    [
      vitest,
      denoTest,
      step("tsc (core, conformance, fixtures)", bin("tsc"), ["-p", "tsconfig.json"]),
      step("tsc (node side)", bin("tsc"), ["-p", "tsconfig.node.json"]),
      step("deno check", bin("deno"), ["check", ...denoChecked]),
      // Lint and format together; `npm run format` applies what it asks for.
      step("biome", bin("biome"), ["check", "--colors=off", "--error-on-warnings", "."]),
    ],
    ["", "deno-test.log", "tsc.log", "tsc-node.log", "deno-check.log", "biome.log"],
  )),
);

const slow: TimedTest[] = slowestTests(readReport(vitestReport), readReport(denoReport), 15);
console.log(`\nTime per step: ${times.map((t) => `${t.step} ${t.seconds.toFixed(0)} s`).join(", ")}`);
console.log(`Slowest tests:\n${slow.map((t) => `  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.runner}: ${t.name}`).join("\n")}`);
const { lines, ok } = summarize(tallies);
console.log(`\n${lines.join("\n")}`);
process.exit(ok ? 0 : 1);
