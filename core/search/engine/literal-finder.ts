// How grep skips to the lines that can match when every match holds one of a few literals (see
// LineRegex.literals): a byte search, far faster than running the regex on each line.
import { encodeUtf8 } from "../../text/mod.ts";

/**
 * Finds the next occurrence of any of a few literals. Each literal is located through its rarest byte
 * with the native byte search, then compared in full.
 */
export class LiteralFinder {
  readonly #data: Uint8Array;
  readonly #end: number;
  readonly #literals: readonly Uint8Array[];
  readonly #anchors: number[];
  readonly #next: number[];

  constructor(data: Uint8Array, end: number, literals: readonly Uint8Array[]) {
    this.#data = data;
    this.#end = end;
    this.#literals = literals;
    this.#anchors = literals.map(rarestByte);
    this.#next = literals.map(() => -2);
  }

  /** The smallest offset ≥ `from` where a literal starts, or -1. */
  next(from: number): number {
    let best = -1;
    for (let i = 0; i < this.#literals.length; i++) {
      let at = this.#next[i] as number;
      if (at !== -1 && at < from) {
        at = this.#find(i, from);
        this.#next[i] = at;
      }
      if (at !== -1 && (best === -1 || at < best)) best = at;
    }
    return best;
  }

  #find(index: number, from: number): number {
    const data = this.#data;
    const literal = this.#literals[index] as Uint8Array;
    const anchor = this.#anchors[index] as number;
    const byte = literal[anchor] as number;
    for (let i = from + anchor; ; i++) {
      i = data.indexOf(byte, i);
      const s = i - anchor;
      if (i === -1 || s + literal.length > this.#end) return -1;
      let k = 0;
      while (k < literal.length && data[s + k] === literal[k]) k++;
      if (k === literal.length) return s;
    }
  }
}

// Bytes ordered from most to least common in source code and prose; a literal is searched by its rarest.
const COMMON = encodeUtf8(" etaoinsrhldcumfpgwybvkxjqz_.,;:()=\"'/-{}[]<>0123456789ETAOINSRHLDCUMFPGWYBVKXJQZ\t");

function rarestByte(literal: Uint8Array): number {
  let pick = 0;
  let rank = -1;
  literal.forEach((byte, i) => {
    const r = COMMON.indexOf(byte);
    const score = r === -1 ? COMMON.length : r;
    if (score > rank) {
      rank = score;
      pick = i;
    }
  });
  return pick;
}
