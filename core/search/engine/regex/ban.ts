// ripgrep refuses a pattern that must match a NUL byte ("pattern contains "\0" but it is impossible to
// match"): binary detection stops at a NUL or turns it into a line break, so no reported line holds one. It
// decides on regex-syntax's HIR, after its simplifications (grep-regex's ban::check): a literal holding the
// byte, or a class whose only member it is. An alternation of single-character literals becomes one class
// there, so `\x00|a` passes, while `\x00|[ab]` (a literal beside a class) and `(\x00)|(a)` (capture groups)
// do not merge and are refused.
//
// The newline ban (containsBannedNewline) is the same kind of check, made on the parsed pattern alone.
import { RE2JS } from "re2js";
import type { Node } from "./ast.ts";
import { BYTE_BASE, emit } from "./emit.ts";

/** ripgrep's message, with what to do instead. */
export const NUL_BANNED =
  'pattern contains "\\0" but it is impossible to match: binary detection stops at a NUL byte, so no reported line holds one. Remove the NUL from the pattern.';

/** True when ripgrep's ban on NUL bytes refuses the pattern. */
export function containsNul(node: Node): boolean {
  switch (node.kind) {
    case "literal":
      return node.cp === 0;
    case "class":
      return single(node)?.value === 0;
    case "group":
      return containsNul(node.node);
    case "concat":
      return node.nodes.some(containsNul);
    case "repeat":
      return node.max > 0 && containsNul(node.node);
    case "alternation": {
      const singles = node.nodes.map(single);
      if (mergesIntoClass(singles)) return singles.every((s) => s?.value === 0);
      return node.nodes.some(containsNul);
    }
    default:
      return false;
  }
}

/** A literal of one character (`char`) or one raw byte (`byte`), as regex-syntax's HIR has it. */
interface Single {
  readonly value: number;
  readonly char: boolean;
  readonly oneByte: boolean;
}

// regex-syntax merges an alternation into a class when every branch is a one-character literal, or else when
// every branch is a one-byte literal.
function mergesIntoClass(singles: readonly (Single | undefined)[]): boolean {
  return singles.every((s) => s?.char) || singles.every((s) => s?.oneByte);
}

function single(node: Node): Single | undefined {
  switch (node.kind) {
    case "literal":
      if (node.fold && hasCaseVariants(node.cp, node.unicode)) return undefined;
      return { value: node.cp, char: true, oneByte: node.cp < 0x80 };
    case "byte":
      return { value: node.byte, char: false, oneByte: true };
    case "class": {
      // A class with exactly one member is a literal in the HIR.
      const member = onlyMember(node);
      if (member === undefined) return undefined;
      return member >= BYTE_BASE ? { value: member - BYTE_BASE, char: false, oneByte: true } : { value: member, char: true, oneByte: member < 0x80 };
    }
    case "group":
      return node.capture ? undefined : single(node.node);
    case "repeat":
      return node.min === 1 && node.max === 1 ? single(node.node) : undefined;
    case "concat": {
      const items = node.nodes.filter((n) => !isEmpty(n));
      return items.length === 1 ? single(items[0] as Node) : undefined;
    }
    case "alternation": {
      const singles = node.nodes.map(single);
      if (!mergesIntoClass(singles)) return undefined;
      const values = new Set(singles.map((s) => s?.value));
      return values.size === 1 ? singles[0] : undefined;
    }
    default:
      return undefined;
  }
}

function isEmpty(node: Node): boolean {
  switch (node.kind) {
    case "empty":
      return true;
    case "repeat":
      return node.max === 0 || isEmpty(node.node);
    case "group":
      return !node.capture && isEmpty(node.node);
    case "concat":
      return node.nodes.every(isEmpty);
    default:
      return false;
  }
}

interface ProgInst {
  readonly op: number;
  readonly arg: number;
  readonly runes: ArrayLike<number>;
}

// re2js's instruction codes (see vm.ts) and its case-folding flag on a rune instruction.
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;
const FOLD_CASE = 1;

function runeInsts(source: string): ProgInst[] {
  const prog = (RE2JS.compile(source).re2() as unknown as { prog: { inst: readonly ProgInst[] } }).prog;
  return prog.inst.filter((i) => i.op === RUNE || i.op === RUNE1 || i.op === RUNE_ANY || i.op === RUNE_ANY_NOT_NL);
}

// Under (?i) a character with other cases is a class in the HIR; re2js marks such a rune for folding.
function hasCaseVariants(cp: number, unicode: boolean): boolean {
  if (!unicode) return (cp | 0x20) >= 0x61 && (cp | 0x20) <= 0x7a;
  return runeInsts(`(?i:${emit({ kind: "literal", cp, fold: false, unicode: true }, "vm")})`).some((i) => (i.arg & FOLD_CASE) !== 0);
}

/** The class's only member, or undefined when it has none or several. */
function onlyMember(node: Node): number | undefined {
  const source = emit(node, "vm");
  if (source === undefined) return undefined;
  let member: number | undefined;
  for (const inst of runeInsts(source)) {
    if (inst.op === RUNE_ANY || inst.op === RUNE_ANY_NOT_NL || (inst.arg & FOLD_CASE) !== 0) return undefined;
    for (let i = 0; i < inst.runes.length; i += inst.op === RUNE1 ? 1 : 2) {
      const lo = inst.runes[i] as number;
      const hi = inst.op === RUNE1 ? lo : (inst.runes[i + 1] as number);
      if (lo !== hi || (member !== undefined && member !== lo)) return undefined;
      member = lo;
    }
  }
  return member;
}

// ripgrep refuses a pattern that must match a newline: a literal newline, or a class of that one
// character. An alternation of single characters counts as one class, as regex-syntax merges it.
export function containsBannedNewline(node: Node): boolean {
  switch (node.kind) {
    case "literal":
      return node.cp === 0x0a;
    case "class":
      return !node.negated && node.items.length > 0 && node.items.every((i) => i.kind === "range" && i.lo === 0x0a && i.hi === 0x0a);
    case "group":
    case "repeat":
      return containsBannedNewline(node.node);
    case "concat":
      return node.nodes.some(containsBannedNewline);
    case "alternation": {
      const singles = node.nodes.map(singleChars);
      if (singles.every((s) => s !== undefined)) {
        const all = new Set(singles.flatMap((s) => s as number[]));
        return all.size === 1 && all.has(0x0a);
      }
      return node.nodes.some(containsBannedNewline);
    }
    default:
      return false;
  }
}

// The characters of a node that matches exactly one of a few listed characters, if it is one.
function singleChars(node: Node): number[] | undefined {
  if (node.kind === "literal") return [node.cp];
  if (node.kind === "group") return singleChars(node.node);
  if (node.kind === "class" && !node.negated && node.items.every((i) => i.kind === "range" && i.hi - i.lo < 4)) {
    return node.items.flatMap((i) => (i.kind === "range" ? Array.from({ length: i.hi - i.lo + 1 }, (_, k) => i.lo + k) : []));
  }
  return undefined;
}
