import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatchHunk } from "diff";
import { normalizeLineEndings } from "./eol.ts";

export interface DiffOptions {
  /** Lines of context around each change. */
  readonly context?: number;
  /** Cap on the rendered diff; the rest is replaced by a line saying how much was left out. */
  readonly maxBytes?: number;
  /** Texts longer than this many characters are not diffed whole (the summary says so). */
  readonly maxInputChars?: number;
  /** Diff only around these passages (offsets in `before` and `after`), as an edit knows them. */
  readonly regions?: readonly { readonly start: number; readonly end: number; readonly newStart: number; readonly newEnd: number }[];
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

/**
 * A unified diff for the model to check its change against. Whole-text diffs use the `diff` package's line
 * diff; with `regions`, only the lines around each passage are diffed, so a one-line edit of a large file
 * costs the size of its neighbourhood, not of the file.
 */
export function unifiedDiff(path: string, before: string, after: string, options?: DiffOptions): DiffSummary {
  const context = options?.context ?? DEFAULTS.context;
  const maxBytes = options?.maxBytes ?? DEFAULTS.maxBytes;
  const hunks: StructuredPatchHunk[] = [];
  if (options?.regions) {
    for (const excerpt of excerpts(before, after, options.regions, context)) {
      const patch = structuredPatch(path, path, excerpt.before, excerpt.after, "", "", { context });
      for (const hunk of patch.hunks) {
        hunks.push({ ...hunk, oldStart: hunk.oldStart + excerpt.oldLine - 1, newStart: hunk.newStart + excerpt.newLine - 1 });
      }
    }
  } else {
    const limit = options?.maxInputChars ?? DEFAULTS.maxInputChars;
    if (before.length > limit || after.length > limit) {
      return { text: "", added: 0, removed: 0, truncated: false, skipped: `the file is over ${limit} characters` };
    }
    const patch = structuredPatch(path, path, normalizeLineEndings(before), normalizeLineEndings(after), "", "", { context, timeout: 2000 });
    if (!patch) return { text: "", added: 0, removed: 0, truncated: false, skipped: "the change was too large to diff quickly" };
    hunks.push(...patch.hunks);
  }
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
  if (text.length <= maxBytes / 4 || new TextEncoder().encode(text).length <= maxBytes) return { text, truncated: false };
  const lines = text.split("\n");
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    const cost = new TextEncoder().encode(line).length + 1;
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

// Whole lines around each region (plus context), merged when they touch, in LF form.
function excerpts(before: string, after: string, regions: NonNullable<DiffOptions["regions"]>, context: number): Excerpt[] {
  const oldIndex = lineIndex(before);
  const newIndex = lineIndex(after);
  const ranges = regions.map((r) => {
    const oldFirst = lineOf(oldIndex, r.start);
    const newFirst = lineOf(newIndex, r.newStart);
    return {
      oldFrom: Math.max(0, oldFirst - context),
      oldTo: Math.min(oldIndex.length - 1, lineOf(oldIndex, Math.max(r.start, r.end - 1)) + context),
      newFrom: Math.max(0, newFirst - context),
      newTo: Math.min(newIndex.length - 1, lineOf(newIndex, Math.max(r.newStart, r.newEnd - 1)) + context),
    };
  });
  const merged: (typeof ranges)[number][] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && range.oldFrom <= last.oldTo + 1) {
      merged[merged.length - 1] = { ...last, oldTo: Math.max(last.oldTo, range.oldTo), newTo: Math.max(last.newTo, range.newTo) };
    } else {
      merged.push(range);
    }
  }
  return merged.map((r) => ({
    before: normalizeLineEndings(slice(before, oldIndex, r.oldFrom, r.oldTo)),
    after: normalizeLineEndings(slice(after, newIndex, r.newFrom, r.newTo)),
    oldLine: r.oldFrom + 1,
    newLine: r.newFrom + 1,
  }));
}

// Start offsets of every line.
function lineIndex(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) if (i + 1 < text.length) starts.push(i + 1);
  return starts;
}

function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function slice(text: string, starts: readonly number[], from: number, to: number): string {
  return text.slice(starts[from], to + 1 < starts.length ? starts[to + 1] : text.length);
}
