// One file's change as a git-style unified diff: `diff --git` headers, `new file mode` / `deleted file mode`,
// hunks with three lines of context, and binary files named, never dumped.
import { formatPatch } from "diff";
import { textHunks } from "../../text/diff.ts";

// A BOM is part of the bytes the patch must restore.
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
// git's own test: a NUL in the first 8,000 bytes.
const SNIFF_BYTES = 8000;

/** Binary for a patch: a NUL in the first 8,000 bytes (as git decides), or bytes that are not UTF-8. */
export function isBinary(bytes: Uint8Array): boolean {
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return true;
  try {
    decoder.decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/**
 * The diff of one file from `before` to `after` (either absent for a creation or a deletion), named `path`
 * relative to the patch's root; empty when the bytes are equal.
 */
export function filePatch(path: string, before: Uint8Array | undefined, after: Uint8Array | undefined): string {
  if (before === undefined && after === undefined) return "";
  if (before !== undefined && after !== undefined && sameBytes(before, after)) return "";
  const oldName = before === undefined ? "/dev/null" : `a/${path}`;
  const newName = after === undefined ? "/dev/null" : `b/${path}`;
  const shape = { isGit: true, isCreate: before === undefined, isDelete: after === undefined } as const;
  if ((before !== undefined && isBinary(before)) || (after !== undefined && isBinary(after))) {
    const header = formatPatch({ oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks: [], ...shape });
    return `${header}Binary files ${quote(oldName)} and ${quote(newName)} differ\n`;
  }
  const oldText = before === undefined ? "" : decoder.decode(before);
  const newText = after === undefined ? "" : decoder.decode(after);
  // A count of comparisons, not a clock, bounds the matching: the same change always gives the same patch.
  const { hunks } = textHunks(oldText, newText, { context: 3 });
  return formatPatch({ oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks, ...shape });
}

/**
 * A moved file as git shows a detected rename: `similarity index`, `rename from`, `rename to`, and hunks when
 * the content changed too. Below git's default threshold (50% similar) it is a deletion and a creation, as
 * git would show it.
 */
export function renamePatch(from: string, to: string, before: Uint8Array, after: Uint8Array): string {
  const similarity = similarityOf(before, after);
  if (similarity < 50) return filePatch(from, before, undefined) + filePatch(to, undefined, after);
  const shape = { oldFileName: `a/${from}`, newFileName: `b/${to}`, oldHeader: undefined, newHeader: undefined, isGit: true, isRename: true } as const;
  let body: string;
  if (sameBytes(before, after)) body = formatPatch({ ...shape, hunks: [] });
  else if (isBinary(before) || isBinary(after))
    body = `${formatPatch({ ...shape, hunks: [] })}Binary files ${quote(`a/${from}`)} and ${quote(`b/${to}`)} differ\n`;
  else body = formatPatch({ ...shape, hunks: textHunks(decoder.decode(before), decoder.decode(after), { context: 3 }).hunks });
  const firstLine = body.indexOf("\n") + 1;
  return `${body.slice(0, firstLine)}similarity index ${similarity}%\n${body.slice(firstLine)}`;
}

/**
 * How much of `before` survives in `after`, in percent, floored: the bytes of the lines the two share (each
 * line counted as often as both have it) against the larger of the two, an estimate in the spirit of git's.
 * Binary content counts as similar only when equal.
 */
export function similarityOf(before: Uint8Array, after: Uint8Array): number {
  if (sameBytes(before, after)) return 100;
  if (isBinary(before) || isBinary(after)) return 0;
  const counts = new Map<string, number>();
  for (const line of lines(decoder.decode(before))) counts.set(line, (counts.get(line) ?? 0) + 1);
  let shared = 0;
  for (const line of lines(decoder.decode(after))) {
    const n = counts.get(line);
    if (n) {
      counts.set(line, n - 1);
      shared += new TextEncoder().encode(line).length;
    }
  }
  const larger = Math.max(before.length, after.length);
  return Math.min(99, Math.floor((shared * 100) / larger));
}

// Lines with their terminators, so the shared bytes add up to the file's.
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// git's C-style quoting of a name with control characters, quotes, backslashes or bytes beyond ASCII.
function quote(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this quotes.
  if (!/[\u0000-\u001f\u007f-\uffff"\\]/.test(name)) return name;
  let out = '"';
  for (const byte of new TextEncoder().encode(name)) {
    const escaped = ESCAPES[byte];
    if (escaped) out += escaped;
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

const ESCAPES: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\" };
