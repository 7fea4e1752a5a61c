import { detectBom, isUtf8BomPrefix } from "./bom.ts";
import { countLineFeeds } from "./lines.ts";
import { completeUtf8Prefix, concatBytes, notTextError, type NotTextReason, TEXT_SNIFF_BYTES } from "./utf8.ts";

export interface WindowOptions {
  /** First line to select, 1-based. */
  readonly offset: number;
  /** Most lines to select. */
  readonly limit: number;
  /** Characters kept per line; longer lines are cut and flagged. */
  readonly maxLineChars: number;
  /** Budget for the selected lines' UTF-8 bytes, counting one newline between lines. */
  readonly maxBytes: number;
  /** Display path for error messages. */
  readonly path?: string;
  readonly sniffBytes?: number;
}

export interface WindowLine {
  readonly number: number;
  readonly text: string;
  /** The line was longer than `maxLineChars` and was cut. */
  readonly truncated: boolean;
}

export interface ReadWindow {
  readonly lines: readonly WindowLine[];
  /** Exact count of lines in the file (a final newline does not start another line). */
  readonly totalLines: number;
  /** Selection stopped because the next line would have exceeded `maxBytes`. */
  readonly byteCapped: boolean;
  /** The file starts with a UTF-8 byte-order mark (not shown in the lines). */
  readonly bom: boolean;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Selects a window of lines from a file's byte chunks in bounded memory: lines outside the window are
 * counted, never decoded or kept, and a selected line keeps at most enough bytes for `maxLineChars`
 * characters, so a gigabyte file or a gigabyte-long line costs no more memory than the window itself.
 * Selected lines are decoded fatally; a NUL in the first `sniffBytes` bytes marks the file binary. Nothing of
 * a chunk is kept without a copy, so the chunks may all be one reused buffer.
 */
export async function readWindow(chunks: AsyncIterable<Uint8Array>, options: WindowOptions): Promise<ReadWindow> {
  const view = new LineWindow(options);
  for await (const chunk of chunks) view.push(chunk);
  return view.finish();
}

class LineWindow {
  readonly #options: WindowOptions;
  readonly #keepBytes: number;
  readonly #sniffBytes: number;
  // Each line is decoded on its own, and a decoder that honoured byte-order marks would drop a U+FEFF that
  // starts any line; only the file's first bytes can be a byte-order mark, and #start removes that one.
  readonly #decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  readonly #lines: WindowLine[] = [];
  #lineNumber = 1;
  #position = 0;
  #bytesUsed = 0;
  #byteCapped = false;
  #bom = false;
  #head: Uint8Array | undefined = new Uint8Array(0);
  // The current line's kept bytes (only while it is selected) and its full length so far.
  #parts: Uint8Array[] = [];
  #kept = 0;
  #lineLength = 0;

  constructor(options: WindowOptions) {
    this.#options = options;
    // Four bytes per character covers any UTF-8 text; one more shows that the line goes on.
    this.#keepBytes = options.maxLineChars * 4 + 4;
    this.#sniffBytes = options.sniffBytes ?? TEXT_SNIFF_BYTES;
  }

