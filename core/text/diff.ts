import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatchHunk } from "diff";
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
}

const DEFAULTS = { context: 3, maxBytes: 8 * 1024, maxInputChars: 2 * 1024 * 1024 };

/** A unified diff of two whole texts for the model to check a change against (the `diff` package's line diff). */
export function unifiedDiff(path: string, before: string, after: string, options?: DiffOptions): DiffSummary {
  const context = options?.context ?? DEFAULTS.context;
  const limit = options?.maxInputChars ?? DEFAULTS.maxInputChars;
  if (before.length > limit || after.length > limit) {
    return { text: "", added: 0, removed: 0, truncated: false, skipped: `the file is over ${limit} characters` };
  }
  const patch = structuredPatch(path, path, normalizeLineEndings(before), normalizeLineEndings(after), "", "", { context, timeout: 2000 });
  if (!patch) return { text: "", added: 0, removed: 0, truncated: false, skipped: "the change was too large to diff quickly" };
  return summarize(path, patch.hunks, options?.maxBytes ?? DEFAULTS.maxBytes);
}

/**
 * The diff of an edit, computed only over the lines around each replaced passage: a one-line edit of a large
 * file costs the size of its neighbourhood, not of the file. Hunks carry the file's real line numbers.
 */
export function editDiff(path: string, edit: EditResult, options?: DiffOptions): DiffSummary {
  const context = options?.context ?? DEFAULTS.context;
  const hunks: StructuredPatchHunk[] = [];
  for (const excerpt of excerpts(edit, context)) {
    const patch = structuredPatch(path, path, excerpt.before, excerpt.after, "", "", { context });
    for (const hunk of patch.hunks) {
      hunks.push({ ...hunk, oldStart: hunk.oldStart + excerpt.oldLine - 1, newStart: hunk.newStart + excerpt.newLine - 1 });
    }
  }
  return summarize(path, hunks, options?.maxBytes ?? DEFAULTS.maxBytes);
}

function summarize(path: string, hunks: StructuredPatchHunk[], maxBytes: number): DiffSummary {
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
  return { ...cut(full, maxBytes), added, removed };
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
