/**
 * Text handling shared by every backend: fatal UTF-8 decoding with binary detection, byte-order marks and
 * line endings. Pure functions over bytes and strings.
 *
 * @module
 */
export { bomLength, detectBom, UTF8_BOM, withUtf8Bom } from "./bom.ts";
export type { Bom } from "./bom.ts";
export { applyLineEnding, detectLineEnding, endsWithNewline, normalizeLineEndings } from "./eol.ts";
export type { LineEnding } from "./eol.ts";
export { concatBytes, decodeText, encodeUtf8, findInvalidUtf8, TEXT_SNIFF_BYTES, TextStreamDecoder } from "./utf8.ts";
export type { DecodedText, DecodeOptions, NotTextReason } from "./utf8.ts";
