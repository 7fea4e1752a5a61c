import { diffArrays, FILE_HEADERS_ONLY, formatPatch, type StructuredPatchHunk } from "diff";
import type { EditResult, EditSpan } from "./edit.ts";
import { normalizeLineEndings } from "./eol.ts";
import { encodeUtf8 } from "./utf8.ts";

export interface DiffOptions {
  /** Lines of context around each change. */
  readonly context?: number;
  /** Cap on the rendered diff; the rest is replaced by a line saying how much was left out. */
  readonly maxBytes?: number;
  /** Texts longer than this many characters are not diffed whole (the summary says so). */
  readonly maxInputChars?: number;
  /**
   * Line comparisons the line-by-line matching may spend (shared by every region of an edit). Past it, the
   * changed region is shown as one block. A count, not a clock: the same texts always give the same diff.
   */
  readonly maxComparisons?: number;
}

export interface DiffSummary {
  /** Unified diff text (LF line endings), possibly cut; empty when the texts are equal or it was skipped. */
  readonly text: string;
  readonly added: number;
  readonly removed: number;
  /** The diff text was cut at `maxBytes`. */
  readonly truncated: boolean;
  /** Why no diff was computed, when it was not. */
  readonly skipped?: string;
  /**
   * The change was too large to match line by line within `maxComparisons`: everything between the unchanged
   * start and end is shown as removed and then added, so `added` and `removed` may count unchanged lines.
   */
  readonly coarse?: boolean;
}

// One million comparisons take 0.1-0.4 s (measured: a 2,000-line file whose lines are reversed, on an idle and
// on a loaded machine) and match a region with up to about 1,400 changed shared lines exactly. Lines only one
// side has cost nothing, so a rewrite that keeps only braces and blank lines is matched in milliseconds.
const DEFAULTS = { context: 3, maxBytes: 8 * 1024, maxInputChars: 2 * 1024 * 1024, maxComparisons: 1_000_000 };

/** A unified diff of two whole texts for the model to check a change against. */
export function unifiedDiff(path: string, before: string, after: string, options?: DiffOptions): DiffSummary {
  const context = options?.context ?? DEFAULTS.context;
  const limit = options?.maxInputChars ?? DEFAULTS.maxInputChars;
  if (before.length > limit || after.length > limit) {
    return { text: "", added: 0, removed: 0, truncated: false, skipped: `the file is over ${limit} characters` };
  }
  const budget = new ComparisonBudget(options?.maxComparisons ?? DEFAULTS.maxComparisons);
  const { hunks, coarse } = lineDiff(splitLines(normalizeLineEndings(before)), splitLines(normalizeLineEndings(after)), context, budget);
  return summarize(path, hunks, options?.maxBytes ?? DEFAULTS.maxBytes, coarse);
}

/**
 * The diff of an edit, computed only over the lines around each replaced passage: a one-line edit of a large
 * file costs the size of its neighbourhood, not of the file. Hunks carry the file's real line numbers.
 */
export function editDiff(path: string, edit: EditResult, options?: DiffOptions): DiffSummary {
  const context = options?.context ?? DEFAULTS.context;
  const budget = new ComparisonBudget(options?.maxComparisons ?? DEFAULTS.maxComparisons);
  const hunks: StructuredPatchHunk[] = [];
  let coarse = false;
  for (const excerpt of excerpts(edit, context)) {
    const region = lineDiff(splitLines(excerpt.before), splitLines(excerpt.after), context, budget);
    coarse ||= region.coarse;
    for (const hunk of region.hunks) {
      hunks.push({ ...hunk, oldStart: hunk.oldStart + excerpt.oldLine - 1, newStart: hunk.newStart + excerpt.newLine - 1 });
    }
  }
  return summarize(path, hunks, options?.maxBytes ?? DEFAULTS.maxBytes, coarse);
}

/**
 * Every hunk between two whole texts, uncut and byte-exact (line endings as they are), for a patch that must
 * apply: the same comparison budget as the model's diffs, so the same texts always give the same hunks; past it
 * the changed region is one block (`coarse`), still exact.
 */
export function textHunks(
  before: string,
  after: string,
  options?: Pick<DiffOptions, "context" | "maxComparisons">,
): { hunks: StructuredPatchHunk[]; coarse: boolean } {
  const budget = new ComparisonBudget(options?.maxComparisons ?? DEFAULTS.maxComparisons);
  return lineDiff(splitLines(before), splitLines(after), options?.context ?? DEFAULTS.context, budget);
}

function summarize(path: string, hunks: StructuredPatchHunk[], maxBytes: number, coarse: boolean): DiffSummary {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  if (hunks.length === 0) return { text: "", added, removed, truncated: false };
  const full = formatPatch({ oldFileName: path, newFileName: path, oldHeader: undefined, newHeader: undefined, hunks }, FILE_HEADERS_ONLY);
  return { ...cut(full, maxBytes), added, removed, ...(coarse ? { coarse } : {}) };
}

