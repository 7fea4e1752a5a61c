// ripgrep's Unicode word characters (`\w`), for the word-boundary tests the VM makes. The table comes from
// re2js's own Unicode data, so `\w` and `\b` agree with each other.
import { RE2JS } from "re2js";
import { WORD_ATOMS } from "./classes.ts";

let ranges: Int32Array | undefined;

function table(): Int32Array {
  if (ranges) return ranges;
  const prog = (RE2JS.compile(`[${WORD_ATOMS.join("")}]`).re2() as unknown as { prog: { inst: { op: number; runes: ArrayLike<number> }[] } }).prog;
  const rune = prog.inst.find((inst) => inst.op === 8 && inst.runes.length > 2);
  if (!rune) throw new Error("re2js compiled the word class to an unexpected program");
  ranges = Int32Array.from(rune.runes);
  return ranges;
}

/** True for a code point ripgrep's Unicode `\w` matches; false for -1 and for undecodable bytes. */
export function isUnicodeWord(cp: number): boolean {
  if (cp < 0x80) return cp >= 0 && ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f);
  if (cp > 0x10ffff) return false;
  const r = table();
  let lo = 0;
  let hi = (r.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < (r[2 * mid] as number)) hi = mid - 1;
    else if (cp > (r[2 * mid + 1] as number)) lo = mid + 1;
    else return true;
  }
  return false;
}
