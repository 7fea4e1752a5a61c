// Context lines (`-B`/`-A`): the lines ripgrep prints around matching ones, as its `--json` `context`
// messages. Each match gets up to `before` lines before it that no earlier match or context already
// printed, and up to `after` lines after it that come before the next match; so overlapping and adjacent
// contexts merge, and a match inside another's context is a match. Context never reaches past the searched
// bytes (`end`: the fill where a walked file's NUL stopped the search).
import type { GrepLine, SearchData } from "../backend.ts";
import type { Budget } from "./budget.ts";
import { strictUtf8 } from "./text.ts";

/** How many lines before and after each match. */
export interface ContextSize {
  readonly before: number;
  readonly after: number;
}

/** The matching lines (in order) with their context lines between them, each marked `context`. */
export function withContext(data: Uint8Array, end: number, matches: readonly GrepLine[], size: ContextSize, budget: Budget, path: string): GrepLine[] {
  const out: GrepLine[] = [];
  // The offset and line number just past the last line printed.
  let printed = 0;
  let printedLine = 1;
  for (const [i, match] of matches.entries()) {
    const start = match.absoluteOffset;
    // Before: walk back from the match's line start, no further than what is printed.
    const before: number[] = [];
    for (let at = start; before.length < size.before && at > printed; ) {
      // (A negative start would make lastIndexOf search from the end.)
      const previous = at < 2 ? 0 : data.lastIndexOf(0x0a, at - 2) + 1;
      at = Math.max(previous, printed);
      before.unshift(at);
    }
    for (const [k, at] of before.entries()) out.push(contextLine(data, at, end, match.lineNumber - before.length + k, budget, path));
    out.push(match);
    printed = lineEnd(data, start, end);
    printedLine = match.lineNumber + 1;
    // After: up to `after` lines, stopping at the next match.
    const next = matches[i + 1]?.absoluteOffset ?? end;
    for (let n = 0; n < size.after && printed < next && printed < end; n++) {
      out.push(contextLine(data, printed, end, printedLine, budget, path));
      printed = lineEnd(data, printed, end);
      printedLine++;
    }
  }
  return out;
}

function lineEnd(data: Uint8Array, start: number, end: number): number {
  const nl = data.indexOf(0x0a, start);
  return nl === -1 || nl >= end ? end : nl + 1;
}

function contextLine(data: Uint8Array, start: number, end: number, lineNumber: number, budget: Budget, path: string): GrepLine {
  const bytes = data.subarray(start, lineEnd(data, start, end));
  budget.beginMessage();
  const text = strictUtf8(bytes);
  budget.spend(CONTEXT_BYTES + path.length + (text === undefined ? Math.ceil((bytes.length * 4) / 3) : bytes.length));
  const line: SearchData = text === undefined ? { bytes: bytes.slice() } : { text };
  return { line, lineNumber, absoluteOffset: start, submatches: [], context: true };
}

// What ripgrep prints for one context message besides its path and line, roughly.
const CONTEXT_BYTES = 120;