/** Counts line comparisons and stops the matching once the budget is spent. */
class ComparisonBudget {
  #left: number;

  constructor(comparisons: number) {
    this.#left = comparisons;
  }

  equal = (a: string, b: string): boolean => {
    if (--this.#left < 0) throw OVER_BUDGET;
    return a === b;
  };
}

const OVER_BUDGET = Symbol("over budget");

interface Run {
  readonly kind: "equal" | "removed" | "added";
  readonly lines: readonly string[];
}

/**
 * Hunks between two texts given as lines (each with its newline, as the diff package tokenizes them). The
 * unchanged start and end are set aside first, in linear time. Of what is left, a line that does not occur on
 * the other side cannot be matched, so only the lines both sides have go to the `diff` package's Myers
 * matching (a rewrite that keeps only its braces and blank lines matches those at once); the lines left out
 * rejoin as removed or added between the matches. The smallest diff of the shared lines is the smallest diff
 * of the texts. When the matching spends its budget, the changed region is one block (marked coarse).
 */
function lineDiff(
  before: readonly string[],
  after: readonly string[],
  context: number,
  budget: ComparisonBudget,
): { hunks: StructuredPatchHunk[]; coarse: boolean } {
  const shorter = Math.min(before.length, after.length);
  let head = 0;
  while (head < shorter && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < shorter - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const removed = before.slice(head, before.length - tail);
  const added = after.slice(head, after.length - tail);
  const start: Run = { kind: "equal", lines: before.slice(0, head) };
  const end: Run = { kind: "equal", lines: before.slice(before.length - tail) };
  const inAdded = new Set(added);
  const inRemoved = new Set(removed);
  const oldShared = indexesWhere(removed, (line) => inAdded.has(line));
  const newShared = indexesWhere(added, (line) => inRemoved.has(line));
  let matches: [number, number][] = [];
  let coarse = false;
  if (oldShared.length > 0 && newShared.length > 0) {
    try {
      const changes = diffArrays(oldShared, newShared, { comparator: (a, b) => budget.equal(removed[a] as string, added[b] as string) });
      matches = matchedPositions(changes).map(([p, q]) => [oldShared[p] as number, newShared[q] as number]);
    } catch (error) {
      if (error !== OVER_BUDGET) throw error;
      coarse = true;
    }
  }
  const middle: Run[] = [];
  let o = 0;
  let n = 0;
  for (const [mo, mn] of [...matches, [removed.length, added.length] as [number, number]]) {
    if (mo > o) middle.push({ kind: "removed", lines: removed.slice(o, mo) });
    if (mn > n) middle.push({ kind: "added", lines: added.slice(n, mn) });
    if (mo < removed.length) {
      const last = middle.at(-1);
      if (last?.kind === "equal") (last.lines as string[]).push(removed[mo] as string);
      else middle.push({ kind: "equal", lines: [removed[mo] as string] });
    }
    o = mo + 1;
    n = mn + 1;
  }
  return { hunks: hunksOf([start, ...middle, end], context), coarse };
}

function indexesWhere(lines: readonly string[], keep: (line: string) => boolean): number[] {
  const out: number[] = [];
  lines.forEach((line, i) => {
    if (keep(line)) out.push(i);
  });
  return out;
}

// The positions (old, new) that a change list keeps equal, in order.
function matchedPositions(changes: readonly { readonly value: readonly number[]; readonly added: boolean; readonly removed: boolean }[]): [number, number][] {
  const pairs: [number, number][] = [];
  let o = 0;
  let n = 0;
  for (const change of changes) {
    if (change.added) n += change.value.length;
    else if (change.removed) o += change.value.length;
    else {
      for (let k = 0; k < change.value.length; k++) pairs.push([o + k, n + k]);
      o += change.value.length;
      n += change.value.length;
    }
  }
  return pairs;
}

/** Lines with their newlines; a last line without one stays as it is (the diff package's line tokens). */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let from = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
    lines.push(text.slice(from, nl + 1));
    from = nl + 1;
  }
  if (from < text.length) lines.push(text.slice(from));
  return lines;
}

/**
 * Unified-diff hunks from runs of equal, removed and added lines, as the diff package's `structuredPatch`
 * builds them: `context` lines around each change, changes closer than twice that joined into one hunk, and
 * a "\\ No newline at end of file" line after a last line that has no newline.
 */
