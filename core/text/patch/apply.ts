import { quoteInput } from "../../errors/mod.ts";
import { detectLineEnding, endsWithNewline, type LineEnding } from "../eol.ts";
import { type PatchErrorCode, PatchError, type PatchProblem } from "./errors.ts";
import type { Hunk, HunkLine } from "./parse.ts";
import { closestCandidates, FoldedLines, type SeekPass, type SeekResult, seekAll, seekFirst } from "./seek.ts";

export interface ApplyHunksOptions {
  /** Display path for messages. */
  readonly path?: string;
}

/** Where one hunk was applied. */
export interface HunkPlacement {
  /** 1-based line of the original file where the hunk's old lines start (or where its lines were inserted). */
  readonly line: number;
  /** How loosely the context was compared there. */
  readonly pass: SeekPass;
}

export interface PatchedText {
  /** The new text, or undefined when a hunk did not fit (then `problems` says why). */
  readonly text: string | undefined;
  readonly placements: readonly HunkPlacement[];
  readonly problems: readonly PatchProblem[];
}

/**
 * The text of one file after a patch's hunks, or PATCH_CONTEXT_NOT_FOUND / PATCH_AMBIGUOUS_CONTEXT naming every
 * hunk that does not fit. The file's line endings (per line; added lines take the dominant one), its BOM
 * (a leading U+FEFF) and whether it ends with a newline are kept; context lines are kept as the file has them,
 * even when they were matched loosely.
 */
export function applyHunks(original: string, hunks: readonly Hunk[], options?: ApplyHunksOptions): string {
  const result = patchText(original, hunks, options);
  if (result.text === undefined) {
    const [first] = result.problems as [PatchProblem, ...PatchProblem[]];
    const message = result.problems.length === 1 ? first.message : result.problems.map((p) => p.message).join("\n");
    throw new PatchError(first.code as PatchErrorCode, message, { details: { ...first.details, problems: result.problems } });
  }
  return result.text;
}

interface FileLine {
  readonly text: string;
  readonly eol: "" | LineEnding;
}

interface Replacement {
  readonly start: number;
  readonly ops: readonly HunkLine[];
}

/** applyHunks without throwing: the new text, where each hunk went, and every hunk that did not fit. */
export function patchText(original: string, hunks: readonly Hunk[], options?: ApplyHunksOptions): PatchedText {
  const path = options?.path ?? "the file";
  const bom = original.charCodeAt(0) === 0xfeff ? "\ufeff" : "";
  const body = bom ? original.slice(1) : original;
  const lines = splitFileLines(body);
  const file = new FoldedLines(lines.map((l) => l.text));
  const replacements: Replacement[] = [];
  const placements: HunkPlacement[] = [];
  const problems: PatchProblem[] = [];
  let cursor = 0;
  hunks.forEach((hunk, index) => {
    const located = locate(file, hunk, hunk.lines, cursor);
    if (located.kind === "found") {
      replacements.push({ start: located.at, ops: located.ops });
      placements.push({ line: located.at + 1, pass: located.pass });
      cursor = located.at + located.ops.filter((op) => op.kind !== "+").length;
    } else {
      problems.push(describe(file, hunk, index + 1, located, cursor, path));
    }
  });
  if (problems.length > 0) return { text: undefined, placements, problems };
  return { text: bom + join(lines, replacements, detectLineEnding(body), body === "" || endsWithNewline(body)), placements, problems };
}

type Located =
  | { readonly kind: "found"; readonly at: number; readonly pass: SeekPass; readonly ops: readonly HunkLine[] }
  | { readonly kind: "ambiguous"; readonly at: readonly number[] }
  | { readonly kind: "missing"; readonly anchorMissing: boolean; readonly old: readonly string[] };

function locate(file: FoldedLines, hunk: Hunk, ops: readonly HunkLine[], cursor: number): Located {
  const old = ops.filter((op) => op.kind !== "+").map((op) => op.text);
  let result: SeekResult;
  let anchorMissing = false;
  if (hunk.anchor !== undefined) {
    const anchors = seekAll(file, [hunk.anchor], cursor);
    if (anchors.kind === "missing") {
      anchorMissing = true;
      result = anchors;
    } else {
      // Each place the anchor occurs gives the first match after it; the hunk is ambiguous only when they differ.
      const starts = anchors.kind === "found" ? [anchors.at] : anchors.at;
      const places = new Map<number, SeekPass>();
      for (const a of starts) {
        const r = old.length === 0 ? ({ kind: "found", at: a + 1, pass: anchors.pass } as const) : seekFirst(file, old, a, hunk.endOfFile);
        if (r.kind === "found" && !places.has(r.at)) places.set(r.at, r.pass);
      }
      const [first] = places;
      result =
        places.size === 0
          ? { kind: "missing" }
          : places.size === 1 && first
            ? { kind: "found", at: first[0], pass: first[1] }
            : { kind: "ambiguous", at: [...places.keys()], pass: "exact" };
    }
  } else if (old.length === 0) {
    result = { kind: "found", at: file.lines.length, pass: "exact" };
  } else {
    result = seekAll(file, old, cursor, hunk.endOfFile);
  }
  if (result.kind === "found") return { kind: "found", at: result.at, pass: result.pass, ops };
  if (result.kind === "ambiguous") return { kind: "ambiguous", at: result.at };
  // A blank last context line often stands for the file's final newline, which is not a line here.
  const tail = ops.at(-1);
  if (!anchorMissing && tail !== undefined && tail.kind !== "+" && tail.text.trim() === "") return locate(file, hunk, ops.slice(0, -1), cursor);
  return { kind: "missing", anchorMissing, old };
}

