// Limits both search backends share, so that the same request gets the same answer from either.
import { SearchError } from "./errors.ts";

/**
 * Raw output a search may produce when the request sets no `maxOutputBytes` (what ripgrep would print). The
 * engine holds its results in memory, so this also bounds the memory a search takes.
 */
export const SEARCH_MAX_OUTPUT_BYTES = 20_000_000;

/**
 * The most bytes the globs of one search may hold together. ripgrep takes each glob as one argument (at most
 * 128 KiB on Linux) and fails once their regexes pass 10 MiB of automaton (about 87,000 `*`); below this
 * limit neither can happen, so both backends refuse exactly the same requests.
 */
export const MAX_GLOB_BYTES = 65_536;

/**
 * The longest pattern a search takes. ripgrep takes it as one argument (at most 128 KiB on Linux), and the
 * engine's compile time grows with it; a pattern this long is never a useful search.
 */
export const MAX_PATTERN_BYTES = 65_536;

/** Fails SEARCH_INVALID_PATTERN for a pattern past MAX_PATTERN_BYTES. */
export function checkPatternSize(pattern: string): void {
  // A UTF-8 length without encoding: at most 3 bytes per UTF-16 unit.
  if (pattern.length * 3 <= MAX_PATTERN_BYTES) return;
  const bytes = new TextEncoder().encode(pattern).length;
  if (bytes <= MAX_PATTERN_BYTES) return;
  throw new SearchError("SEARCH_INVALID_PATTERN", `The pattern is ${bytes} bytes long; a search takes at most ${MAX_PATTERN_BYTES}. Use a shorter pattern.`, {
    details: { tooLong: true, bytes, maxBytes: MAX_PATTERN_BYTES },
  });
}
