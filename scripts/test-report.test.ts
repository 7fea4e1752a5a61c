// What `npm test` counts: the runners' reports and exit statuses in, counts and the summary out.
import { describe, expect, test } from "vitest";
import { denoTally, slowestTests, stepTally, summarize, vitestTally } from "./test-report.ts";

const ok = { code: 0 };
const failedExit = { code: 1 };

function vitestReport(files: { name: string; status?: string; message?: string; tests: [string, string][] }[]): string {
  return JSON.stringify({
    numPassedTests: 999, // the totals are not what is counted
    numFailedTests: 0,
    testResults: files.map((f) => ({
      name: f.name,
      status: f.status ?? (f.tests.some(([, s]) => s === "failed") ? "failed" : "passed"),
      message: f.message ?? "",
      assertionResults: f.tests.map(([fullName, status]) => ({ fullName, title: fullName, status })),
    })),
  });
}

// Deno's JUnit output, in the shape deno 2.9 writes it (attributes escaped, an ignored test as <skipped/>).
const denoReport = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="deno test" tests="4" failures="1" errors="0" time="0.011">
    <testsuite name="./a_test.ts" tests="4" disabled="1" errors="0" failures="1">
        <testcase name="passes" classname="./a_test.ts" time="0.000" line="1" col="6">
        </testcase>
        <testcase name="prints &quot;5 passed | 0 failed&quot;" classname="./a_test.ts" time="0.000" line="2" col="6">
        </testcase>
        <testcase name="memory: a case (the backend has no symbolic links &amp; never will)" classname="./a_test.ts" time="0.000" line="3" col="6">
            <skipped/>
        </testcase>
        <testcase name="fails" classname="./a_test.ts" time="0.001" line="4" col="6">
            <failure message="Uncaught Error: boom">Error: boom &lt;testcase name=&quot;fake&quot;/&gt;</failure>
        </testcase>
    </testsuite>
