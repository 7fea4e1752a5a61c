// What a finished ripgrep run means. ripgrep answers through its exit code, its stderr and what it printed,
// and the launch around it (the memory-limit shell, bubblewrap) adds codes and messages of its own; each way a
// run can end is one row of ENDINGS, tried in order, so a new case is a row and a test, not another branch.
import { HeadTailCollector } from "../process/collectors.ts";
import type { StopReason } from "../process/types.ts";
import { encodeUtf8 } from "../text/utf8.ts";
import { NUL_BANNED } from "./engine/regex/ban.ts";
import { SearchError } from "./errors.ts";
import { LIMIT_FAILED } from "./ripgrep-args.ts";

/** How a ripgrep run ended, as the backend saw it. */
export interface Ending {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stopReason?: StopReason;
  /** The request's signal was aborted. */
  readonly aborted: boolean;
  /** ripgrep's stderr, trimmed (with a note where the middle of a long one was left out). */
  readonly stderr: string;
  /** Nothing was printed on stdout. */
  readonly empty: boolean;
  /** The consumer said "stop". */
  readonly stopped: boolean;
  /** stdout passed `maxOutputBytes`. */
  readonly overflowed: boolean;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly binary: string;
  /** The bubblewrap program, when the search ran confined. */
  readonly confinedBy?: string;
  /** The memory limit's shell and bytes, when one was set. */
  readonly limit?: { readonly shell: string; readonly bytes: number };
}

/** What the run gives: ripgrep's own answer (exit 0, 1 or 2) to read further, a stopped search, or an unreachable root. */
export type Verdict = { readonly kind: "answer"; readonly exitCode: 0 | 1 | 2 } | { readonly kind: "stopped" } | { readonly kind: "unreachable-root" };

/** One way a run can end: its name (for tests and messages), when it applies, and what it means. */
export interface EndingRule {
  readonly name: string;
  readonly when: (ending: Ending) => boolean;
  readonly says: (ending: Ending) => Verdict | SearchError;
}

const CHDIR_FAILED = /^bwrap: Can't chdir to /m;
// Bytes of stderr quoted in an error message: enough for a regex error with its caret line.
const EXCERPT_BYTES = 2000;
export const NARROW = "Search a narrower path, or use a more specific pattern or include glob.";
/** The problem line of a confined search whose root was swapped for a way out. */
export const UNREACHABLE_ROOT = ".: not searched: it now leads where this search may not look";

const failed = (message: string, details: Record<string, unknown>) => new SearchError("SEARCH_FAILED", message, { details });

/** The ways a run ends, in the order they are tried; the first that applies decides. */
export const ENDINGS: readonly EndingRule[] = [
  { name: "timeout", when: (e) => e.stopReason === "timeout", says: (e) => aborted(e.timeoutMs) },
  { name: "cancelled", when: (e) => e.stopReason === "abort" || e.aborted, says: () => aborted(undefined) },
  {
    // The search root was swapped for a way out between the guard's judgement and bubblewrap's chdir: inside
    // the confinement it leads nowhere, as the engine would report it.
    name: "confined root unreachable",
    when: (e) => e.confinedBy !== undefined && e.empty && e.exitCode === 1 && CHDIR_FAILED.test(e.stderr),
    says: () => ({ kind: "unreachable-root" }),
  },
  {
    name: "confinement failed",
    when: (e) => e.confinedBy !== undefined && e.empty && e.exitCode === 1 && /^bwrap: /m.test(e.stderr),
    says: (e) =>
      failed(`Search failed: ripgrep could not be started inside its confinement (${e.confinedBy}).${quote(clip(e.stderr))}`, {
        exitCode: e.exitCode,
        program: e.confinedBy,
      }),
  },
  // The consumer has what it wants; ripgrep was stopped for it, so its exit status says nothing.
  { name: "stopped by the consumer", when: (e) => e.stopped, says: () => ({ kind: "stopped" }) },
  {
    name: "output overflow",
    when: (e) => e.overflowed,
    says: (e) =>
      new SearchError("SEARCH_RAW_OUTPUT_OVERFLOW", `The search was stopped: ripgrep printed more than ${e.maxOutputBytes} bytes of raw output. ${NARROW}`, {
        details: { maxOutputBytes: e.maxOutputBytes },
      }),
  },
  {
    name: "memory limit not set",
    when: (e) => e.limit !== undefined && e.empty && e.exitCode === LIMIT_FAILED,
    says: (e) =>
      failed(`Search failed: ripgrep's memory limit could not be set by ${e.limit?.shell}.${quote(clip(e.stderr))}`, {
        exitCode: e.exitCode,
        shell: e.limit?.shell,
      }),
  },
  {
    name: "not executable under the limit",
    when: (e) => e.limit !== undefined && e.empty && (e.exitCode === 126 || e.exitCode === 127),
    says: (e) => failed(`Search failed: ripgrep could not be started.${quote(clip(e.stderr))}`, { exitCode: e.exitCode, binary: e.binary }),
  },
  {
    // Rust reports a failed allocation this way and aborts; under the limit that is ripgrep running out.
    name: "out of memory",
    when: (e) => e.exitCode === null && /memory allocation of \d+ bytes failed/.test(e.stderr),
    says: (e) =>
      failed(
        `The search was stopped: ripgrep needed more than ${e.limit ? `${Math.round(e.limit.bytes / 2 ** 20)} MiB` : "the memory it could get"} of memory. ` +
          "That happens on a file with an extremely long line, or a line with a very large number of matches (minified, generated or data files). " +
          "Leave such files out with path or include, or use a more specific pattern.",
        { memoryLimitBytes: e.limit?.bytes ?? null, signal: e.signal },
      ),
  },
  {
    name: "ended by a signal",
    when: (e) => e.exitCode === null,
    says: (e) => failed(`Search failed: ripgrep was ended by ${e.signal ?? "an unknown signal"}.${quote(e.stderr)}`, { signal: e.signal }),
  },
  {
    name: "unknown exit code",
    when: (e) => (e.exitCode as number) > 2,
    says: (e) => failed(`Search failed: ripgrep exited with code ${e.exitCode}.${quote(e.stderr)}`, { exitCode: e.exitCode }),
  },
  { name: "answer", when: () => true, says: (e) => ({ kind: "answer", exitCode: e.exitCode as 0 | 1 | 2 }) },
];

