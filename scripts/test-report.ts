// What `npm test` counts, as pure functions of the runners' reports and exit statuses (scripts/test.ts runs
// the steps; scripts/test-report.test.ts tests this file). A count comes from a machine-readable report, never
// from a runner's console output, which tests can print anything into. Whatever cannot be counted (a runner
// that did not start, a report that is missing or unreadable, an exit status the report does not explain) is
// one failure with its reason, so the summary line is never better than the truth.

/** How a step's process ended. */
export interface StepExit {
  /** The exit code; null when it was killed by a signal or never started. */
  readonly code: number | null;
  readonly signal?: string | null;
  /** Why it could not be started (spawn error), when it could not. */
  readonly startError?: string;
}

/** One step's contribution to the summary. */
export interface Tally {
  readonly step: string;
  /** Test runners report counts; other steps only succeed or fail. */
  readonly runner: boolean;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** The names of skipped tests (each case names its reason). */
  readonly skips: readonly string[];
  /** Failures that are not failed tests: a runner that did not start, a missing report, an unexplained exit. */
  readonly problems: readonly string[];
}

function describeExit(exit: StepExit): string {
  if (exit.startError !== undefined) return `could not start: ${exit.startError}`;
  if (exit.code === null) return `was killed by ${exit.signal ?? "a signal"}`;
  return `exited with code ${exit.code}`;
}

/** A step that is not a test runner (a type check, the build): ok on exit 0, else one failure. */
export function stepTally(step: string, exit: StepExit): Tally {
  const ok = exit.code === 0 && exit.startError === undefined;
  return { step, runner: false, passed: 0, failed: ok ? 0 : 1, skipped: 0, skips: [], problems: ok ? [] : [`${step} ${describeExit(exit)}`] };
}

// A runner's counts plus one failure for each thing the counts leave unexplained.
function runnerTally(step: string, exit: StepExit, counts: Counts | string): Tally {
  if (typeof counts === "string") {
    return {
      step,
      runner: true,
      passed: 0,
      failed: 1,
      skipped: 0,
      skips: [],
      problems: [`${step} ${exit.code === 0 ? "" : `${describeExit(exit)}; `}${counts}`],
    };
  }
  const problems = [...counts.problems];
  if (exit.startError !== undefined || exit.code !== 0) {
    if (counts.failed === 0 && problems.length === 0) problems.push(`${step} ${describeExit(exit)}, but its report counts no failure`);
  } else if (counts.failed > 0) {
    problems.push(`${step} exited with code 0, but its report counts ${counts.failed} failed`);
  }
  return {
    step,
    runner: true,
    passed: counts.passed,
    failed: counts.failed + problems.length,
    skipped: counts.skips.length,
    skips: counts.skips,
    problems: problems.map((p) => (p.startsWith(step) ? p : `${step}: ${p}`)),
  };
}

interface Counts {
  readonly passed: number;
  readonly failed: number;
  readonly skips: readonly string[];
  readonly problems: readonly string[];
}

interface VitestAssertion {
  readonly fullName?: unknown;
  readonly title?: unknown;
  readonly status?: unknown;
  readonly duration?: unknown;
}

interface VitestFile {
  readonly name?: unknown;
  readonly status?: unknown;
  readonly message?: unknown;
  readonly assertionResults?: unknown;
}

/**
 * Counts from vitest's JSON report (`--reporter=json --outputFile.json=PATH`), read per test rather than from
 * its totals: a test file that fails before registering any test shows up only as a failed file, which the
 * totals do not count as a failed test.
 */
export function vitestTally(report: string | undefined, exit: StepExit): Tally {
  return runnerTally("vitest", exit, vitestCounts(report));
}

function vitestCounts(report: string | undefined): Counts | string {
  if (report === undefined) return "wrote no JSON report";
  let json: { testResults?: unknown };
  try {
    json = JSON.parse(report) as { testResults?: unknown };
  } catch (error) {
    return `wrote a JSON report that does not parse (${(error as Error).message})`;
  }
  if (json === null || typeof json !== "object" || !Array.isArray(json.testResults)) return "wrote a report without testResults";
  let passed = 0;
  let failed = 0;
  const skips: string[] = [];
  const problems: string[] = [];
  for (const file of json.testResults as VitestFile[]) {
    const tests = Array.isArray(file?.assertionResults) ? (file.assertionResults as VitestAssertion[]) : [];
    let failedHere = 0;
    for (const test of tests) {
      const name = String(test?.fullName ?? test?.title ?? "(unnamed test)");
      if (test?.status === "passed") passed++;
      else if (test?.status === "failed") {
        failed++;
        failedHere++;
      } else if (test?.status === "skipped" || test?.status === "todo") skips.push(name);
      // "pending" is a test that was queued or running when the report was written: it did not finish.
      else problems.push(`${String(file?.name)}: test ${JSON.stringify(name)} did not finish (status ${JSON.stringify(test?.status)})`);
    }
    if (file?.status === "failed" && failedHere === 0) {
      const message = typeof file.message === "string" && file.message !== "" ? `: ${file.message.split("\n")[0]}` : "";
      problems.push(`${String(file?.name)} failed outside its tests${message}`);
    }
  }
  return { passed, failed, skips, problems };
}

