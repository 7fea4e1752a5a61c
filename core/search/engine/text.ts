// Small byte and text helpers the engine needs in its hot paths.
import { encodeUtf8 } from "../../text/mod.ts";

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII, control characters included.
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The UTF-8 bytes of `text` as a string of characters 0-255, one per byte, so a RegExp without the `u` flag
 * matches bytes the way globset does. ASCII text is returned as it is.
 */
export function byteString(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  const bytes = encodeUtf8(text);
  let out = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    out += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return out;
}

/** The length of `text` in UTF-8 bytes. */
export function utf8Length(text: string): number {
  return NON_ASCII.test(text) ? encodeUtf8(text).length : text.length;
}

/** Whether `bytes` are valid UTF-8 (as TextDecoder's fatal mode judges), without decoding them. */
export function isUtf8(bytes: Uint8Array): boolean {
  const n = bytes.length;
  for (let i = 0; i < n; ) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    // The continuation count and the range of the first continuation byte (no overlongs, no surrogates,
    // nothing past U+10FFFF).
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return false;
    if (i + need >= n) return false;
    const c = bytes[i + 1] as number;
    if (c < lo || c > hi) return false;
    for (let k = 2; k <= need; k++) {
      const d = bytes[i + k] as number;
      if (d < 0x80 || d > 0xbf) return false;
    }
    i += need + 1;
  }
  return true;
}

/** The text of valid UTF-8 bytes, or undefined when they are not valid UTF-8. */
export function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

// Rust's char::is_whitespace (the Unicode White_Space property), which ripgrep trims from glob lines. It
// differs from String.prototype.trimEnd: U+0085 is whitespace here, U+FEFF is not.
const WHITE_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028,
  0x2029, 0x202f, 0x205f, 0x3000,
]);

/** `text` without trailing Unicode White_Space. */
export function trimEndWhiteSpace(text: string): string {
  let end = text.length;
  while (end > 0 && WHITE_SPACE.has(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}

/** The message of a caught value, for a problem line. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The runs of set members (non-zero entries) of a membership table, as inclusive [lo, hi] pairs. */
export function memberRuns(members: Uint8Array): [number, number][] {
  const runs: [number, number][] = [];
  for (let lo = 0; lo < members.length; ) {
    if (!members[lo]) {
      lo++;
      continue;
    }
    let hi = lo;
    while (hi + 1 < members.length && members[hi + 1]) hi++;
    runs.push([lo, hi]);
    lo = hi + 1;
  }
  return runs;
}
