// The matching lines of one file's searched bytes, and the `match` messages ripgrep prints for them: how
// submatches follow one another, text or bytes per field, line numbers, and what each message costs the
// output budget (rules R-M1..R-M4, R-J1).
import type { GrepLine, GrepSubmatch, SearchData } from "../backend.ts";
import type { Budget } from "./budget.ts";
import { LiteralFinder } from "./literal-finder.ts";
import type { LineInfo, LineRegex } from "./regex/mod.ts";
import { isUtf8, strictUtf8 } from "./text.ts";

/** How ripgrep's line buffer went through a walked file. */
export interface BufferFills {
  /** Where the searched lines end: the whole file, or the start of the fill that read the first NUL. */
  readonly end: number;
  /** Offsets that began a buffer (ascending): ripgrep's submatch search lets `\A` match there. */
  readonly starts: readonly number[];
}

/** Bytes of a file searched between reports of the work to the budget. */
const PACE_BYTES = 65_536;

/**
 * The matching lines. With `watchNul`, `nulInMatch` is the first NUL inside a reported line (ripgrep's check
 * of a mapped file past its first 64 KiB).
 */
export async function matchLines(
  data: Uint8Array,
  buffer: BufferFills,
  regex: LineRegex,
  budget: Budget,
  path: string,
  watchNul: boolean,
): Promise<{ lines: GrepLine[]; nulInMatch: number | undefined }> {
  const out: GrepLine[] = [];
  let nulInMatch: number | undefined;
  const watch = (start: number, stop: number) => {
    if (!watchNul || nulInMatch !== undefined) return;
    const at = data.subarray(start, stop).indexOf(0);
    if (at !== -1) nulInMatch = start + at;
  };
  const { end, starts } = buffer;
  const finder = regex.literals ? new LiteralFinder(data, end, regex.literals) : undefined;
  let paced = 0;
  for (let start = 0; start < end; ) {
    if (start - paced >= PACE_BYTES) {
      const pause = budget.pace(start - paced);
      paced = start;
      if (pause) await pause;
    }
    if (finder) {
      const hit = finder.next(start);
      if (hit === -1) break;
      if (hit > start) {
        const before = data.lastIndexOf(0x0a, hit - 1);
        if (before >= start) start = before + 1;
      }
    }
    let stop = data.indexOf(0x0a, start);
    if (stop === -1 || stop >= end) stop = end;
    const terminated = stop < end;
    if (finder && regex.plain) {
      // The finder stopped on an occurrence in this line, and the occurrences are the matches.
      out.push(plainMatch(data, start, stop, terminated, regex.plain, finder, budget, path));
      watch(start, terminated ? stop + 1 : stop);
      start = stop + 1;
      continue;
    }
    const line = data.subarray(start, stop);
    // Lines are assumed valid UTF-8 until they match: on an invalid line re2js's matcher can only find
    // too much, never too little (bytes it may not match aside), so validity is checked for matches only.
    // A line a literal led to most likely matches, so it goes straight to the submatch search, whose first
    // answer also says whether the line matches (except for `\A`, which the two judge differently).
    const bufferStart = isBufferStart(starts, start);
    const direct = finder !== undefined && !regex.textStart;
    let info: LineInfo = { valid: true, ascii: regex.needsAscii && isAscii(line) };
    let first = direct ? regex.find(line, 0, bufferStart, info) : undefined;
    let matched = direct ? first !== undefined : regex.test(line, info);
    let text: string | undefined;
    const whole = data.subarray(start, terminated ? stop + 1 : stop);
    budget.beginMessage();
    if (matched || regex.matchesBytes) {
      // A matching line too long for what is left of the output budget fails the search below; it is only
      // checked for validity, not decoded (a 50 MB line would otherwise become a 50 MB string first).
      let valid: boolean;
      if (matched && whole.length > budget.remainingOutput) valid = isUtf8(whole);
      else {
        text = strictUtf8(whole);
        valid = text !== undefined;
      }
      if (!valid) {
        info = { valid: false, ascii: false };
        first = direct ? regex.find(line, 0, bufferStart, info) : undefined;
        matched = direct ? first !== undefined : regex.test(line, info);
      }
    }
    if (matched) {
      // Charged before the submatches are collected, each of which is charged as it is found, so the
      // output cap also bounds the memory a line with millions of matches takes.
      budget.spend(MESSAGE_BYTES + path.length + dataBytes(whole.length, info.valid));
      if (info.valid) text ??= strictUtf8(whole);
      out.push(lineMatch(data, start, line, terminated, text, regex, info, bufferStart, first, budget));
      watch(start, terminated ? stop + 1 : stop);
    }
    start = stop + 1;
  }
  const pause = budget.pace(end - paced);
  if (pause) await pause;
  return { lines: out, nulInMatch };
}

