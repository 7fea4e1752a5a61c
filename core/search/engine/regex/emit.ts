// Writes a parsed pattern as a re2js pattern. Two programs come out of one tree:
//
// - "fast" runs on re2js's own matcher for lines that are valid UTF-8. Unicode `\b`/`\B` are written as
//   re2js's ASCII ones, so those patterns use it only on ASCII lines. Patterns with word-start/end
//   assertions have no fast program.
// - "vm" runs on the engine's own Pike VM (vm.ts) over re2js's compiled program, for every other line.
//   Assertions re2js lacks and raw bytes are written as private-use characters inside a capture group
//   (so re2js never merges them into a class); the VM treats those instructions as the test or the byte
//   they stand for.
import type { AssertionKind, Node } from "./ast.ts";
import { classParts, cpAtom } from "./classes.ts";

export type EmitMode = "fast" | "vm";

/** First private-use code point standing for a zero-width test (see ASSERTION_ORDER). */
export const ASSERTION_BASE = 0x10fff0;
/** Code point standing for the raw byte b under (?-u): BYTE_BASE + b. */
export const BYTE_BASE = 0x10fe00;

/** The tests the VM implements, by offset from ASSERTION_BASE; `ascii` variants come from (?-u). */
export const ASSERTION_ORDER: readonly string[] = [
  "boundary",
  "notBoundary",
  "wordStart",
  "wordEnd",
  "wordStartHalf",
  "wordEndHalf",
  "ascii:wordStart",
  "ascii:wordEnd",
  "ascii:wordStartHalf",
  "ascii:wordEndHalf",
];

const NEVER = "[^\\x{0}-\\x{10ffff}]";
const EVERYTHING = "[\\x{0}-\\x{10ffff}]";

/** The re2js pattern for `node`, or undefined when the mode cannot express it. */
export function emit(node: Node, mode: EmitMode): string | undefined {
  try {
    return write(node, mode);
  } catch (error) {
    if (error === NOT_EXPRESSIBLE) return undefined;
    throw error;
  }
}

const NOT_EXPRESSIBLE = new Error("not expressible in this mode");

function placeholder(cp: number): string {
  return `(${cpAtom(cp)})`;
}

function write(node: Node, mode: EmitMode): string {
  switch (node.kind) {
    case "empty":
      return "(?:)";
    case "literal": {
      const atom = cpAtom(node.cp);
      if (!node.fold) return atom;
      if (node.unicode) return `(?i:${atom})`;
      const lower = node.cp | 0x20;
      return lower >= 0x61 && lower <= 0x7a ? `[${cpAtom(lower & ~0x20)}${cpAtom(lower)}]` : atom;
    }
    case "byte":
      // A byte that never occurs in UTF-8 cannot match a line re2js's matcher is given.
      return mode === "fast" ? NEVER : placeholder(BYTE_BASE + node.byte);
    case "dot":
      return "[^\\n]";
    case "class": {
      const parts = classParts(node, (reason) => new Error(reason)).map((part) => {
        if (part.atoms.length === 0) return part.negated ? EVERYTHING : NEVER;
        return `[${part.negated ? "^" : ""}${part.atoms.join("")}]`;
      });
      const body = parts.length === 1 ? (parts[0] as string) : `(?:${parts.join("|")})`;
      return node.fold && node.unicode ? `(?i:${body})` : body;
    }
    case "assertion":
      return assertion(node.assertion, node.unicode, mode);
    case "group":
      return `(?:${write(node.node, mode)})`;
    case "concat":
      return node.nodes.map((n) => write(n, mode)).join("");
    case "alternation":
      return `(?:${node.nodes.map((n) => write(n, mode)).join("|")})`;
    case "repeat": {
      const { min, max } = node;
      // re2js, like RE2, compiles a star over something that can match empty as (x+)?, so empty loops keep
      // their priority. A placeholder looks like a character to re2js, so the VM program does it here.
      if (mode === "vm" && min === 0 && max === Infinity && nullable(node.node)) {
        const lazy = node.greedy ? "" : "?";
        return `(?:(?:${write(node.node, mode)})+${lazy})?${lazy}`;
      }
      let quantifier: string;
      if (min === 0 && max === Infinity) quantifier = "*";
      else if (min === 1 && max === Infinity) quantifier = "+";
      else if (min === 0 && max === 1) quantifier = "?";
      else if (max === Infinity) quantifier = `{${min},}`;
      else if (min === max) quantifier = `{${min}}`;
      else quantifier = `{${min},${max}}`;
      return `(?:${write(node.node, mode)})${quantifier}${node.greedy ? "" : "?"}`;
    }
  }
}

function assertion(kind: AssertionKind, unicode: boolean, mode: EmitMode): string {
  switch (kind) {
    case "lineStart":
      return "(?m:^)";
    case "textStart":
      return "\\A";
    case "textEnd":
      return "\\z";
    case "boundary":
    case "notBoundary": {
      const native = kind === "boundary" ? "\\b" : "\\B";
      if (!unicode || mode === "fast") return native;
      return placeholder(ASSERTION_BASE + ASSERTION_ORDER.indexOf(kind));
    }
    default:
      if (mode === "fast") throw NOT_EXPRESSIBLE;
      return placeholder(ASSERTION_BASE + ASSERTION_ORDER.indexOf(unicode ? kind : `ascii:${kind}`));
  }
}

/** True when the node can match the empty string (assertions are zero-width). */
function nullable(node: Node): boolean {
  switch (node.kind) {
    case "empty":
    case "assertion":
      return true;
    case "group":
      return nullable(node.node);
    case "concat":
      return node.nodes.every(nullable);
    case "alternation":
      return node.nodes.some(nullable);
    case "repeat":
      return node.min === 0 || nullable(node.node);
    default:
      return false;
  }
}

/** True when the tree holds a Unicode `\b` or `\B`, which the fast program checks the ASCII way. */
export function hasUnicodeBoundary(node: Node): boolean {
  return some(node, (n) => n.kind === "assertion" && n.unicode && (n.assertion === "boundary" || n.assertion === "notBoundary"));
}

/** True when the tree holds `\A` (or `^` under (?-m)), which ripgrep lets match only at the file start. */
export function hasTextStart(node: Node): boolean {
  return some(node, (n) => n.kind === "assertion" && n.assertion === "textStart");
}

/** True when the tree holds a raw byte from (?-u). */
export function hasBytes(node: Node): boolean {
  return some(node, (n) => n.kind === "byte");
}

function some(node: Node, test: (n: Node) => boolean): boolean {
  if (test(node)) return true;
  switch (node.kind) {
    case "group":
    case "repeat":
      return some(node.node, test);
    case "concat":
    case "alternation":
      return node.nodes.some((n) => some(n, test));
    default:
      return false;
  }
}
