import { FsError } from "../fs/errors.ts";
import { applyLineEnding, detectLineEnding, normalizeLineEndings } from "./eol.ts";

export interface EditRequest {
  readonly oldString: string;
  readonly newString: string;
  readonly replaceAll: boolean;
  /** Display path for messages. */
  readonly path: string;
}

/** One replaced passage: where it was in the original text and where its replacement is in the new one. */
export interface EditSpan {
  readonly start: number;
  readonly end: number;
  readonly newStart: number;
  readonly newEnd: number;
  /** 1-based line of the passage's start in the original. */
  readonly line: number;
}

/** The replaced passages (ascending), the text put in each, and the edited text on demand. */
export interface EditResult {
  readonly original: string;
  readonly spans: readonly EditSpan[];
  /** The new text, with the file's dominant line ending applied. */
  readonly replacement: string;
  /** The whole edited text; built on first use. */
  readonly text: string;
}

const LISTED_LINES = 10;

/**
 * Replaces literal text. Matching runs on a CRLF-to-LF view of both the file and the strings, so a model's
 * LF text matches a CRLF file; every character outside the replaced passages is kept as it was (mixed line
 * endings stay mixed), and the replacement is written with the file's dominant line ending. `$&` and other
 * replacement patterns mean nothing here: the new text is inserted as is.
 */
export function applyEdit(text: string, request: EditRequest): EditResult {
  const { path } = request;
  const view = normalizeLineEndings(text);
  const needle = normalizeLineEndings(request.oldString);
  if (needle === "") {
    throw new FsError("FS_EDIT_NOT_FOUND", `Cannot edit "${path}": old_string is empty; give the exact text to replace`, {
      details: { path },
    });
  }
  const starts: number[] = [];
  for (let at = view.indexOf(needle); at !== -1; at = view.indexOf(needle, at + needle.length)) starts.push(at);
  if (starts.length === 0) throw notFound(view, needle, path);
  const lines = lineNumbers(view, starts);
  if (starts.length > 1 && !request.replaceAll) {
    // Several occurrences can share a line; each line is named once.
    const distinct = [...new Set(lines)];
    const listed = distinct.slice(0, LISTED_LINES).join(", ") + (distinct.length > LISTED_LINES ? ", …" : "");
    const where = distinct.length === 1 ? `all on line ${listed}` : `on lines ${listed}`;
    throw new FsError(
      "FS_AMBIGUOUS_EDIT",
      `Cannot edit "${path}": old_string occurs ${starts.length} times (${where}). Include more surrounding ` +
        "text to pick one, or set replace_all to change every occurrence",
      { details: { path, count: starts.length, lines } },
    );
  }
  const replacement = applyLineEnding(normalizeLineEndings(request.newString), detectLineEnding(text));
  const toOriginal = offsetMapper(text, view);
  const spans: EditSpan[] = [];
  let shift = 0;
  starts.forEach((s, i) => {
    const start = toOriginal(s);
    const end = toOriginal(s + needle.length);
    spans.push({ start, end, newStart: start + shift, newEnd: start + shift + replacement.length, line: lines[i] as number });
    shift += replacement.length - (end - start);
  });
  return new Edited(text, spans, replacement);
}

class Edited implements EditResult {
  readonly original: string;
  readonly spans: readonly EditSpan[];
  readonly replacement: string;
  #text: string | undefined;

  constructor(original: string, spans: readonly EditSpan[], replacement: string) {
    this.original = original;
    this.spans = spans;
    this.replacement = replacement;
  }

  get text(): string {
    if (this.#text === undefined) {
      let out = "";
      let copied = 0;
      for (const span of this.spans) {
        out += this.original.slice(copied, span.start) + this.replacement;
        copied = span.end;
      }
      this.#text = out + this.original.slice(copied);
    }
    return this.#text;
  }
}

/**
 * The edited file's bytes, spliced from the original bytes: only the replacements are encoded, so the
 * bytes outside them are the original ones by construction, and a large file is never re-encoded whole.
 * `original` is the file as read (with its byte-order mark, if `bom`), `result` the edit of its decoded text.
 */
export function encodeEdit(original: Uint8Array, bom: boolean, result: EditResult): Uint8Array {
  const head = bom ? 3 : 0;
  const inserted = encoder.encode(result.replacement);
  // Equal lengths mean every character took one byte (UTF-8 is never shorter than UTF-16).
  const ascii = original.length - head === result.original.length;
  const byteAt = ascii ? (offset: number) => head + offset : utf8Offsets(result.original, head);
  const ranges = result.spans.map((span) => [byteAt(span.start), byteAt(span.end)] as const);
  const removed = ranges.reduce((n, [from, to]) => n + (to - from), 0);
  const out = new Uint8Array(original.length - removed + inserted.length * ranges.length);
  let read = 0;
  let written = 0;
  for (const [from, to] of ranges) {
    out.set(original.subarray(read, from), written);
    written += from - read;
    out.set(inserted, written);
    written += inserted.length;
    read = to;
  }
  out.set(original.subarray(read), written);
  return out;
}

