// One file's change as a git-style unified diff: `diff --git` headers, `new file mode` / `deleted file mode`,
// hunks with three lines of context, and binary files named, never dumped.
import { formatPatch, structuredPatch, type StructuredPatch } from "diff";

const decoder = new TextDecoder("utf-8", { fatal: true });
// git's own test: a NUL in the first 8,000 bytes.
const SNIFF_BYTES = 8000;
// Beyond this the line diff gives up and the hunk replaces the whole file (still exact, just not minimal).
const DIFF_TIMEOUT_MS = 5000;

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
  const patch: StructuredPatch =
    structuredPatch(oldName, newName, oldText, newText, undefined, undefined, { context: 3, timeout: DIFF_TIMEOUT_MS }) ??
    wholeFile(oldName, newName, oldText, newText);
  return formatPatch({ ...patch, oldHeader: undefined, newHeader: undefined, ...shape });
}

// The hunk that removes every old line and adds every new one, for a diff that took too long.
function wholeFile(oldName: string, newName: string, oldText: string, newText: string): StructuredPatch {
  const removed = splitLines(oldText);
  const added = splitLines(newText);
  return {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [
      {
        oldStart: 1,
        oldLines: removed.lines.length,
        newStart: 1,
        newLines: added.lines.length,
        lines: [...marked("-", removed), ...marked("+", added)],
      },
    ],
  };
}

function splitLines(text: string): { lines: string[]; final: boolean } {
  if (text === "") return { lines: [], final: true };
  const final = text.endsWith("\n");
  const lines = (final ? text.slice(0, -1) : text).split("\n");
  return { lines, final };
}

function marked(sign: string, { lines, final }: { lines: string[]; final: boolean }): string[] {
  const out = lines.map((line) => `${sign}${line}`);
  if (!final && out.length > 0) out.push("\\ No newline at end of file");
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// git's C-style quoting of a name with control characters, quotes, backslashes or bytes beyond ASCII.
function quote(name: string): string {
  if (!/[\u0000-\u001f\u007f-\uffff"\\]/.test(name)) return name;
  let out = '"';
  for (const byte of new TextEncoder().encode(name)) {
    const escape = ESCAPES[byte];
    if (escape) out += escape;
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

const ESCAPES: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\" };
