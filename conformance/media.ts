// Small, well-formed image files of any stated size, built by hand for read's image and notebook cases: each
// carries a real header (and a PNG real CRCs), so any decoder would take it for what it claims.

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));
const u32be = (n: number): number[] => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const u16be = (n: number): number[] => [(n >>> 8) & 0xff, n & 0xff];
const u16le = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff];
const u24le = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff];
const u32le = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];

function crc32(bytes: readonly number[]): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: readonly number[]): number[] {
  const body = [...ascii(type), ...data];
  return [...u32be(data.length), ...body, ...u32be(crc32(body))];
}

/** A PNG of the stated size (its pixel data is not there: only the header matters to read), `pad` bytes of padding after. */
export function png(width: number, height: number, pad = 0): Uint8Array {
  return Uint8Array.from([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...pngChunk("IHDR", [...u32be(width), ...u32be(height), 8, 6, 0, 0, 0]),
    ...(pad > 0 ? pngChunk("tEXt", new Array<number>(pad).fill(0x61)) : []),
    ...pngChunk("IEND", []),
  ]);
}

export function gif(width: number, height: number): Uint8Array {
  return Uint8Array.from([...ascii("GIF89a"), ...u16le(width), ...u16le(height), 0, 0, 0, 0x3b]);
}

export function jpeg(width: number, height: number): Uint8Array {
  const app0 = [0xff, 0xe0, ...u16be(16), ...ascii("JFIF"), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const sof0 = [0xff, 0xc0, ...u16be(17), 8, ...u16be(height), ...u16be(width), 3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1];
  return Uint8Array.from([0xff, 0xd8, ...app0, ...sof0, 0xff, 0xd9]);
}

export function webp(width: number, height: number): Uint8Array {
  const vp8x = [...ascii("VP8X"), ...u32le(10), 0, 0, 0, 0, ...u24le(width - 1), ...u24le(height - 1)];
  return Uint8Array.from([...ascii("RIFF"), ...u32le(4 + vp8x.length), ...ascii("WEBP"), ...vp8x]);
}

/** Base64 of bytes (for a notebook's image output). */
export function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}