const encoder = new TextEncoder();

// Byte offsets of ascending character offsets, found in one pass over the text.
function utf8Offsets(text: string, head: number): (offset: number) => number {
  let char = 0;
  let byte = head;
  return (offset) => {
    for (; char < offset; char++) {
      const code = text.charCodeAt(char);
      if (code < 0x80) byte += 1;
      else if (code < 0x800) byte += 2;
      else if (code >= 0xd800 && code <= 0xdbff) {
        byte += 4;
        char++;
      } else byte += 3;
    }
    return byte;
  };
}

// Maps an offset in the CRLF-to-LF view back to the original text: every CRLF pair before it adds one.
function offsetMapper(text: string, view: string): (offset: number) => number {
  if (text.length === view.length) return (offset) => offset;
  const folded: number[] = [];
  for (let i = view.indexOf("\n"), removed = 0; i !== -1; i = view.indexOf("\n", i + 1)) {
    // The LF at view[i] sits at text[i + removed], or one later when a CR precedes it there.
    if (text.charCodeAt(i + removed) === 13) {
      folded.push(i);
      removed++;
    }
  }
  return (offset) => {
    let lo = 0;
    let hi = folded.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((folded[mid] as number) < offset) lo = mid + 1;
      else hi = mid;
    }
    return offset + lo;
  };
}

function lineNumbers(view: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let at = 0;
  for (const offset of offsets) {
    for (let nl = view.indexOf("\n", at); nl !== -1 && nl < offset; nl = view.indexOf("\n", nl + 1)) {
      line++;
      at = nl + 1;
    }
    out.push(line);
  }
  return out;
}

const SHOWN_LINES = 12;
const SHOWN_CHARS = 200;

// No exact match: look for the passage with whitespace and line endings ignored, and say where it is so the
// model can copy it exactly. Nothing is ever applied from a near match.
function notFound(view: string, needle: string, path: string): FsError {
  const near = nearMatches(view, needle);
  let message = `Cannot edit "${path}": old_string was not found`;
  if (near.length === 0) {
    message += "; read the file again and copy the text exactly, including indentation";
  } else {
    const [first] = near as [NearMatch, ...NearMatch[]];
    const where = near.map((m) => (m.from === m.to ? `line ${m.from}` : `lines ${m.from}-${m.to}`)).join(", ");
    const tabs = first.text.some((l) => /^\s*\t/.test(l)) && !/^[ ]*\t/m.test(needle) ? " (the file indents with tabs)" : "";
    const shown = first.text.slice(0, SHOWN_LINES).map((l, i) => `${first.from + i}: ${l.length > SHOWN_CHARS ? `${l.slice(0, SHOWN_CHARS)}…` : l}`);
    if (first.text.length > SHOWN_LINES) shown.push("…");
    message +=
      `. It matches ${where} if whitespace and line endings are ignored${tabs}; nothing was changed. ` +
      `Use the exact text of those lines, which reads:\n${shown.join("\n")}`;
  }
  return new FsError("FS_EDIT_NOT_FOUND", message, { details: { path, near: near.map(({ from, to }) => ({ from, to })) } });
}

interface NearMatch {
  readonly from: number;
  readonly to: number;
  readonly text: readonly string[];
}

const squash = (line: string): string => line.trim().replace(/\s+/g, " ");

function nearMatches(view: string, needle: string): NearMatch[] {
  const fileLines = view.split(/\r\n|\r|\n/);
  const wanted = needle.split(/\r\n|\r|\n/).map(squash);
  while (wanted.length > 0 && wanted[0] === "") wanted.shift();
  while (wanted.length > 0 && wanted[wanted.length - 1] === "") wanted.pop();
  if (wanted.length === 0) return [];
  const squashed = fileLines.map(squash);
  const found: NearMatch[] = [];
  for (let i = 0; i + wanted.length <= squashed.length && found.length < 3; i++) {
    const single = wanted.length === 1;
    const hit = single
      ? (squashed[i] as string).includes(wanted[0] as string)
      : wanted.every((w, k) =>
          k === 0 ? (squashed[i] as string).endsWith(w) : k === wanted.length - 1 ? (squashed[i + k] as string).startsWith(w) : squashed[i + k] === w,
        );
    if (hit) {
      found.push({ from: i + 1, to: i + wanted.length, text: fileLines.slice(i, i + wanted.length) });
      i += wanted.length - 1;
    }
  }
  return found;
}