// R-M2: submatches are found by searching again from the end of the previous one (one byte further after
// an empty one); an empty match right where the previous one ended is skipped, and a match may not start
// at the very end of an unterminated line.
function lineMatch(
  data: Uint8Array,
  start: number,
  line: Uint8Array,
  terminated: boolean,
  text: string | undefined,
  regex: LineRegex,
  info: LineInfo,
  bufferStart: boolean,
  first: [number, number] | undefined,
  budget: Budget,
): GrepLine {
  const submatches: GrepSubmatch[] = [];
  const limit = line.length + (terminated ? 1 : 0);
  let pos = 0;
  let lastEnd = -1;
  while (pos <= line.length) {
    const found = pos === 0 && first ? first : regex.find(line, pos, bufferStart, info);
    if (!found) break;
    const [s, e] = found;
    if (s >= limit) break;
    if (s === e && s === lastEnd) {
      pos = s + 1;
      continue;
    }
    const match = searchData(line.subarray(s, e), text !== undefined);
    budget.spend(SUBMATCH_BYTES + dataBytes(e - s, "text" in match));
    submatches.push({ match, start: s, end: e });
    lastEnd = e;
    pos = e > s ? e : e + 1;
  }
  const whole: SearchData = text === undefined ? { bytes: data.slice(start, start + limit) } : { text };
  return { line: whole, lineNumber: lineNumberAt(data, start), absoluteOffset: start, submatches };
}

function isBufferStart(starts: readonly number[], offset: number): boolean {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = starts[mid] as number;
    if (at === offset) return true;
    if (at < offset) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

// Keeps a U+FEFF that starts a line or a match; only the one opening the file is a byte-order mark.
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });

// The match of a plain literal: its non-overlapping occurrences, left to right. A literal is valid UTF-8,
// so its text is the pattern's whatever the rest of the line holds.
function plainMatch(
  data: Uint8Array,
  start: number,
  stop: number,
  terminated: boolean,
  literal: Uint8Array,
  finder: LiteralFinder,
  budget: Budget,
  path: string,
): GrepLine {
  const end = stop + (terminated ? 1 : 0);
  const whole = data.subarray(start, end);
  budget.beginMessage();
  const valid = whole.length > budget.remainingOutput ? isUtf8(whole) : undefined;
  budget.spend(MESSAGE_BYTES + path.length + dataBytes(whole.length, valid ?? true));
  const text = strictUtf8(whole);
  const match: SearchData = { text: lenient.decode(literal) };
  const submatches: GrepSubmatch[] = [];
  for (let at = finder.next(start); at !== -1 && at + literal.length <= stop; at = finder.next(at + literal.length)) {
    budget.spend(SUBMATCH_BYTES + literal.length);
    submatches.push({ match, start: at - start, end: at - start + literal.length });
  }
  const line: SearchData = text === undefined ? { bytes: data.slice(start, end) } : { text };
  return { line, lineNumber: lineNumberAt(data, start), absoluteOffset: start, submatches };
}

// Text for valid UTF-8, else the raw bytes; decided per field, as ripgrep does.
function searchData(bytes: Uint8Array, lineValid: boolean): SearchData {
  if (lineValid) return { text: lenient.decode(bytes) };
  const text = strictUtf8(bytes);
  return text === undefined ? { bytes: bytes.slice() } : { text };
}

function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if ((bytes[i] as number) >= 0x80) return false;
  return true;
}

// Line numbers are counted lazily: most lines never match, so counting newlines only up to each match
// is cheaper than tracking them for every line.
const counted = new WeakMap<Uint8Array, { offset: number; line: number }>();

function lineNumberAt(data: Uint8Array, offset: number): number {
  let state = counted.get(data);
  if (!state || state.offset > offset) state = { offset: 0, line: 1 };
  let { offset: at, line } = state;
  for (;;) {
    const nl = data.indexOf(0x0a, at);
    if (nl === -1 || nl >= offset) break;
    line++;
    at = nl + 1;
  }
  counted.set(data, { offset: at, line });
  return line;
}

// What ripgrep would print for one match message, roughly: its fixed keys and the path, the line, and for
// each submatch its keys and its text (bytes fields are base64).
const MESSAGE_BYTES = 120;
const SUBMATCH_BYTES = 40;

function dataBytes(length: number, text: boolean): number {
  return text ? length : Math.ceil((length * 4) / 3);
}
