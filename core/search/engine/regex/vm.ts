// A Pike VM over the program re2js compiles, for the lines re2js's own matcher cannot judge the way
// ripgrep does: lines with invalid UTF-8 (whose bytes nothing Unicode-aware may match), lines where a
// Unicode word boundary differs from re2js's ASCII one, and the word-start/end tests re2js lacks. It runs
// in time linear in the line length times the program size, like re2js, and never backtracks.
//
// It reads re2js's compiled program (RE2JS#re2().prog), which re2js does not document; the shape is pinned
// by the exact re2js version in package.json and checked by this module's tests.
import type { RE2JS } from "re2js";
import { ASSERTION_BASE, ASSERTION_ORDER, BYTE_BASE } from "./emit.ts";
import { isUnicodeWord } from "./word.ts";

interface Inst {
  readonly op: number;
  readonly out: number;
  readonly arg: number;
  readonly runes: Int32Array | readonly number[];
  matchRune(rune: number): boolean;
}

interface Prog {
  readonly inst: readonly Inst[];
  readonly start: number;
}

// re2js's instruction codes and empty-width flags.
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const FAIL = 5;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;
const BEGIN_LINE = 1;
const END_LINE = 2;
const BEGIN_TEXT = 4;
const END_TEXT = 8;
const WORD_BOUNDARY = 16;
const NO_WORD_BOUNDARY = 32;

// The VM's own view of each instruction.
const K_SPLIT = 1;
const K_NEXT = 2;
const K_EMPTY = 3;
const K_TEST = 4;
const K_FAIL = 5;
const K_MATCH = 6;
const K_RUNE = 7;
const K_ANY = 8;
const K_BYTE = 9;

/** Invalid UTF-8 byte b decodes to this value plus b: outside Unicode, so no class matches it. */
const INVALID = 0x110000;

export class PikeVm {
  readonly #kind: Int8Array;
  readonly #out: Int32Array;
  readonly #arg: Int32Array;
  readonly #inst: readonly Inst[];
  readonly #start: number;
  // Per-instruction stamps for the epsilon closure, and the two thread lists.
  readonly #mark: Int32Array;
  #stamp = 0;
  #cur: Int32Array;
  #curStart: Int32Array;
  #next: Int32Array;
  #nextStart: Int32Array;
  readonly #stack: Int32Array;
  #line: Uint8Array = new Uint8Array(0);

  constructor(re: RE2JS) {
    const prog = (re.re2() as unknown as { prog: Prog }).prog;
    const n = prog.inst.length;
    this.#inst = prog.inst;
    this.#start = prog.start;
    this.#kind = new Int8Array(n);
    this.#out = new Int32Array(n);
    this.#arg = new Int32Array(n);
    prog.inst.forEach((inst, pc) => {
      this.#out[pc] = inst.out;
      this.#arg[pc] = inst.arg;
      this.#kind[pc] = classify(inst, pc, this.#arg);
    });
    this.#mark = new Int32Array(n);
    this.#cur = new Int32Array(n);
    this.#curStart = new Int32Array(n);
    this.#next = new Int32Array(n);
    this.#nextStart = new Int32Array(n);
    this.#stack = new Int32Array(2 * n + 2);
  }