/**
 * Counts from Deno's JUnit report (`deno test --junit-path=PATH`): one `<testcase>` per test, failed when it
 * holds a `<failure>` or `<error>`, skipped (Deno's "ignored") when it holds `<skipped>`. The totals on
 * `<testsuites>` must agree with the test cases, or the report is not trusted.
 */
export function denoTally(report: string | undefined, exit: StepExit): Tally {
  return runnerTally("deno test", exit, junitCounts(report));
}

function junitCounts(report: string | undefined): Counts | string {
  if (report === undefined) return "wrote no JUnit report";
  const suites = /<testsuites\b([^>]*)>([\s\S]*)<\/testsuites>/.exec(report);
  if (!suites) return "wrote a JUnit report without a <testsuites> element";
  const declared = attributes(suites[1]!);
  let passed = 0;
  let failed = 0;
  const skips: string[] = [];
  const cases = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const match of suites[2]!.matchAll(cases)) {
    const attrs = attributes(match[1]!);
    const body = match[3] ?? "";
    const name = `${attrs.classname ?? "?"}: ${attrs.name ?? "(unnamed test)"}`;
    if (/<(failure|error)\b/.test(body)) failed++;
    else if (/<skipped\b/.test(body)) skips.push(attrs.name ?? name);
    else passed++;
  }
  const total = passed + failed + skips.length;
  const tests = Number(declared.tests);
  const failures = Number(declared.failures ?? 0) + Number(declared.errors ?? 0);
  if (!Number.isInteger(tests) || tests !== total || failures !== failed) {
    return `wrote a JUnit report whose totals (tests=${declared.tests}, failures=${declared.failures}, errors=${declared.errors}) disagree with its ${total} test cases (${failed} failed)`;
  }
  return { passed, failed, skips, problems: [] };
}

/** One test's duration, for the log's list of the slowest. */
export interface TimedTest {
  readonly runner: "vitest" | "deno test";
  readonly name: string;
  readonly ms: number;
}

/** The `count` slowest tests of both reports, slowest first; unreadable reports contribute nothing. */
export function slowestTests(vitestReport: string | undefined, junitReport: string | undefined, count: number): TimedTest[] {
  const timed: TimedTest[] = [];
  try {
    const json = JSON.parse(vitestReport ?? "null") as { testResults?: VitestFile[] } | null;
    for (const file of json?.testResults ?? []) {
      const where = typeof file?.name === "string" ? file.name.replace(/^.*?\/(?=(adapters|core|conformance|test|scripts)\/)/, "") : "?";
      for (const test of Array.isArray(file?.assertionResults) ? (file.assertionResults as VitestAssertion[]) : []) {
        if (typeof test?.duration === "number") timed.push({ runner: "vitest", name: `${where} > ${String(test.fullName ?? test.title)}`, ms: test.duration });
      }
    }
  } catch {
    // The tally reports an unreadable report; the timing list just goes without it.
  }
  const cases = /<testcase\b([^>]*?)(\/>|>)/g;
  for (const match of (junitReport ?? "").matchAll(cases)) {
    const attrs = attributes(match[1]!);
    const seconds = Number(attrs.time);
    if (Number.isFinite(seconds)) timed.push({ runner: "deno test", name: `${attrs.classname ?? "?"} > ${attrs.name ?? "?"}`, ms: seconds * 1000 });
  }
  return timed.sort((a, b) => b.ms - a.ms).slice(0, count);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name, value] of text.matchAll(/([\w:-]+)="([^"]*)"/g)) {
    out[name!] = value!.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, entity: string) => {
      if (entity.startsWith("#x")) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
      if (entity.startsWith("#")) return String.fromCodePoint(Number(entity.slice(1)));
      return ENTITIES[entity] ?? whole;
    });
  }
  return out;
}

/** The summary block: one line per step, the skipped tests and the problems, then the closing count line. */
export function summarize(tallies: readonly Tally[]): { readonly lines: readonly string[]; readonly ok: boolean } {
  const lines = ["Summary"];
  for (const t of tallies) {
    const counts = t.runner ? `${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped` : t.failed > 0 ? "FAILED" : "ok";
    lines.push(`  ${t.step}: ${counts}`);
  }
  const skips = tallies.flatMap((t) => t.skips.map((name) => `  ${t.step}: ${name}`));
  if (skips.length > 0) lines.push(`Skipped (${skips.length}):`, ...skips);
  const problems = tallies.flatMap((t) => t.problems.map((p) => `  ${p}`));
  if (problems.length > 0) lines.push(`Failed outside a test (${problems.length}):`, ...problems);
  const sum = (pick: (t: Tally) => number) => tallies.reduce((n, t) => n + pick(t), 0);
  const failed = sum((t) => t.failed);
  lines.push(`${sum((t) => t.passed)} passed, ${failed} failed, ${sum((t) => t.skipped)} skipped`);
  return { lines, ok: failed === 0 && tallies.length > 0 };
}