  push(chunk: Uint8Array): void {
    if (this.#head === undefined) {
      this.#scan(chunk);
      return;
    }
    // Hold the first bytes back until it is clear whether they are a byte-order mark.
    const head = concatBytes([this.#head, chunk]);
    if (isUtf8BomPrefix(head)) {
      // A copy: the chunk may be the reader's reused buffer (FsReadStreamOptions.reuseBuffer).
      this.#head = head.slice();
      return;
    }
    this.#start(head);
  }

  finish(): ReadWindow {
    if (this.#head !== undefined) this.#start(this.#head);
    if (this.#lineLength > 0) this.#endLine();
    return {
      lines: this.#lines,
      totalLines: this.#lineNumber - 1,
      byteCapped: this.#byteCapped,
      bom: this.#bom,
    };
  }

  #start(head: Uint8Array): void {
    this.#head = undefined;
    const bom = detectBom(head);
    if (bom === "utf-16le" || bom === "utf-16be") throw this.#notText("utf-16", `it is ${bom.toUpperCase()} text, not UTF-8`);
    this.#bom = bom === "utf-8";
    this.#position = this.#bom ? 3 : 0;
    this.#scan(this.#bom ? head.subarray(3) : head);
  }

  #scan(chunk: Uint8Array): void {
    if (this.#position < this.#sniffBytes) {
      const nul = chunk.subarray(0, this.#sniffBytes - this.#position).indexOf(0);
      if (nul !== -1) throw this.#notText("binary", `it looks like a binary file (NUL byte at offset ${this.#position + nul})`);
    }
    this.#position += chunk.length;
    let start = 0;
    while (start < chunk.length) {
      if (!this.#selecting()) {
        start = this.#skip(chunk, start);
        continue;
      }
      const newline = chunk.indexOf(LF, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#keep(chunk.subarray(start, end));
      this.#lineLength += end - start;
      if (newline === -1) break;
      this.#endLine();
      start = newline + 1;
    }
  }

  // Counts lines that will not be shown, without per-line bookkeeping: up to the window's first line, or to
  // the end of the chunk once the window is complete. A chunk the window does not start in is counted in bulk
  // (countLineFeeds), which is what keeps reading the end of a large file close to the cost of reading it.
  // Returns where scanning resumes.
  #skip(chunk: Uint8Array, start: number): number {
    const until =
      this.#lineNumber < this.#options.offset && !this.#byteCapped && this.#lines.length < this.#options.limit
        ? this.#options.offset
        : Number.POSITIVE_INFINITY;
    const rest = start === 0 ? chunk : chunk.subarray(start);
    const feeds = countLineFeeds(rest);
    if (this.#lineNumber + feeds < until) {
      if (feeds === 0) this.#lineLength += rest.length;
      else {
        this.#lineNumber += feeds;
        this.#lineLength = chunk.length - chunk.lastIndexOf(LF) - 1;
      }
      return chunk.length;
    }
    let at = start;
    while (this.#lineNumber < until) {
      const newline = chunk.indexOf(LF, at);
      if (newline === -1) {
        this.#lineLength += chunk.length - at;
        return chunk.length;
      }
      this.#lineNumber++;
      this.#lineLength = 0;
      at = newline + 1;
    }
    return at;
  }

  #selecting(): boolean {
    return !this.#byteCapped && this.#lineNumber >= this.#options.offset && this.#lines.length < this.#options.limit;
  }

  #keep(bytes: Uint8Array): void {
    const room = this.#keepBytes - this.#kept;
    if (room <= 0 || bytes.length === 0) return;
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    this.#parts.push(part.slice());
    this.#kept += part.length;
  }

  #endLine(): void {
    if (this.#selecting()) this.#select();
    this.#parts = [];
    this.#kept = 0;
    this.#lineLength = 0;
    this.#lineNumber++;
  }

  #select(): void {
    let bytes = concatAll(this.#parts, this.#kept);
    const cut = this.#lineLength > bytes.length;
    if (cut) bytes = bytes.subarray(0, completeUtf8Prefix(bytes));
    else if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch (cause) {
      throw this.#notText("invalid-utf8", `line ${this.#lineNumber} is not valid UTF-8 text`, cause);
    }
    const max = this.#options.maxLineChars;
    const truncated = cut || text.length > max;
    if (text.length > max) text = text.slice(0, max);
    // Keep a surrogate pair whole rather than leaving half a character at the cut.
    if (truncated && /[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, -1);
    const cost = byteLength(text) + (this.#lines.length > 0 ? 1 : 0);
    if (this.#bytesUsed + cost > this.#options.maxBytes) {
      this.#byteCapped = true;
      return;
    }
    this.#bytesUsed += cost;
    this.#lines.push({ number: this.#lineNumber, text, truncated });
  }

  #notText(reason: NotTextReason, message: string, cause?: unknown): ReturnType<typeof notTextError> {
    return notTextError(this.#options.path, reason, message, { line: this.#lineNumber }, cause);
  }
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  // Exact and allocation-free for ASCII, which most lines are.
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  return ascii ? text.length : encoder.encode(text).length;
}

function concatAll(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