  /**
   * The leftmost-first match in `line` that starts at or after `from` (which may fall inside a character),
   * as [start, end), or undefined. `\A` holds at 0 only when `textStart` is set.
   */
  find(line: Uint8Array, from: number, textStart: boolean): [number, number] | undefined {
    this.#line = line;
    const len = line.length;
    let curSize = 0;
    let matchStart = -1;
    let matchEnd = -1;
    let pos = from;
    let prev = runeBefore(line, from);
    let cur = decodeAt(line, pos);
    let width = cur === -1 ? 0 : lastWidth;
    // Each list is built under its own stamp; the thread starting at a position joins the list under the
    // same stamp, so it cannot duplicate a thread carried over from the previous position.
    this.#stamp++;
    for (;;) {
      if (matchStart < 0) {
        curSize = this.#add(this.#cur, this.#curStart, curSize, this.#start, pos, pos, prev, cur, len, textStart);
      }
      if (curSize === 0 && matchStart >= 0) break;
      const nextPos = pos + width;
      const next = width === 0 ? -1 : decodeAt(line, nextPos);
      const nextWidth = next === -1 ? 0 : lastWidth;
      this.#stamp++;
      let nextSize = 0;
      for (let i = 0; i < curSize; i++) {
        const pc = this.#cur[i] as number;
        const kind = this.#kind[pc];
        if (kind === K_MATCH) {
          matchStart = this.#curStart[i] as number;
          matchEnd = pos;
          break;
        }
        if (width === 0) continue;
        let ok = false;
        if (kind === K_RUNE) ok = cur < INVALID && (this.#inst[pc] as Inst).matchRune(cur);
        else if (kind === K_ANY) ok = cur < INVALID && (this.#arg[pc] === 0 || cur !== 0x0a);
        else if (kind === K_BYTE) ok = cur === INVALID + (this.#arg[pc] as number);
        if (ok) {
          nextSize = this.#add(this.#next, this.#nextStart, nextSize, this.#out[pc] as number, nextPos, this.#curStart[i] as number, cur, next, len, textStart);
        }
      }
      if (width === 0) break;
      [this.#cur, this.#next] = [this.#next, this.#cur];
      [this.#curStart, this.#nextStart] = [this.#nextStart, this.#curStart];
      curSize = nextSize;
      // What precedes the next position is the bytes' own business, not the path taken: after stepping
      // over an undecodable byte (say, from inside a character), the character ending there may be valid.
      prev = cur < INVALID ? cur : runeBefore(line, nextPos);
      cur = next;
      width = nextWidth;
      pos = nextPos;
    }
    return matchStart < 0 ? undefined : [matchStart, matchEnd];
  }

  // ASCII word tests look at bytes: the byte before `pos`, whatever character it belongs to.
  #byteBefore(pos: number): number {
    return pos === 0 ? -1 : (this.#line[pos - 1] as number);
  }

  // Adds the thread at `pc` and everything reachable from it without consuming input, in priority order.
  // `prev`/`cur` are the characters around `pos` (-1 at the line's ends).
  #add(
    list: Int32Array,
    starts: Int32Array,
    size: number,
    pc0: number,
    pos: number,
    start: number,
    prev: number,
    cur: number,
    len: number,
    textStart: boolean,
  ): number {
    const stack = this.#stack;
    let top = 0;
    stack[top++] = pc0;
    while (top > 0) {
      const pc = stack[--top] as number;
      if (this.#mark[pc] === this.#stamp) continue;
      this.#mark[pc] = this.#stamp;
      switch (this.#kind[pc]) {
        case K_SPLIT:
          stack[top++] = this.#arg[pc] as number;
          stack[top++] = this.#out[pc] as number;
          break;
        case K_NEXT:
          stack[top++] = this.#out[pc] as number;
          break;
        case K_EMPTY:
          if (emptyHolds(this.#arg[pc] as number, pos, len, this.#byteBefore(pos), cur, textStart)) stack[top++] = this.#out[pc] as number;
          break;
        case K_TEST:
          if (testHolds(this.#arg[pc] as number, prev, this.#byteBefore(pos), cur)) stack[top++] = this.#out[pc] as number;
          break;
        case K_FAIL:
          break;
        default:
          list[size] = pc;
          starts[size] = start;
          size++;
      }
    }
    return size;
  }
}

function classify(inst: Inst, pc: number, arg: Int32Array): number {
  switch (inst.op) {
    case ALT:
    case ALT_MATCH:
      return K_SPLIT;
    case CAPTURE:
    case NOP:
      return K_NEXT;
    case EMPTY_WIDTH:
      return K_EMPTY;
    case FAIL:
      return K_FAIL;
    case MATCH:
      return K_MATCH;
    case RUNE_ANY:
      arg[pc] = 0;
      return K_ANY;
    case RUNE_ANY_NOT_NL:
      arg[pc] = 1;
      return K_ANY;
    case RUNE:
    case RUNE1: {
      const r = inst.runes;
      const single = r.length === 1 || (r.length === 2 && r[0] === r[1]);
      const rune = r[0] as number;
      if (single && rune >= ASSERTION_BASE && rune < ASSERTION_BASE + ASSERTION_ORDER.length) {
        arg[pc] = rune - ASSERTION_BASE;
        return K_TEST;
      }
      if (single && rune >= BYTE_BASE + 0x80 && rune <= BYTE_BASE + 0xff) {
        arg[pc] = rune - BYTE_BASE;
        return K_BYTE;
      }
      return K_RUNE;
    }
    default:
      throw new Error(`re2js program has an instruction the search engine does not know (op ${inst.op})`);
  }
}

function asciiWord(r: number): boolean {
  return (r >= 0x30 && r <= 0x39) || (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a) || r === 0x5f;
}

function decodable(r: number): boolean {
  return r < INVALID;
}

function emptyHolds(flags: number, pos: number, len: number, byteBefore: number, cur: number, textStart: boolean): boolean {
  if (flags & BEGIN_LINE && pos !== 0) return false;
  if (flags & BEGIN_TEXT && (pos !== 0 || !textStart)) return false;
  if (flags & (END_LINE | END_TEXT) && pos !== len) return false;
  if (flags & WORD_BOUNDARY && asciiWord(byteBefore) === asciiWord(cur)) return false;
  if (flags & NO_WORD_BOUNDARY && asciiWord(byteBefore) !== asciiWord(cur)) return false;
  return true;
}

// Undecodable bytes count as non-word characters, except that `\B` and the Unicode half boundaries need a
// decodable character on the side they look at, so they never hold inside a character (as in ripgrep's
// regex engine).
function testHolds(test: number, prev: number, byteBefore: number, cur: number): boolean {
  const ascii = test >= 6;
  const before = ascii ? asciiWord(byteBefore) : isUnicodeWord(prev);
  const word = ascii ? asciiWord : isUnicodeWord;
  const after = word(cur);
  switch (ASSERTION_ORDER[test]) {
    case "boundary":
      return before !== after;
    case "notBoundary":
      return decodable(prev) && decodable(cur) && before === after;
    case "wordStart":
    case "ascii:wordStart":
      return !before && after;
    case "wordEnd":
    case "ascii:wordEnd":
      return before && !after;
    case "wordStartHalf":
      return decodable(prev) && !before;
    case "ascii:wordStartHalf":
      return !before;
    case "wordEndHalf":
      return decodable(cur) && !after;
    default:
      return !after;
  }
}

// Width of the character decoded by the last decodeAt call; a module variable saves an allocation per step.
let lastWidth = 0;

/** The character at `pos` (INVALID + byte for a byte that does not start valid UTF-8), or -1 at the end. */
export function decodeAt(bytes: Uint8Array, pos: number): number {
  if (pos >= bytes.length) {
    lastWidth = 0;
    return -1;
  }
  const b0 = bytes[pos] as number;
  lastWidth = 1;
  if (b0 < 0x80) return b0;
  let need: number;
  let min: number;
  let max = 0xbf;
  let cp: number;
  if (b0 >= 0xc2 && b0 <= 0xdf) [need, min, cp] = [1, 0x80, b0 & 0x1f];
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    [need, min, cp] = [2, b0 === 0xe0 ? 0xa0 : 0x80, b0 & 0x0f];
    if (b0 === 0xed) max = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    [need, min, cp] = [3, b0 === 0xf0 ? 0x90 : 0x80, b0 & 0x07];
    if (b0 === 0xf4) max = 0x8f;
  } else return INVALID + b0;
  for (let k = 1; k <= need; k++) {
    const b = bytes[pos + k];
    if (b === undefined) return INVALID + b0;
    const lo = k === 1 ? min : 0x80;
    const hi = k === 1 ? max : 0xbf;
    if (b < lo || b > hi) return INVALID + b0;
    cp = (cp << 6) | (b & 0x3f);
  }
  lastWidth = need + 1;
  return cp;
}

/**
 * The character before `pos` as ripgrep's regex engine sees it, or -1 at the start: it steps back over at
 * most three continuation bytes to a byte that is not one, and decodes forward from there; whatever that
 * decodes to counts, even a character that ends before `pos` (so in `é\xa9`, the character before the
 * stray byte's end is `é`). When that does not decode, it is the undecodable last byte.
 */
function runeBefore(bytes: Uint8Array, pos: number): number {
  if (pos === 0) return -1;
  const last = bytes[pos - 1] as number;
  if (last < 0x80) return last;
  let start = pos - 1;
  const limit = Math.max(0, pos - 4);
  while (start > limit && ((bytes[start] as number) & 0xc0) === 0x80) start--;
  const cp = decodeAt(bytes.subarray(0, pos), start);
  return cp < INVALID ? cp : INVALID + last;
}