/** The first row of {@link ENDINGS} that applies, and what it says. */
export function classifyEnding(ending: Ending): { readonly rule: string; readonly verdict: Verdict | SearchError } {
  const rule = ENDINGS.find((row) => row.when(ending)) as EndingRule;
  return { rule: rule.name, verdict: rule.says(ending) };
}

/** A finished run's stderr, for {@link answerProblems}. */
export interface Answer {
  /** 0, 1 or 2. */
  readonly exitCode: number;
  readonly stderr: string;
  /** Bytes of stderr that were left out. */
  readonly stderrOmitted: number;
}

/**
 * The problems of ripgrep's answer. ripgrep exits 2 both when it could not start searching (a bad pattern, a
 * missing root) and when it searched but some paths failed. The second is a partial result, told apart by
 * what it printed (`searched`; rg-semantics §3); the first fails with the code that says why.
 */
export function answerProblems(answer: Answer, searched: boolean): string[] {
  if (answer.exitCode !== 2) return [];
  if (searched) return problemLines(answer);
  const excerpt = quote(clip(answer.stderr));
  if (NUL_REFUSED.test(answer.stderr)) {
    // ripgrep's advice (its --text flag) is not one the tools offer; the engine's wording says what to do.
    throw new SearchError("SEARCH_INVALID_PATTERN", NUL_BANNED, { details: { stderr: clip(answer.stderr) } });
  }
  const rejected = rejection(answer.stderr);
  if (rejected) {
    throw new SearchError("SEARCH_INVALID_PATTERN", `ripgrep could not parse the ${rejected.what}.${excerpt}\n${rejected.advice}`, {
      details: { stderr: clip(answer.stderr) },
    });
  }
  throw new SearchError("SEARCH_FAILED", `Search failed (ripgrep exit code 2).${excerpt}\nCheck that the path exists and is readable, then call again.`, {
    details: { exitCode: 2, stderr: clip(answer.stderr) },
  });
}

const NUL_REFUSED = /^rg: pattern contains "\\0" but it is impossible to match$/m;

function rejection(stderr: string): { what: string; advice: string } | undefined {
  if (/error parsing glob|^rg: error (?:parsing pattern \d+|building NFA)$/im.test(stderr)) {
    return { what: "glob", advice: "Fix the glob and call again; to match a character such as [ or { literally, escape it with a backslash." };
  }
  if (/the literal .* is not allowed/i.test(stderr)) {
    return { what: "regular expression", advice: "A pattern matches within one line, so it cannot contain a line break. Search for one line at a time." };
  }
  if (/regex parse error/i.test(stderr)) {
    return {
      what: "regular expression",
      advice: "Fix it and call again; to match a character such as ( [ { . * + ? literally, escape it with a backslash.",
    };
  }
  return undefined;
}

/** ripgrep's notice (its second line has no prefix); the result says it as `nothingSearched`. */
export const NOTHING_SEARCHED: RegExp = /^rg: No files were searched, /m;

/** The per-path problems in ripgrep's stderr, one a line, without its `rg: ` prefix. */
export function problemLines(answer: Pick<Answer, "stderr" | "stderrOmitted">): string[] {
  const problems = answer.stderr
    .split("\n")
    .filter((line) => line.startsWith("rg: ") && !NOTHING_SEARCHED.test(line))
    .map((line) => line.slice(4));
  if (answer.stderrOmitted > 0) problems.push(`(more problems were reported; ${answer.stderrOmitted} bytes of them were left out)`);
  return problems;
}

/** The SEARCH_ABORTED of a cancelled search, or of one stopped after `timeoutMs`. */
export function aborted(timeoutMs: number | undefined): SearchError {
  return new SearchError(
    "SEARCH_ABORTED",
    timeoutMs === undefined ? "The search was cancelled before it finished." : `The search was stopped after ${timeoutMs} ms without finishing. ${NARROW}`,
    { details: timeoutMs === undefined ? {} : { timeoutMs } },
  );
}

/** The head and tail of long stderr text. */
export function clip(text: string): string {
  const collector = new HeadTailCollector({ headBytes: EXCERPT_BYTES / 2, tailBytes: EXCERPT_BYTES / 2 });
  collector.write(encodeUtf8(text));
  return collector.text((omitted) => `\n(${omitted} bytes left out)\n`);
}

/** `text` on a line of its own, or nothing. */
export function quote(text: string): string {
  return text === "" ? "" : `\n${text}`;
}