function hunksOf(runs: readonly Run[], context: number): StructuredPatchHunk[] {
  const nonEmpty = runs.filter((run) => run.lines.length > 0);
  const hunks: StructuredPatchHunk[] = [];
  let oldLine = 1;
  let newLine = 1;
  let open: { oldStart: number; newStart: number; lines: string[]; oldLines: number; newLines: number } | undefined;
  const close = () => {
    if (open === undefined) return;
    hunks.push({ oldStart: open.oldStart, oldLines: open.oldLines, newStart: open.newStart, newLines: open.newLines, lines: markEndOfFile(open.lines) });
    open = undefined;
  };
  nonEmpty.forEach((run, i) => {
    if (run.kind !== "equal") {
      if (open === undefined) {
        const previous = nonEmpty[i - 1];
        const lead = previous?.kind === "equal" && context > 0 ? previous.lines.slice(-context) : [];
        open = {
          oldStart: oldLine - lead.length,
          newStart: newLine - lead.length,
          lines: lead.map((l) => ` ${l}`),
          oldLines: lead.length,
          newLines: lead.length,
        };
      }
      const sign = run.kind === "added" ? "+" : "-";
      for (const line of run.lines) open.lines.push(sign + line);
      if (run.kind === "added") {
        open.newLines += run.lines.length;
        newLine += run.lines.length;
      } else {
        open.oldLines += run.lines.length;
        oldLine += run.lines.length;
      }
      return;
    }
    if (open !== undefined) {
      const last = i === nonEmpty.length - 1;
      const shown = !last && run.lines.length <= context * 2 ? run.lines : run.lines.slice(0, context);
      for (const line of shown) open.lines.push(` ${line}`);
      open.oldLines += shown.length;
      open.newLines += shown.length;
      if (shown.length < run.lines.length || last) close();
    }
    oldLine += run.lines.length;
    newLine += run.lines.length;
  });
  close();
  return hunks;
}

function markEndOfFile(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line.endsWith("\n")) out.push(line.slice(0, -1));
    else out.push(line, "\\ No newline at end of file");
  }
  return out;
}

function cut(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (text.length <= maxBytes / 4 || encodeUtf8(text).length <= maxBytes) return { text, truncated: false };
  const lines = text.split("\n");
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    const cost = encodeUtf8(line).length + 1;
    if (size + cost > maxBytes) break;
    kept.push(line);
    size += cost;
  }
  const left = lines.length - kept.length;
  kept.push(`… diff cut here: ${left} more line${left === 1 ? "" : "s"}`);
  return { text: kept.join("\n"), truncated: true };
}

interface Excerpt {
  readonly before: string;
  readonly after: string;
  readonly oldLine: number;
  readonly newLine: number;
}

// For each group of nearby passages: whole lines from `context` lines before the first to `context` lines after
// the last, before and after the edit, in LF form, with the 1-based line each excerpt starts at.
function excerpts(edit: EditResult, context: number): Excerpt[] {
  const text = edit.original;
  const insertedLines = countNewlines(edit.replacement, 0, edit.replacement.length);
  const out: Excerpt[] = [];
  let lineShift = 0;
  let i = 0;
  while (i < edit.spans.length) {
    const first = edit.spans[i] as EditSpan;
    let from = lineStart(text, first.start);
    let oldLine = first.line;
    for (let k = 0; k < context && from > 0; k++) {
      from = lineStart(text, from - 1);
      oldLine--;
    }
    let j = i;
    let to = afterLines(text, lastChar(edit.spans[j] as EditSpan), context);
    while (j + 1 < edit.spans.length && (edit.spans[j + 1] as EditSpan).start <= to) {
      j++;
      to = afterLines(text, lastChar(edit.spans[j] as EditSpan), context);
    }
    let after = "";
    let copied = from;
    let shiftHere = 0;
    for (let k = i; k <= j; k++) {
      const span = edit.spans[k] as EditSpan;
      after += text.slice(copied, span.start) + edit.replacement;
      copied = span.end;
      shiftHere += insertedLines - countNewlines(text, span.start, span.end);
    }
    after += text.slice(copied, to);
    out.push({
      before: normalizeLineEndings(text.slice(from, to)),
      after: normalizeLineEndings(after),
      oldLine,
      newLine: oldLine + lineShift,
    });
    lineShift += shiftHere;
    i = j + 1;
  }
  return out;
}

function lastChar(span: EditSpan): number {
  return Math.max(span.start, span.end - 1);
}

function lineStart(text: string, offset: number): number {
  return offset <= 0 ? 0 : text.lastIndexOf("\n", offset - 1) + 1;
}

// The offset just past the line holding `offset` and `count` more lines (or the end of the text).
function afterLines(text: string, offset: number, count: number): number {
  let at = offset;
  for (let k = 0; k <= count; k++) {
    const nl = text.indexOf("\n", at);
    if (nl === -1) return text.length;
    at = nl + 1;
  }
  return at;
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let at = text.indexOf("\n", from); at !== -1 && at < to; at = text.indexOf("\n", at + 1)) n++;
  return n;
}
