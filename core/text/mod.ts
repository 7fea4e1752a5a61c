/**
 * Text handling shared by every backend: fatal UTF-8 decoding with binary detection, byte-order marks and
 * line endings. Pure functions over bytes and strings.
 *
 * @module
 */
export { bomLength, detectBom, isUtf8BomPrefix, UTF8_BOM, withUtf8Bom } from "./bom.ts";
export type { Bom } from "./bom.ts";
export { applyLineEnding, detectLineEnding, endsWithNewline, normalizeLineEndings } from "./eol.ts";
export type { LineEnding } from "./eol.ts";
export { completeUtf8Prefix, concatBytes, decodeText, encodeUtf8, findInvalidUtf8, notTextError, TEXT_SNIFF_BYTES, TextStreamDecoder } from "./utf8.ts";
export { readWindow } from "./window.ts";
export type { ReadWindow, WindowLine, WindowOptions } from "./window.ts";
export type { DecodedText, DecodeOptions, NotTextReason } from "./utf8.ts";
export { applyEdit, encodeEdit } from "./edit.ts";
export type { EditRequest, EditResult, EditSpan } from "./edit.ts";
export { editDiff, unifiedDiff } from "./diff.ts";
export type { DiffOptions, DiffSummary } from "./diff.ts";
export { answerOversized, LineLimiter, limitLines } from "./framing.ts";
export type { OversizedLine } from "./framing.ts";
