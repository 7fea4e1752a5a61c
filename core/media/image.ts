// The four image formats read shows, told apart by their first bytes (never by name), and their dimensions.
// Dimensions come from image-size's per-format readers (pure JavaScript over a Uint8Array, no Node built-ins);
// only these four are imported, so no other format is ever taken for an image.
import { GIF } from "image-size/types/gif";
import { JPG } from "image-size/types/jpg";
import { PNG } from "image-size/types/png";
import { WEBP } from "image-size/types/webp";

export type ImageKind = "PNG" | "JPEG" | "GIF" | "WebP";

export interface ImageInfo {
  readonly kind: ImageKind;
  readonly mediaType: string;
  readonly width: number;
  readonly height: number;
}

/** Bytes enough to recognise every format's signature. */
export const IMAGE_SNIFF_BYTES = 16;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return bytes.length >= at + prefix.length && prefix.every((byte, i) => bytes[at + i] === byte);
}

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));

/** The image format whose signature `head` starts with, if any. */
export function sniffImage(head: Uint8Array): ImageKind | undefined {
  if (startsWith(head, PNG_SIGNATURE)) return "PNG";
  if (startsWith(head, [0xff, 0xd8, 0xff])) return "JPEG";
  if (startsWith(head, ascii("GIF87a")) || startsWith(head, ascii("GIF89a"))) return "GIF";
  if (startsWith(head, ascii("RIFF")) && startsWith(head, ascii("WEBP"), 8)) return "WebP";
  return undefined;
}

const FORMATS = {
  PNG: { reader: PNG, mediaType: "image/png", minBytes: 33 },
  JPEG: { reader: JPG, mediaType: "image/jpeg", minBytes: 4 },
  GIF: { reader: GIF, mediaType: "image/gif", minBytes: 13 },
  WebP: { reader: WEBP, mediaType: "image/webp", minBytes: 30 },
} as const;

/**
 * The format and dimensions of a whole image file; undefined when the bytes are not a well-formed header of
 * one of the four formats (a signature followed by garbage, a cut file, zero dimensions).
 */
export function imageInfo(bytes: Uint8Array): ImageInfo | undefined {
  const kind = sniffImage(bytes);
  if (!kind) return undefined;
  const format = FORMATS[kind];
  if (bytes.length < format.minBytes) return undefined;
  // Beyond the signature, a check a text that merely starts the same way cannot pass: a PNG's header chunk
  // (IHDR, 13 bytes) with its CRC, a GIF's trailer, a WebP's RIFF length.
  if (
    kind === "PNG" &&
    !(startsWith(bytes, [0, 0, 0, 13], 8) && startsWith(bytes, ascii("IHDR"), 12) && crc32(bytes.subarray(12, 29)) === readU32be(bytes, 29))
  ) {
    return undefined;
  }
  if (kind === "GIF" && !gifBlocks(bytes)) return undefined;
  if (kind === "WebP" && readU32le(bytes, 4) + 8 !== bytes.length + (bytes.length % 2)) return undefined;
  let size: { width?: number | undefined; height?: number | undefined };
  try {
    if (!format.reader.validate(bytes)) return undefined;
    size = format.reader.calculate(bytes);
  } catch {
    return undefined;
  }
  const { width, height } = size;
  if (!Number.isSafeInteger(width) || !Number.isSafeInteger(height) || (width as number) < 1 || (height as number) < 1) return undefined;
  return { kind, mediaType: format.mediaType, width: width as number, height: height as number };
}

// After the screen descriptor (and its color table, when the flags give one) a GIF goes on with an extension
// (0x21), an image (0x2C) or its trailer (0x3B), and it ends with the trailer.
function gifBlocks(bytes: Uint8Array): boolean {
  const flags = bytes[10] as number;
  const table = flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0;
  const next = bytes[13 + table];
  return (next === 0x21 || next === 0x2c || next === 0x3b) && bytes[bytes.length - 1] === 0x3b;
}

function readU32be(bytes: Uint8Array, at: number): number {
  return (((bytes[at] as number) << 24) | ((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number)) >>> 0;
}

function readU32le(bytes: Uint8Array, at: number): number {
  return ((bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16) | ((bytes[at + 3] as number) << 24)) >>> 0;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Base64 of `bytes`, in slices so no argument list grows with the image. */
export function toBase64(bytes: Uint8Array): string {
  const SLICE = 0x8000;
  let binary = "";
  for (let i = 0; i < bytes.length; i += SLICE) binary += String.fromCharCode(...bytes.subarray(i, i + SLICE));
  return btoa(binary);
}

/** The bytes of base64 text; undefined when it is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text.replace(/\s+/g, ""));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