</testsuites>
`;

describe("steps that are not test runners", () => {
  test("count nothing when they succeed and one failure, with the reason, when they do not", () => {
    expect(stepTally("build", ok)).toMatchObject({ passed: 0, failed: 0, skipped: 0, problems: [] });
    expect(stepTally("build", { code: 2 })).toMatchObject({ failed: 1, problems: ["build exited with code 2"] });
    expect(stepTally("tsc", { code: null, signal: "SIGKILL" }).problems).toEqual(["tsc was killed by SIGKILL"]);
    expect(stepTally("deno check", { code: null, startError: "spawn deno ENOENT" }).problems).toEqual(["deno check could not start: spawn deno ENOENT"]);
  });
});

describe("vitest's JSON report", () => {
  test("counts each test by its status and names each skipped one", () => {
    const report = vitestReport([
      {
        name: "/a.test.ts",
        tests: [
          ["a works", "passed"],
          ["a skips (no symlinks here)", "skipped"],
          ["a later", "todo"],
        ],
      },
      {
        name: "/b.test.ts",
        tests: [
          ["b works", "passed"],
          ["b breaks", "failed"],
        ],
      },
    ]);
    const tally = vitestTally(report, failedExit);
    expect(tally).toMatchObject({ passed: 2, failed: 1, skipped: 2, problems: [] });
    expect(tally.skips).toEqual(["a skips (no symlinks here)", "a later"]);
  });

  test("a file that fails before any test runs is a failure, though it has no failed test", () => {
    const report = vitestReport([{ name: "/broken.test.ts", status: "failed", message: "Cannot find module './gone.ts'\n    at ...", tests: [] }]);
    const tally = vitestTally(report, failedExit);
    expect(tally.failed).toBe(1);
    expect(tally.problems).toEqual(["vitest: /broken.test.ts failed outside its tests: Cannot find module './gone.ts'"]);
  });

  test("a test still pending when the report was written did not finish, and counts as failed", () => {
    const tally = vitestTally(vitestReport([{ name: "/a.test.ts", tests: [["hangs", "pending"]] }]), failedExit);
    expect([tally.passed, tally.failed, tally.skipped]).toEqual([0, 1, 0]);
    expect(tally.problems[0]).toContain("did not finish");
  });

  test("a missing, malformed or shapeless report is one failure with the reason", () => {
    expect(vitestTally(undefined, failedExit)).toMatchObject({ failed: 1, problems: ["vitest exited with code 1; wrote no JSON report"] });
    expect(vitestTally('{"testResults": [', ok).problems[0]).toMatch(/^vitest wrote a JSON report that does not parse/);
    expect(vitestTally("{}", ok).problems).toEqual(["vitest wrote a report without testResults"]);
    expect(vitestTally("null", ok).failed).toBe(1);
    expect(vitestTally(undefined, { code: null, startError: "spawn vitest ENOENT" }).problems).toEqual([
      "vitest could not start: spawn vitest ENOENT; wrote no JSON report",
    ]);
  });

  test("an exit status the report does not explain is a failure either way", () => {
    const clean = vitestReport([{ name: "/a.test.ts", tests: [["a", "passed"]] }]);
    expect(vitestTally(clean, ok).failed).toBe(0);
    expect(vitestTally(clean, failedExit)).toMatchObject({ passed: 1, failed: 1, problems: ["vitest exited with code 1, but its report counts no failure"] });
    const failing = vitestReport([{ name: "/a.test.ts", tests: [["a", "failed"]] }]);
    expect(vitestTally(failing, ok)).toMatchObject({ failed: 2, problems: ["vitest exited with code 0, but its report counts 1 failed"] });
  });
});

describe("deno's JUnit report", () => {
  test("counts test cases, not what the tests print, and names the ignored ones", () => {
    const tally = denoTally(denoReport, failedExit);
    expect([tally.passed, tally.failed, tally.skipped]).toEqual([2, 1, 1]);
    expect(tally.skips).toEqual(["memory: a case (the backend has no symbolic links & never will)"]);
    expect(tally.problems).toEqual([]);
  });

  test("a report whose totals disagree with its test cases is not trusted", () => {
    const tally = denoTally(denoReport.replace('tests="4" failures="1" errors="0" time', 'tests="5" failures="1" errors="0" time'), failedExit);
    expect(tally.failed).toBe(1);
    expect(tally.passed).toBe(0);
    expect(tally.problems[0]).toContain("disagree with its 4 test cases");
  });

  test("a missing or cut-off report is one failure with the reason", () => {
    expect(denoTally(undefined, failedExit).problems).toEqual(["deno test exited with code 1; wrote no JUnit report"]);
    expect(denoTally(denoReport.slice(0, 400), failedExit).problems).toEqual([
      "deno test exited with code 1; wrote a JUnit report without a <testsuites> element",
    ]);
    expect(denoTally("", ok).failed).toBe(1);
  });

  test("a clean report with a failing exit status still fails", () => {
    const clean = denoReport.replace(/<failure[\s\S]*?<\/failure>/, "").replace('failures="1" errors', 'failures="0" errors');
    expect(denoTally(clean, ok)).toMatchObject({ passed: 3, failed: 0, skipped: 1 });
    expect(denoTally(clean, failedExit)).toMatchObject({ failed: 1, problems: ["deno test exited with code 1, but its report counts no failure"] });
  });
});

describe("the summary", () => {
  test("ends with passed, failed and skipped summed over every step, and lists the skips and problems above", () => {
    const tallies = [
      stepTally("tsc", ok),
      stepTally("build", failedExit),
      vitestTally(
        vitestReport([
          {
            name: "/a.test.ts",
            tests: [
              ["a", "passed"],
              ["b (why)", "skipped"],
            ],
          },
        ]),
        failedExit,
      ),
      denoTally(denoReport, failedExit),
    ];
    const { lines, ok: passed } = summarize(tallies);
    expect(passed).toBe(false);
    expect(lines).toEqual([
      "Summary",
      "  tsc: ok",
      "  build: FAILED",
      "  vitest: 1 passed, 1 failed, 1 skipped",
      "  deno test: 2 passed, 1 failed, 1 skipped",
      "Skipped (2):",
      "  vitest: b (why)",
      "  deno test: memory: a case (the backend has no symbolic links & never will)",
      "Failed outside a test (2):",
      "  build exited with code 1",
      "  vitest exited with code 1, but its report counts no failure",
      "3 passed, 3 failed, 2 skipped",
    ]);
  });

  test("passes only with no failure and at least one step", () => {
    expect(summarize([stepTally("tsc", ok)]).ok).toBe(true);
    expect(summarize([]).ok).toBe(false);
    expect(summarize([]).lines.at(-1)).toBe("0 passed, 0 failed, 0 skipped");
  });
});

describe("the slowest tests", () => {
  test("come from both reports, slowest first, named by file and test", () => {
    const vitest = JSON.stringify({
      testResults: [
        {
          name: "/work/clone/adapters/node/confine.test.ts",
          assertionResults: [
            { fullName: "confine a", duration: 1500 },
            { fullName: "confine b", duration: 12 },
            { fullName: "not run", status: "skipped" },
          ],
        },
      ],
    });
    const deno = denoReport.replace('name="fails" classname="./a_test.ts" time="0.001"', 'name="fails" classname="./a_test.ts" time="2.250"');
    expect(slowestTests(vitest, deno, 2)).toEqual([
      { runner: "deno test", name: "./a_test.ts > fails", ms: 2250 },
      { runner: "vitest", name: "adapters/node/confine.test.ts > confine a", ms: 1500 },
    ]);
  });

  test("an unreadable report contributes nothing rather than failing the summary", () => {
    expect(slowestTests("{not json", undefined, 5)).toEqual([]);
  });
});
