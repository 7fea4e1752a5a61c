// The table of ways a ripgrep run ends: each row, reached by the ending that names it, and the order that
// decides between rows that both apply.
import { describe, expect, test } from "vitest";
import { isSearchError } from "./errors.ts";
import { answerProblems, classifyEnding, ENDINGS, type Ending } from "./ripgrep-exit.ts";

const plain: Ending = {
  exitCode: 0,
  signal: null,
  aborted: false,
  stderr: "",
  empty: false,
  stopped: false,
  overflowed: false,
  timeoutMs: 1000,
  maxOutputBytes: 100,
  binary: "/bin/rg",
};
const confined = { confinedBy: "/usr/bin/bwrap", empty: true, exitCode: 1 } as const;
const limited = { limit: { shell: "/bin/sh", bytes: 2 ** 29 }, empty: true } as const;

const cases: readonly [string, Partial<Ending>, string][] = [
  ["timeout", { stopReason: "timeout", exitCode: null, signal: "SIGTERM" }, "SEARCH_ABORTED"],
  ["cancelled", { stopReason: "abort", exitCode: null }, "SEARCH_ABORTED"],
  ["cancelled", { aborted: true }, "SEARCH_ABORTED"],
  ["confined root unreachable", { ...confined, stderr: "bwrap: Can't chdir to /w: No such file" }, "unreachable-root"],
  ["confinement failed", { ...confined, stderr: "bwrap: No permissions to create new namespace" }, "SEARCH_FAILED"],
  ["stopped by the consumer", { stopped: true, exitCode: null, signal: "SIGTERM", stopReason: "output" }, "stopped"],
  ["output overflow", { overflowed: true, exitCode: null, signal: "SIGTERM", stopReason: "output" }, "SEARCH_RAW_OUTPUT_OVERFLOW"],
  ["memory limit not set", { ...limited, exitCode: 125 }, "SEARCH_FAILED"],
  ["not executable under the limit", { ...limited, exitCode: 126 }, "SEARCH_FAILED"],
  ["not executable under the limit", { ...limited, exitCode: 127 }, "SEARCH_FAILED"],
  ["out of memory", { exitCode: null, signal: "SIGABRT", stderr: "memory allocation of 1073741824 bytes failed" }, "SEARCH_FAILED"],
  ["ended by a signal", { exitCode: null, signal: "SIGSEGV" }, "SEARCH_FAILED"],
  ["unknown exit code", { exitCode: 101 }, "SEARCH_FAILED"],
  ["unknown exit code", { ...limited, exitCode: 125, empty: false }, "SEARCH_FAILED"],
  ["answer", { exitCode: 0 }, "answer 0"],
  ["answer", { exitCode: 1, confinedBy: "/usr/bin/bwrap", empty: true, stderr: "" }, "answer 1"],
  ["answer", { exitCode: 2, stderr: "rg: nope: No such file or directory (os error 2)" }, "answer 2"],
];

describe("how a ripgrep run ended", () => {
  test.each(cases)("%s: %j", (rule, ending, expected) => {
    const got = classifyEnding({ ...plain, ...ending });
    expect(got.rule).toBe(rule);
    const verdict = got.verdict;
    if (isSearchError(verdict)) expect(verdict.code).toBe(expected);
    else expect(verdict.kind === "answer" ? `answer ${verdict.exitCode}` : verdict.kind).toBe(expected);
  });

  test("every row is reached by some case", () => {
    expect(new Set(ENDINGS.map((row) => row.name))).toEqual(new Set(cases.map(([rule]) => rule)));
  });

  test("the earlier row wins: a timeout beats a consumer's stop, a stop beats an overflow", () => {
    expect(classifyEnding({ ...plain, stopReason: "timeout", stopped: true }).rule).toBe("timeout");
    expect(classifyEnding({ ...plain, stopped: true, overflowed: true }).rule).toBe("stopped by the consumer");
  });

  test("the messages name what failed", () => {
    const memory = classifyEnding({ ...plain, ...limited, exitCode: null, signal: "SIGABRT", stderr: "memory allocation of 8 bytes failed" }).verdict;
    expect(String((memory as Error).message)).toContain("more than 512 MiB of memory");
    const bwrap = classifyEnding({ ...plain, ...confined, stderr: "bwrap: setting up uid map: Permission denied" }).verdict;
    expect((bwrap as Error).message).toContain("inside its confinement (/usr/bin/bwrap)");
  });
});

describe("ripgrep's answer (exit 2)", () => {
  const answer = (stderr: string) => ({ exitCode: 2, stderr, stderrOmitted: 0 });
  test("after a search, the per-path lines are problems; before one, a coded failure says why", () => {
    expect(answerProblems(answer("rg: a: Permission denied (os error 13)"), true)).toEqual(["a: Permission denied (os error 13)"]);
    const codeOf = (stderr: string) => {
      try {
        answerProblems(answer(stderr), false);
        return "none";
      } catch (error) {
        return isSearchError(error) ? error.code : String(error);
      }
    };
    expect(codeOf("rg: regex parse error:\n    (\n    ^\nerror: unclosed group")).toBe("SEARCH_INVALID_PATTERN");
    expect(codeOf('rg: pattern contains "\\0" but it is impossible to match')).toBe("SEARCH_INVALID_PATTERN");
    expect(codeOf("rg: error parsing glob '[z-a]': invalid range; 'z' > 'a'")).toBe("SEARCH_INVALID_PATTERN");
    expect(codeOf("rg: nope: No such file or directory (os error 2)")).toBe("SEARCH_FAILED");
    expect(answerProblems({ exitCode: 1, stderr: "", stderrOmitted: 0 }, false)).toEqual([]);
  });
});
