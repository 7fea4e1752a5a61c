import { FsError } from "../fs/errors.ts";
import { detectBom, isUtf8BomPrefix } from "./bom.ts";

/** How many leading bytes are searched for a NUL before a file is treated as binary. */
export const TEXT_SNIFF_BYTES = 8192;

export interface DecodeOptions {
  /** Display path used in error messages. */
  readonly path?: string;
  /** Leading bytes searched for NUL; defaults to {@link TEXT_SNIFF_BYTES}. */
  readonly sniffBytes?: number;
}

/** Why bytes are not text: a NUL in the sniffed prefix, invalid UTF-8, or a UTF-16 byte-order mark. */
export type NotTextReason = "binary" | "invalid-utf8" | "utf-16" | "notebook";

/** Decoded text without its byte-order mark, and whether the file had one. */
export interface DecodedText {
  readonly text: string;
  readonly bom: boolean;
}

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`. */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Decodes UTF-8 fatally: invalid bytes, or a NUL among the first `sniffBytes`, fail `FS_NOT_TEXT` instead of
 * turning into replacement characters. A UTF-8 byte-order mark is removed and reported; a UTF-16 one is
 * rejected, because the bytes after it are not UTF-8.
 */
export function decodeText(bytes: Uint8Array, options?: DecodeOptions): DecodedText {
  const decoder = new TextStreamDecoder(options);
  // One final push decodes without streaming, which V8 does several times faster.
  const text = decoder.push(bytes, true);
  return { text, bom: decoder.bom };
}

/**
 * Incremental form of {@link decodeText}: chunk boundaries may split a character; the NUL search spans
 * chunks until `sniffBytes` bytes have been seen.
 */
export class TextStreamDecoder {
  readonly #decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  readonly #path: string | undefined;
  readonly #sniffBytes: number;
  #seen = 0;
  #head: Uint8Array | undefined = new Uint8Array(0);
  #bom = false;

  constructor(options?: DecodeOptions) {
    this.#path = options?.path;
    this.#sniffBytes = options?.sniffBytes ?? TEXT_SNIFF_BYTES;
  }

  /** True once a UTF-8 byte-order mark was removed from the start. */
  get bom(): boolean {
    return this.#bom;
  }

  /**
   * Decodes the next chunk; returns the text completed so far. With `final`, the chunk is the last one and
   * the decoder is finished (no `end()` needed).
   */
  push(chunk: Uint8Array, final = false): string {
    if (this.#head !== undefined) {
      // Hold back the first bytes until the byte-order mark question can be answered.
      const head = concatBytes([this.#head, chunk]);
      if (!final && isUtf8BomPrefix(head)) {
        this.#head = head;
        return "";
      }
      this.#head = undefined;
      const bom = detectBom(head);
      if (bom === "utf-16le" || bom === "utf-16be") {
        throw this.#error("utf-16", `it is ${bom.toUpperCase()} text (byte-order mark), not UTF-8`, 0);
      }
      if (bom === "utf-8") this.#bom = true;
      return this.#decode(bom === "utf-8" ? head.subarray(3) : head, bom === "utf-8" ? 3 : 0, final);
    }
    return this.#decode(chunk, this.#seen, final);
  }

  /** Flushes the decoder; fails when the input ended inside a character. */
  end(): string {
    if (this.#head !== undefined) return this.push(new Uint8Array(0), true);
    try {
      return this.#decoder.decode();
    } catch (cause) {
      throw this.#error("invalid-utf8", "it is not valid UTF-8 text (it ends inside a character)", this.#seen, cause);
    }
  }

  #decode(bytes: Uint8Array, offset: number, final: boolean): string {
    if (this.#seen < this.#sniffBytes) {
      const head = bytes.subarray(0, this.#sniffBytes - this.#seen);
      const nul = head.indexOf(0);
      if (nul !== -1) throw this.#error("binary", `it looks like a binary file (NUL byte at offset ${offset + nul})`, offset + nul);
    }
    this.#seen = offset + bytes.length;
    try {
      return final ? this.#decoder.decode(bytes) : this.#decoder.decode(bytes, { stream: true });
    } catch (cause) {
      const at = findInvalidUtf8(bytes);
      if (at === -1 && final) {
        throw this.#error("invalid-utf8", "it is not valid UTF-8 text (it ends inside a character)", offset + bytes.length, cause);
      }
      const where = at === -1 ? `near byte ${offset}` : `at byte ${offset + at}`;
      throw this.#error("invalid-utf8", `it is not valid UTF-8 text (invalid byte ${where})`, at === -1 ? offset : offset + at, cause);
    }
  }

  #error(kind: NotTextReason, reason: string, offset: number, cause?: unknown): FsError {
    return notTextError(this.#path, kind, reason, { offset }, cause);
  }
}

/**
 * The length of the longest prefix of `bytes[0, length)` that does not end inside a multi-byte character:
 * where to cut UTF-8 so that no half character is left at the end.
 */
export function completeUtf8Prefix(bytes: Uint8Array, length: number = bytes.length): number {
  let i = length;
  let continuation = 0;
  while (i > 0 && continuation < 3 && ((bytes[i - 1] as number) & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i === 0) return length;
  const lead = bytes[i - 1] as number;
  const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return need > continuation ? i - 1 : length;
}

/** The FS_NOT_TEXT error for `path`, with the reason as data and as words. */
export function notTextError(path: string | undefined, reason: NotTextReason, message: string, details?: Record<string, unknown>, cause?: unknown): FsError {
  const subject = path === undefined ? "Cannot decode the text" : `Cannot read "${path}" as text`;
  return new FsError("FS_NOT_TEXT", `${subject}: ${message}`, {
    cause,
    details: { reason, ...details, ...(path === undefined ? {} : { path }) },
  });
}

/** The bytes of `chunks` in order, in one array; when only one chunk holds bytes, that chunk itself. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const filled = chunks.filter((chunk) => chunk.length > 0);
  if (filled.length === 1) return filled[0]!;
  const out = new Uint8Array(filled.reduce((length, chunk) => length + chunk.length, 0));
  let offset = 0;
  for (const chunk of filled) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/**
 * Offset of the first byte that cannot start or continue a valid UTF-8 sequence, or -1 when every complete
 * sequence is valid (a sequence cut off by the end of `bytes` is not reported).
 */
export function findInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    const shape = leadShape(b);
    if (shape === undefined) return i;
    const [need, min, max] = shape;
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) return -1;
      const c = bytes[i + k] as number;
      const lo = k === 1 ? min : 0x80;
      const hi = k === 1 ? max : 0xbf;
      if (c < lo || c > hi) return i;
    }
    i += need + 1;
  }
  return -1;
}

// For a lead byte: how many continuation bytes follow and the allowed range of the first one (which rules
// out overlong forms, surrogates and code points past U+10FFFF).
function leadShape(b: number): readonly [number, number, number] | undefined {
  if (b >= 0xc2 && b <= 0xdf) return [1, 0x80, 0xbf];
  if (b === 0xe0) return [2, 0xa0, 0xbf];
  if (b === 0xed) return [2, 0x80, 0x9f];
  if (b >= 0xe1 && b <= 0xef) return [2, 0x80, 0xbf];
  if (b === 0xf0) return [3, 0x90, 0xbf];
  if (b >= 0xf1 && b <= 0xf3) return [3, 0x80, 0xbf];
  if (b === 0xf4) return [3, 0x80, 0x8f];
  return undefined;
}
