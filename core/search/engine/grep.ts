// `rg --json -e PATTERN`: which files ripgrep searches, how it decodes and splits them, and the match
// events it prints (rules R-D1, R-B1, R-L1, R-M1..R-M4, R-J1).
import type { FileSystem } from "../../fs/mod.ts";
import { detectBom, encodeUtf8 } from "../../text/mod.ts";
import type { GrepEvent, GrepFile, GrepLine, GrepRequest, GrepSubmatch, ResultSink, SearchData } from "../backend.ts";
import { type Budget, deliver, keepPace } from "./budget.ts";
import { compileOverrides } from "./overrides.ts";
import { compileRegex, type LineInfo, type LineRegex } from "./regex/mod.ts";
import { errorMessage, isUtf8, strictUtf8 } from "./text.ts";
import { walk, type WalkedFile } from "./walk.ts";

/** Hands each file's matching lines, then its end, to `sink`, file by file in walk order. */
export async function searchTree(
  fs: FileSystem,
  request: GrepRequest,
  budget: Budget,
  problems: string[],
  sink: ResultSink<GrepEvent>,
): Promise<{ nothingSearched?: true }> {
  // ripgrep reports a malformed glob before a malformed pattern.
  const overrides = compileOverrides(request.globs);
  const regex = compileRegex(request.pattern);
  const mapped = await namedFilesMapped(fs, request, budget.signal);
  let searched = 0;
  // Reading is waiting (a read through the seam is several system calls, each a round trip to the I/O
  // threads), so a few files are read ahead of the one being matched, in walk order and within a byte
  // allowance; they are matched, and their problems reported, one at a time in that order, as before.
  const ahead: { readonly file: WalkedFile; readonly read: Promise<FileRead>; readonly size: number }[] = [];
  let aheadBytes = 0;
  const next = async () => {
    const { file, read, size } = ahead.shift()!;
    const got = await read;
    aheadBytes -= size;
    if ("problem" in got) {
      problems.push(got.problem);
      return;
    }
    const found = await searchBytes(file, got.bytes, regex, budget, mapped);
    if (!found) return;
    for (const line of found.lines) deliver(sink, { type: "line", path: found.path, line });
    deliver(sink, found.binaryOffset === undefined ? { type: "end", path: found.path } : { type: "end", path: found.path, binaryOffset: found.binaryOffset });
    await keepPace(sink);
  };
  const search = async (file: WalkedFile) => {
    searched++;
    const size = Math.max(file.size, 0);
    while (ahead.length > 0 && (ahead.length >= READ_AHEAD_FILES || aheadBytes + size > READ_AHEAD_BYTES)) await next();
    const read = readForSearch(fs, file, budget);
    // Awaited in turn by next(); until then a failure (an abort) must not count as unhandled.
    read.catch(() => undefined);
    ahead.push({ file, read, size });
    aheadBytes += size;
  };
  const { withheld } = await walk(fs, request, budget, problems, search, overrides);
  while (ahead.length > 0) await next();
  // ripgrep says so (and exits 2) only when it chose the paths itself.
  const implicit = (request.paths?.length ?? 0) === 0;
  return implicit && searched === 0 && withheld === 0 ? { nothingSearched: true } : {};
}

// How far reading runs ahead of matching: files, and bytes (a larger file waits until it is read alone).
const READ_AHEAD_FILES = 8;
const READ_AHEAD_BYTES = 32 * 1024 * 1024;

type FileRead = { readonly bytes: Uint8Array } | { readonly problem: string };

async function readForSearch(fs: FileSystem, file: WalkedFile, budget: Budget): Promise<FileRead> {
  try {
    return { bytes: (await fs.readBytes(file.target, { maxBytes: Number.MAX_SAFE_INTEGER, signal: budget.signal })).bytes };
  } catch (error) {
    if (budget.signal?.aborted) throw error;
    return { problem: `${file.path}: ${errorMessage(error)}` };
  }
}

/** ripgrep's line buffer starts at this size; a NUL inside the first fill makes a file print nothing. */
const FIRST_WINDOW = 64 * 1024;

/**
 * How ripgrep reads the files named as paths: memory-mapped when there are at most ten paths and every one
 * is a file, else through its line buffer. The two treat a NUL differently (see searchFile).
 */
async function namedFilesMapped(fs: FileSystem, request: GrepRequest, signal: AbortSignal | undefined): Promise<boolean> {
  const paths = request.paths ?? [];
  if (paths.length === 0 || paths.length > 10) return false;
  for (const path of paths) {
    const target = await fs.resolve(path, { cwd: request.cwd, signal }).catch(() => undefined);
    const info = target && (await fs.stat(target, { signal }).catch(() => undefined));
    if (info?.type !== "file") return false;
  }
  return true;
}

