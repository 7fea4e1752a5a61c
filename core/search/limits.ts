// Limits both search backends share, so that the same request gets the same answer from either.

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
