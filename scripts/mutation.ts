// `npm run mutation [-- <target>...]`: mutation testing of the code the README's "never"s and bounds rest on,
// outside CI (docs/notes/0017-mutation-testing.md). StrykerJS, at a pinned version, is installed on demand into
// a cache directory, not into the project's dependencies; each target mutates its own files and runs only the
// tests that pin them, with the vitest runner, one mutant at a time (concurrency 1: the machine is shared).
// Prints each target's score and writes its survivors to .tmp/mutation/<target>.survivors.txt.
//
// Targets: fs (core/fs's read path and path handling), policy (core/policy: deny list, read rules, guarded
// search), mcp-http (adapters/mcp/http.ts). Options: --mutate <glob>[,<glob>...] replaces a single target's
// globs (Stryker's `file:line-line` ranges work); --concurrency <n>.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

// 9.x, not 10.x: Stryker 10 needs Node 22, and the project supports Node 20.19.
const STRYKER = "9.5.1";

interface Target {
  readonly mutate: readonly string[];
  /** Test files vitest runs (globs, relative to the project). */
  readonly tests: readonly string[];
  /** Conformance groups run on the memory backend by scripts/mutation-conformance.ts. */
  readonly groups?: readonly string[];
}

// Each mutant reruns every test that covers it, 3 to 20 s per mutant on a 2-core machine, so the
// globs pick the code the README's promises rest on and the tests are the ones that pin it.
const targets: Record<string, Target> = {
  // readBytes and readStream (the cap, and what a read returns) and the path algebra every key goes through.
  fs: {
    mutate: ["core/fs/provider.ts:146-215", "core/fs/paths.ts"],
    tests: ["core/fs/fs.test.ts", "test/read-bytes-growth.test.ts"],
    groups: ["read-bytes"],
  },
  // The guarded search: results, totals and problem lines under the read rules, and where a search runs.
  // (`--mutate core/policy/deny.ts` adds the deny list's matching: 160 more mutants, about an hour here.)
  policy: {
    mutate: ["core/policy/search.ts"],
    tests: ["test/confine-policy.test.ts", "test/denied-problems.test.ts", "test/guard-search.test.ts"],
  },
  // The HTTP handler's checks in their order, the session limit, close.
  "mcp-http": {
    mutate: ["adapters/mcp/http.ts"],
    tests: ["adapters/mcp/http-handler.test.ts"],
  },
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { mutate: { type: "string" }, concurrency: { type: "string", default: "1" } },
});
const chosen = positionals.length > 0 ? positionals : Object.keys(targets);
for (const name of chosen) {
  if (!(name in targets)) throw new RangeError(`No mutation target is named "${name}"; the targets are ${Object.keys(targets).join(", ")}`);
}
if (values.mutate !== undefined && chosen.length !== 1) throw new RangeError("--mutate applies to one target; name it");

const root = join(import.meta.dirname, "..");
const out = join(root, ".tmp", "mutation");
const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "toolfs", `stryker-${STRYKER}`);
const modules = join(cache, "node_modules");

// Installed once per version; Stryker is given the project's own vitest and typescript (its peers: one copy
// of each, the ones the project is tested and checked with).
function install(): void {
  if (!existsSync(join(modules, "@stryker-mutator", "vitest-runner", "package.json"))) {
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, "package.json"), JSON.stringify({ private: true }));
    console.log(`Installing StrykerJS ${STRYKER} into ${cache}`);
    const npm = spawnSync(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--legacy-peer-deps",
        `@stryker-mutator/core@${STRYKER}`,
        `@stryker-mutator/vitest-runner@${STRYKER}`,
      ],
      { cwd: cache, stdio: "inherit" },
    );
    if (npm.status !== 0) throw new Error(`npm install of StrykerJS ${STRYKER} failed (exit ${npm.status})`);
  }
  for (const peer of ["vitest", "typescript"]) {
    rmSync(join(modules, peer), { recursive: true, force: true });
    symlinkSync(join(root, "node_modules", peer), join(modules, peer));
  }
}

interface Mutant {
  readonly id: string;
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly location: { readonly start: { readonly line: number; readonly column: number } };
}

function run(name: string, target: Target): { score: number; counts: Record<string, number> } {
  const dir = join(out, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const vitestConfig = join(dir, "vitest.config.mjs");
  // A plain object (no import): the sandbox's cwd is the root Stryker runs vitest in.
  writeFileSync(
    vitestConfig,
    `export default ${JSON.stringify(
      {
        test: {
          include: [...target.tests, ...(target.groups ? ["scripts/mutation-conformance.ts"] : [])],
          env: { TOOLFS_MUTATION_GROUPS: (target.groups ?? []).join(",") },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      null,
      2,
    ).replace(/^{/, "{\n  root: process.cwd(),")};\n`,
  );
  const report = join(dir, "report.json");
  const config = {
    testRunner: "vitest",
    mutate: values.mutate !== undefined ? values.mutate.split(",") : target.mutate,
    vitest: { configFile: vitestConfig, related: false },
    coverageAnalysis: "perTest",
    concurrency: Number(values.concurrency),
    reporters: ["clear-text", "progress", "json"],
    jsonReporter: { fileName: report },
    clearTextReporter: { allowColor: false, logTests: false, reportMutants: false },
    tempDirName: join(dir, "sandbox"),
    ignorePatterns: ["dist", ".tmp", "bench", "docs"],
    timeoutMS: 20_000,
    incremental: false,
  };
  const configFile = join(dir, "stryker.config.json");
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  console.log(`\n== ${name}: ${config.mutate.join(", ")} against ${[...target.tests, ...(target.groups ?? []).map((g) => `conformance:${g}`)].join(", ")}`);
  const stryker = spawnSync(process.execPath, [join(modules, "@stryker-mutator", "core", "bin", "stryker.js"), "run", configFile], {
    cwd: root,
    stdio: "inherit",
  });
  if (!existsSync(report)) throw new Error(`Stryker wrote no report for ${name} (exit ${stryker.status})`);
  const files = (JSON.parse(readFileSync(report, "utf8")) as { files: Record<string, { mutants: Mutant[] }> }).files;
  const counts: Record<string, number> = {};
  const survivors: string[] = [];
  for (const [file, { mutants }] of Object.entries(files)) {
    for (const mutant of mutants) {
      counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
      if (mutant.status === "Survived" || mutant.status === "NoCoverage") {
        const where = `${file}:${mutant.location.start.line}:${mutant.location.start.column}`;
        survivors.push(`${mutant.status} ${where} ${mutant.mutatorName} -> ${JSON.stringify(mutant.replacement ?? "")}`);
      }
    }
  }
  writeFileSync(join(out, `${name}.survivors.txt`), `${survivors.join("\n")}\n`);
  // Stryker's score: killed and timed out over every mutant that was tested or had no test.
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const valid = detected + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  return { score: valid === 0 ? 100 : (100 * detected) / valid, counts };
}

install();
const results: string[] = [];
for (const name of chosen) {
  const { score, counts } = run(name, targets[name]!);
  results.push(`${name}: ${score.toFixed(1)}% ${JSON.stringify(counts)}`);
}
console.log(`\nMutation scores (survivors in ${out}):\n${results.join("\n")}`);