async function searchBytes(file: WalkedFile, bytes: Uint8Array, regex: LineRegex, budget: Budget, mapped: boolean): Promise<GrepFile | undefined> {
  const { data: decoded, transcoded } = decodeForSearch(bytes);
  let data = decoded;
  const nul = data.indexOf(0);
  let binaryOffset = nul === -1 ? undefined : nul;
  let buffer: BufferFills;
  let lateNul = false;
  if (!file.explicit) {
    // A walked file goes through the line buffer, which stops at the fill that reads a NUL; one in the first
    // fill hides the file.
    if (nul !== -1 && nul < FIRST_WINDOW) return undefined;
    buffer = bufferFills(data, nul === -1 ? data.length : nul);
  } else if (mapped && !transcoded) {
    // A mapped file is searched whole, NULs and all; ripgrep looks for one in its first 64 KiB, and after
    // that only inside the lines it reports.
    buffer = { end: data.length, starts: [0] };
    if (nul >= FIRST_WINDOW) {
      binaryOffset = undefined;
      lateNul = true;
    }
  } else {
    // Read through the line buffer (a transcoded file, or paths ripgrep does not map): every NUL becomes a
    // line break, and the first one is the binary offset.
    if (nul !== -1) {
      data = data.slice();
      for (let at = nul; at !== -1; at = data.indexOf(0, at + 1)) data[at] = 0x0a;
    }
    buffer = bufferFills(data, data.length);
  }
  const found = await matchLines(data, buffer, regex, budget, file.path, lateNul);
  if (found.lines.length === 0) return undefined;
  binaryOffset ??= found.nulInMatch;
  // The `begin` and `end` messages around the file's matches.
  budget.spend(2 * file.path.length + 320);
  const lines = found.lines;
  return binaryOffset === undefined ? { path: file.path, lines } : { path: file.path, lines, binaryOffset };
}

/**
 * R-D1: a UTF-8 byte-order mark is dropped; a UTF-16 one (either order) means the rest is transcoded to
 * UTF-8, lone surrogates becoming U+FFFD. Offsets then refer to these bytes.
 */
function decodeForSearch(bytes: Uint8Array): { data: Uint8Array; transcoded: boolean } {
  const bom = detectBom(bytes);
  if (bom === undefined) return { data: bytes, transcoded: false };
  if (bom === "utf-8") return { data: bytes.subarray(3), transcoded: true };
  let units = bytes.subarray(2);
  if (bom === "utf-16be") {
    units = units.slice();
    for (let i = 0; i + 1 < units.length; i += 2) [units[i], units[i + 1]] = [units[i + 1] as number, units[i] as number];
  }
  return { data: encodeUtf8(new TextDecoder("utf-16le", { ignoreBOM: true }).decode(units)), transcoded: true };
}

/** How ripgrep's line buffer went through a walked file. */
interface BufferFills {
  /** Where the searched lines end: the whole file, or the start of the fill that read the first NUL. */
  readonly end: number;
  /** Offsets that began a buffer (ascending): ripgrep's submatch search lets `\A` match there. */
  readonly starts: readonly number[];
}

/**
 * R-B1: ripgrep fills a 64 KiB buffer, searches the complete lines in it, moves the unfinished tail to the
 * front and refills; a fill without any newline grows the buffer to three times its size (ripgrep adds
 * twice its length). A fill that reads a NUL is not searched at all (`nul` is the first NUL, or the length
 * when there is none). At the end of the file the unterminated last line, if any, is searched on its own
 * at the front of the buffer.
 */
function bufferFills(data: Uint8Array, nul: number): BufferFills {
  const starts = [0];
  let capacity = FIRST_WINDOW;
  let consumed = 0;
  for (;;) {
    const filled = Math.min(data.length, consumed + capacity);
    if (nul < filled) return { end: consumed, starts };
    const newline = data.lastIndexOf(0x0a, filled - 1);
    if (filled === data.length) {
      if (newline >= consumed && newline + 1 < data.length) starts.push(newline + 1);
      return { end: data.length, starts };
    }
    if (newline < consumed) capacity *= 3;
    else {
      consumed = newline + 1;
      starts.push(consumed);
    }
  }
}

/** Bytes of a file searched between reports of the work to the budget. */
const PACE_BYTES = 65_536;

/**
 * The matching lines. With `watchNul`, `nulInMatch` is the first NUL inside a reported line (ripgrep's check
 * of a mapped file past its first 64 KiB).
 */
async function matchLines(
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

/**
 * Finds the next occurrence of any of a few literals. Each literal is located through its rarest byte
 * with the native byte search, then compared in full.
 */
class LiteralFinder {
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
