/** The byte-order marks a text file may start with. */
export type Bom = "utf-8" | "utf-16le" | "utf-16be";

/** The UTF-8 byte-order mark, EF BB BF. */
export const UTF8_BOM: Uint8Array = Uint8Array.of(0xef, 0xbb, 0xbf);

/** The byte-order mark at the start of `bytes`, if any. */
export function detectBom(bytes: Uint8Array): Bom | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/** Length in bytes of a byte-order mark. */
export function bomLength(bom: Bom): number {
  return bom === "utf-8" ? 3 : 2;
}

/** `bytes` with a UTF-8 byte-order mark in front when `bom` is set (restoring what decoding removed). */
export function withUtf8Bom(bytes: Uint8Array, bom: boolean): Uint8Array {
  if (!bom) return bytes;
  const out = new Uint8Array(bytes.length + 3);
  out.set(UTF8_BOM);
  out.set(bytes, 3);
  return out;
}

/** True while `bytes` could still be the start of a UTF-8 byte-order mark (fewer than three bytes). */
export function isUtf8BomPrefix(bytes: Uint8Array): boolean {
  return bytes.length < 3 && (bytes.length === 0 || (bytes[0] === 0xef && (bytes.length < 2 || bytes[1] === 0xbb)));
}
