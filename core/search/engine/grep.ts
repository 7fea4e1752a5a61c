// `rg --json -e PATTERN`: which files ripgrep searches and how it decodes and splits them (rules R-D1,
// R-B1, R-L1); match-lines.ts finds the matching lines and the events ripgrep prints for them.
import type { FileSystem } from "../../fs/mod.ts";
import { detectBom, encodeUtf8 } from "../../text/mod.ts";
import type { GrepEvent, GrepFile, GrepLine, GrepRequest, ResultSink } from "../backend.ts";
import { type Budget, deliver, keepPace } from "./budget.ts";
import { type ContextSize, withContext } from "./context.ts";
import { type BufferFills, matchLines } from "./match-lines.ts";
import { compileOverrides } from "./overrides.ts";
import { compileRegex, type LineRegex } from "./regex/mod.ts";
import { SearchError } from "../errors.ts";
import { errorMessage } from "./text.ts";
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
  if (request.multiline) throw multilineRefused(request.pattern);
  const regex = compileRegex(request.pattern, { caseInsensitive: request.caseInsensitive ?? false });
  const mapped = await namedFilesMapped(fs, request, budget.signal);
  const context = contextSize(request);
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
    const found = await searchBytes(file, got.bytes, regex, budget, mapped, context);
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

/**
 * `-U` needs a whole-file search with ripgrep's own grouping of matches into messages and its binary rules
 * for a file read whole; the engine matches one line at a time, so it refuses rather than answer differently
 * (docs/notes/0023-grep-modes.md).
 */
export const MULTILINE_REFUSED =
  "This search backend (toolfs's built-in engine, used on in-memory filesystems and when ripgrep is unavailable) cannot search multiline patterns: it matches one line at a time. Search without multiline, one line at a time, or read the file.";

/** The engine's refusal of `-U` (its callers that split a search refuse with it before either part runs). */
export function multilineRefused(pattern: string): SearchError {
  return new SearchError("SEARCH_INVALID_PATTERN", MULTILINE_REFUSED, { details: { pattern, reason: "multiline", refused: true } });
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

function contextSize(request: GrepRequest): ContextSize | undefined {
  const before = request.context?.before ?? 0;
  const after = request.context?.after ?? 0;
  return before > 0 || after > 0 ? { before, after } : undefined;
}

async function searchBytes(
  file: WalkedFile,
  bytes: Uint8Array,
  regex: LineRegex,
  budget: Budget,
  mapped: boolean,
  context: ContextSize | undefined,
): Promise<GrepFile | undefined> {
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
  // The `begin` and `end` messages around the file's matches.
  budget.spend(2 * file.path.length + 320);
  const lines = context ? withContext(data, buffer.end, found.lines, context, budget, file.path) : found.lines;
  // A mapped file's NUL past the first 64 KiB counts where ripgrep reports a line holding it, context included.
  binaryOffset ??= lateNul && context ? firstNulIn(data, lines, buffer.end) : found.nulInMatch;
  return binaryOffset === undefined ? { path: file.path, lines } : { path: file.path, lines, binaryOffset };
}

function firstNulIn(data: Uint8Array, lines: readonly GrepLine[], end: number): number | undefined {
  for (const line of lines) {
    const start = line.absoluteOffset;
    const nl = data.indexOf(0x0a, start);
    const at = data.subarray(start, nl === -1 || nl >= end ? end : nl + 1).indexOf(0);
    if (at !== -1) return start + at;
  }
  return undefined;
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
