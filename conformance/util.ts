import type { FsReadStream, GrepResult } from "../core/mod.ts";
import type { SubjectTraits } from "./suite.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** A string from UTF-8 bytes (lenient; for messages and comparisons of known text). */
export function text(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? "<missing>" : decoder.decode(bytes);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Drains a read stream into one byte array. */
export async function collect(stream: FsReadStream): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of stream) {
    chunks.push(chunk.slice());
    length += chunk.length;
  }
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Deterministic filler bytes of a given length (every byte value occurs). */
export function pattern(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Joins a root and a relative path with `/`. */
export function under(root: string, relative: string): string {
  return root === "/" ? `/${relative}` : `${root}/${relative}`;
}

export const needsSymlinks = (c: SubjectTraits): string | undefined => (c.symlinks ? undefined : "the backend has no symbolic links");

export const needsFileModes = (c: SubjectTraits): string | undefined => (c.fileModes ? undefined : "the backend stores no permission bits");

export const needsOwners = (c: SubjectTraits): string | undefined => (c.owners ? undefined : "the backend has no file owners");

export const needsPermissionErrors = (c: SubjectTraits): string | undefined =>
  c.permissionErrors ? undefined : "the backend cannot refuse access here (a disk backend run as root)";

/** An AbortSignal that has already fired. */
export function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  return controller.signal;
}

export const needsSearch = (c: SubjectTraits): string | undefined => (c.search ? undefined : "the subject has no search backend");

/** A grep result's files in path order, to compare two backends whose file order may differ. */
export function sortedGrep(result: GrepResult): unknown {
  return [...result.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