const MAX_LISTED = 10;

function describe(file: FoldedLines, hunk: Hunk, number: number, located: Located, cursor: number, path: string): PatchProblem {
  const which = `hunk ${number} (patch line ${hunk.line}) of ${quoteInput(path)}`;
  const after = cursor > 0 ? ` after line ${cursor}, where hunk ${number - 1} ended` : "";
  const base = { path, hunk: number, line: hunk.line };
  if (located.kind === "ambiguous") {
    const lines = located.at.map((i) => i + 1);
    const listed = lines.slice(0, MAX_LISTED).join(", ") + (lines.length > MAX_LISTED ? ", …" : "");
    return {
      code: "PATCH_AMBIGUOUS_CONTEXT",
      path,
      message:
        `${which}: its context matches ${lines.length} places${after} (lines ${listed}); add context lines, ` +
        `or an "@@" line naming the function or section, so that it matches one`,
      details: { ...base, lines },
    };
  }
  if (located.kind === "found") throw new Error("unreachable");
  if (located.anchorMissing) {
    const near = closestCandidates(file, [hunk.anchor as string]).map((c) => c.at + 1);
    const hint = near.length > 0 ? `; similar lines: ${near.join(", ")}` : "";
    return {
      code: "PATCH_CONTEXT_NOT_FOUND",
      path,
      message: `${which}: the "@@" line ${quoteInput(hunk.anchor as string, "json")} was not found${after}${hint}`,
      details: { ...base, anchor: hunk.anchor, candidates: near },
    };
  }
  const candidates = closestCandidates(file, located.old);
  let hint = "; no line of it is in the file: read the file again";
  const best = candidates[0];
  if (best !== undefined) {
    const places = candidates.map((c) => `line ${c.at + 1} (${c.matching} of ${located.old.length} lines match)`).join(", ");
    const differs = best.at + best.firstDifference;
    const reads = differs < file.lines.length ? `line ${differs + 1} reads ${quoteInput(file.lines[differs] as string, "json")}` : "the file ends";
    const expected = quoteInput(located.old[best.firstDifference] ?? "", "json");
    const order = best.at < cursor ? " (that is before the previous hunk: hunks must follow the file's order)" : "";
    hint = `; the closest: ${places}${order}. At the first, ${reads} where the hunk has ${expected}`;
  }
  const end = hunk.endOfFile ? ` at the end of the file ("*** End of File")` : "";
  return {
    code: "PATCH_CONTEXT_NOT_FOUND",
    path,
    message: `${which}: its ${located.old.length} context and removed lines were not found${end}${after}${hint}`,
    details: { ...base, candidates: candidates.map((c) => c.at + 1) },
  };
}

function splitFileLines(text: string): FileLine[] {
  const out: FileLine[] = [];
  let from = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
    const crlf = nl > from && text.charCodeAt(nl - 1) === 13;
    out.push({ text: text.slice(from, crlf ? nl - 1 : nl), eol: crlf ? "\r\n" : "\n" });
    from = nl + 1;
  }
  if (from < text.length) out.push({ text: text.slice(from), eol: "" });
  return out;
}

function join(lines: readonly FileLine[], replacements: readonly Replacement[], eol: LineEnding, finalNewline: boolean): string {
  const out: FileLine[] = [];
  let read = 0;
  for (const { start, ops } of replacements) {
    for (; read < start; read++) out.push(lines[read] as FileLine);
    for (const op of ops) {
      if (op.kind === "+") out.push({ text: op.text, eol });
      else if (op.kind === " ") out.push(lines[read++] as FileLine);
      else read++;
    }
  }
  for (; read < lines.length; read++) out.push(lines[read] as FileLine);
  let text = "";
  out.forEach((line, i) => {
    const last = i === out.length - 1;
    text += line.text + (last ? (finalNewline ? line.eol || eol : "") : line.eol || eol);
  });
  return text;
}
