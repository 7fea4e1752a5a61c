// Bracket classes written for re2js. A class is a union of parts; a part is what fits in one re2js bracket,
// either `[atoms]` or `[^atoms]`. Unicode Perl classes become their Unicode definitions (rule X2), POSIX
// classes stay ASCII as in ripgrep, and a union that needs a complement of a complement is refused
// rather than approximated.
import type { ClassItem, Node } from "./ast.ts";
import { memberRuns } from "../text.ts";
import { resolveProperty } from "./properties.ts";

export interface ClassPart {
  readonly negated: boolean;
  /** Members that can stand inside one re2js bracket. */
  readonly atoms: readonly string[];
}

type ClassNode = Extract<Node, { kind: "class" }>;

/** The members ripgrep's Unicode `\w` matches: Alphabetic, marks, decimal digits, connectors, joiners. */
export const WORD_ATOMS: readonly string[] = ["\\p{Alphabetic}", "\\p{M}", "\\p{Nd}", "\\p{Pc}", "\\x{200C}", "\\x{200D}"];

const MAX_CP = 0x10ffff;

const POSIX: Record<string, readonly (readonly [number, number])[]> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

const ASCII_PERL: Record<"d" | "s" | "w", readonly (readonly [number, number])[]> = {
  d: POSIX.digit as readonly (readonly [number, number])[],
  s: POSIX.space as readonly (readonly [number, number])[],
  w: POSIX.word as readonly (readonly [number, number])[],
};

/** Writes one code point for re2js. */
export function cpAtom(cp: number): string {
  if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)) return String.fromCharCode(cp);
  return `\\x{${cp.toString(16)}}`;
}

function rangeAtom(lo: number, hi: number): string {
  return lo === hi ? cpAtom(lo) : `${cpAtom(lo)}-${cpAtom(hi)}`;
}

function rangesAtoms(ranges: readonly (readonly [number, number])[]): string[] {
  return ranges.map(([lo, hi]) => rangeAtom(lo, hi));
}

function complementRanges(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

/**
 * The parts of a class, or a refusal through `refuse` when the class cannot be written for re2js. The
 * parser calls this to validate; the emitter to write.
 */
export function classParts(node: ClassNode, refuse: (reason: string) => Error): ClassPart[] {
  if (!node.unicode) return [{ negated: false, atoms: asciiClass(node, refuse) }];
  const parts = unionParts(node.items, refuse);
  return node.negated ? complement(parts, refuse) : parts;
}

function unionParts(items: readonly ClassItem[], refuse: (reason: string) => Error): ClassPart[] {
  const positive: string[] = [];
  const negative: ClassPart[] = [];
  for (const item of items) {
    for (const part of itemParts(item, refuse)) {
      if (part.negated) negative.push(part);
      else positive.push(...part.atoms);
    }
  }
  return positive.length > 0 || negative.length === 0 ? [{ negated: false, atoms: positive }, ...negative] : negative;
}

function complement(parts: ClassPart[], refuse: (reason: string) => Error): ClassPart[] {
  if (parts.length !== 1) {
    throw refuse("a negated class holding a negated member (such as [^\\W\\d]) is not supported by the search engine");
  }
  const [part] = parts as [ClassPart];
  return [{ negated: !part.negated, atoms: part.atoms }];
}

function itemParts(item: ClassItem, refuse: (reason: string) => Error): ClassPart[] {
  const pos = (atoms: string[]): ClassPart[] => [{ negated: false, atoms }];
  switch (item.kind) {
    case "range":
      return pos([rangeAtom(item.lo, item.hi)]);
    case "perl":
      if (item.which === "d") return pos([item.negated ? "\\P{Nd}" : "\\p{Nd}"]);
      if (item.which === "s") return pos([item.negated ? "\\P{White_Space}" : "\\p{White_Space}"]);
      return [{ negated: item.negated, atoms: WORD_ATOMS }];
    case "posix": {
      const ranges = POSIX[item.name] as readonly (readonly [number, number])[];
      return pos(rangesAtoms(item.negated ? complementRanges(ranges) : ranges));
    }
    case "property": {
      const property = resolveProperty(item.name);
      if (property === undefined) throw refuse(`unknown Unicode property ${item.name}`);
      if (property.kind === "any") return pos(item.negated ? [] : [rangeAtom(0, MAX_CP)]);
      if (property.kind === "ascii") return pos([item.negated ? rangeAtom(0x80, MAX_CP) : rangeAtom(0, 0x7f)]);
      if (property.kind === "assigned") return pos([item.negated ? "\\p{Cn}" : "\\P{Cn}"]);
      return pos([`\\${item.negated ? "P" : "p"}{${property.name}}`]);
    }
    case "nested": {
      const parts = unionParts(item.items, refuse);
      return item.negated ? complement(parts, refuse) : parts;
    }
  }
}

// A (?-u) class: ASCII members only (the parser refuses the rest), folded by hand when case-insensitive
// because re2js's (?i) would also fold non-ASCII characters.
function asciiClass(node: ClassNode, refuse: (reason: string) => Error): string[] {
  if (node.negated) throw refuse("a negated (?-u) class can match part of a UTF-8 character");
  const members = new Uint8Array(128);
  const add = (lo: number, hi: number) => {
    for (let c = lo; c <= hi; c++) members[c] = 1;
  };
  const visit = (items: readonly ClassItem[]) => {
    for (const item of items) {
      if (item.kind === "range") add(item.lo, item.hi);
      else if (item.kind === "perl") for (const [lo, hi] of ASCII_PERL[item.which]) add(lo, hi);
      else if (item.kind === "posix") {
        if (item.negated) throw refuse("a negated POSIX class under (?-u) can match part of a UTF-8 character");
        for (const [lo, hi] of POSIX[item.name] as readonly (readonly [number, number])[]) add(lo, hi);
      } else if (item.kind === "nested") {
        if (item.negated) throw refuse("a negated (?-u) class can match part of a UTF-8 character");
        visit(item.items);
      }
    }
  };
  visit(node.items);
  if (node.fold) {
    for (let c = 0x41; c <= 0x5a; c++) {
      if (members[c] || members[c + 0x20]) members[c] = members[c + 0x20] = 1;
    }
  }
  return rangesAtoms(memberRuns(members));
}
