// Finding a hunk's lines in a file. Each pass compares lines more loosely than the one before; a pass that
// finds the lines at exactly one place wins, one that finds them at several places makes the hunk ambiguous,
// and only a pass that finds nothing hands over to the next.

/** How loosely lines were compared where a hunk was found. */
export type SeekPass = "exact" | "trailing-whitespace" | "surrounding-whitespace" | "punctuation";

export const SEEK_PASSES: readonly SeekPass[] = ["exact", "trailing-whitespace", "surrounding-whitespace", "punctuation"];

// Typographic characters a model tends to type as ASCII (and a file may hold either way).
const TYPOGRAPHIC = /[\u2010-\u2015\u2212\u2018-\u201b\u201c-\u201f\u00a0\u2002-\u200a\u202f\u205f\u3000]/g;
const ASCII_OF: Readonly<Record<string, string>> = {};
for (const c of "\u2010\u2011\u2012\u2013\u2014\u2015\u2212") (ASCII_OF as Record<string, string>)[c] = "-";
for (const c of "\u2018\u2019\u201a\u201b") (ASCII_OF as Record<string, string>)[c] = "'";
for (const c of "\u201c\u201d\u201e\u201f") (ASCII_OF as Record<string, string>)[c] = '"';
for (const c of "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000") (ASCII_OF as Record<string, string>)[c] = " ";

const FOLD: Readonly<Record<SeekPass, (line: string) => string>> = {
  exact: (line) => line,
  "trailing-whitespace": (line) => line.trimEnd(),
  "surrounding-whitespace": (line) => line.trim(),
  punctuation: (line) => line.replace(TYPOGRAPHIC, (c) => ASCII_OF[c] as string).trim(),
};

/**
 * The file's lines folded for each pass, with an index from each folded line to where it occurs, computed on
 * first use and kept for every hunk of the file: a hunk is then sought only where its rarest line is.
 */
export class FoldedLines {
  readonly lines: readonly string[];
  readonly #folded = new Map<SeekPass, readonly string[]>();
  readonly #index = new Map<SeekPass, ReadonlyMap<string, readonly number[]>>();

  constructor(lines: readonly string[]) {
    this.lines = lines;
  }

  get(pass: SeekPass): readonly string[] {
    let folded = this.#folded.get(pass);
    if (folded === undefined) {
      folded = pass === "exact" ? this.lines : this.lines.map(FOLD[pass]);
      this.#folded.set(pass, folded);
    }
    return folded;
  }

  index(pass: SeekPass): ReadonlyMap<string, readonly number[]> {
    let index = this.#index.get(pass);
    if (index === undefined) {
      const built = new Map<string, number[]>();
      this.get(pass).forEach((line, i) => {
        const at = built.get(line);
        if (at === undefined) built.set(line, [i]);
        else at.push(i);
      });
      index = built;
      this.#index.set(pass, index);
    }
    return index;
  }
}

export type SeekResult =
  | { readonly kind: "found"; readonly at: number; readonly pass: SeekPass }
  | { readonly kind: "ambiguous"; readonly at: readonly number[]; readonly pass: SeekPass }
  | { readonly kind: "missing" };

/**
 * Where `pattern` occurs in the file at or after line index `from` (0-based): in the first pass that finds it
 * anywhere, every place it occurs there (so `found` means unique in that pass). `atEnd` accepts only the place
 * that ends the file. An empty pattern is found at `from`.
 */
export function seekAll(file: FoldedLines, pattern: readonly string[], from: number, atEnd = false): SeekResult {
  return seek(file, pattern, from, atEnd, false);
}

/** The first place `pattern` occurs at or after `from`, in the first pass that finds it anywhere. */
export function seekFirst(file: FoldedLines, pattern: readonly string[], from: number, atEnd = false): SeekResult {
  return seek(file, pattern, from, atEnd, true);
}

function seek(file: FoldedLines, pattern: readonly string[], from: number, atEnd: boolean, first: boolean): SeekResult {
  if (pattern.length === 0) return { kind: "found", at: from, pass: "exact" };
  const last = file.lines.length - pattern.length;
  if (last < from) return { kind: "missing" };
  for (const pass of SEEK_PASSES) {
    const lines = file.get(pass);
    const index = file.index(pass);
    const wanted = pattern.map(FOLD[pass]);
    // Only where the pattern's rarest line occurs can the pattern start (that line's offset before it).
    let rarest: readonly number[] | undefined;
    let offset = 0;
    for (let k = 0; k < wanted.length; k++) {
      const at = index.get(wanted[k] as string);
      if (at === undefined) {
        rarest = undefined;
        break;
      }
      if (rarest === undefined || at.length < rarest.length) {
        rarest = at;
        offset = k;
      }
    }
    if (rarest === undefined) continue;
    const hits: number[] = [];
    for (const p of rarest) {
      const start = p - offset;
      if (start < (atEnd ? last : from) || start > last || !matchesAt(lines, wanted, start)) continue;
      hits.push(start);
      if (first) break;
    }
    if (hits.length === 1) return { kind: "found", at: hits[0] as number, pass };
    if (hits.length > 1) return { kind: "ambiguous", at: hits, pass };
  }
  return { kind: "missing" };
}

function matchesAt(lines: readonly string[], wanted: readonly string[], at: number): boolean {
  for (let k = 0; k < wanted.length; k++) if (lines[at + k] !== wanted[k]) return false;
  return true;
}

/** A place that resembles a hunk's lines: how many of them match there, loosely, and the first that does not. */
export interface Candidate {
  /** 0-based index of the file line the pattern would start at. */
  readonly at: number;
  readonly matching: number;
  /** 0-based index into the pattern of the first line that differs there. */
  readonly firstDifference: number;
}

const squash = (line: string): string => FOLD.punctuation(line).replace(/\s+/g, " ");

/**
 * The places most like `pattern` (most lines equal with whitespace and punctuation folded), best first, for
 * a message that says where to look. Costs lines × pattern comparisons; used only on the error path.
 */
export function closestCandidates(file: FoldedLines, pattern: readonly string[], limit = 3): Candidate[] {
  const wanted = pattern.map(squash);
  const lines = file.lines.map(squash);
  const found: Candidate[] = [];
  const windows = lines.length === 0 ? 0 : Math.max(1, lines.length - wanted.length + 1);
  for (let i = 0; i < windows; i++) {
    let matching = 0;
    let firstDifference = -1;
    for (let k = 0; k < wanted.length; k++) {
      if (lines[i + k] === wanted[k] && wanted[k] !== "") matching++;
      else if (firstDifference === -1 && lines[i + k] !== wanted[k]) firstDifference = k;
    }
    if (matching > 0) found.push({ at: i, matching, firstDifference: Math.max(0, firstDifference) });
  }
  found.sort((a, b) => b.matching - a.matching || a.at - b.at);
  return found.slice(0, limit);
}
