// The apply_patch format of OpenAI's Codex, parsed into operations. The grammar, in short:
//   *** Begin Patch
//   *** Add File: <path>        then lines each starting "+"
//   *** Delete File: <path>
//   *** Update File: <path>     then, optionally, "*** Move to: <path>", then hunks:
//     "@@" or "@@ <anchor line>", then lines starting " " (context), "-" (remove) or "+" (add),
//     optionally closed by "*** End of File"
//   *** End Patch
// Leniency follows what models are known to send (docs/notes/0021-apply-patch.md): a heredoc wrapper,
// CRLF, blank lines between operations and hunks, padded markers, a first hunk without "@@".
import { quoteInput } from "../../errors/mod.ts";
import { PatchError } from "./errors.ts";

/** One line of a hunk: context (" "), removed ("-") or added ("+"), without its marker. */
export interface HunkLine {
  readonly kind: " " | "-" | "+";
  readonly text: string;
}

/** A change to one region of a file, found by its context lines. */
export interface Hunk {
  /** The text after "@@ ": a line (a function signature, a heading) to find first; the hunk is sought after it. */
  readonly anchor?: string;
  readonly lines: readonly HunkLine[];
  /** "*** End of File" closed the hunk: its context must end the file. */
  readonly endOfFile: boolean;
  /** 1-based line of the patch where the hunk starts. */
  readonly line: number;
}

export type PatchOperation =
  | { readonly kind: "add"; readonly path: string; readonly text: string; readonly line: number }
  | { readonly kind: "delete"; readonly path: string; readonly line: number }
  | { readonly kind: "update"; readonly path: string; readonly moveTo?: string; readonly hunks: readonly Hunk[]; readonly line: number };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File:";
const DELETE = "*** Delete File:";
const UPDATE = "*** Update File:";
const MOVE = "*** Move to:";
const EOF_MARK = "*** End of File";
const OPERATIONS = `"${ADD} <path>", "${DELETE} <path>", "${UPDATE} <path>"`;
const HEREDOC = /^(?:apply_patch\s+)?<<-?\s*(['"]?)([A-Za-z_]\w*)\1$/;
// A unified-diff hunk header; what follows its second "@@" (git's function context) serves as the anchor.
const UNIFIED_HEADER = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/;

/** The operations of an apply_patch text, or PATCH_INVALID naming the line and what was expected there. */
export function parsePatch(text: string): PatchOperation[] {
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  let first = 0;
  let last = lines.length - 1;
  const skipBlank = () => {
    while (first <= last && (lines[first] as string).trim() === "") first++;
    while (last >= first && (lines[last] as string).trim() === "") last--;
  };
  skipBlank();
  if (first > last) throw invalid(1, `expected "${BEGIN}", got an empty patch`);
  const heredoc = HEREDOC.exec((lines[first] as string).trim());
  if (heredoc && last > first && (lines[last] as string).trim() === heredoc[2]) {
    first++;
    last--;
    skipBlank();
    if (first > last) throw invalid(first, `expected "${BEGIN}" inside the heredoc, got nothing`);
  }
  if ((lines[first] as string).trim() !== BEGIN) throw invalid(first + 1, `expected "${BEGIN}", got ${quote(lines[first])}`);
  if (first === last || (lines[last] as string).trim() !== END) {
    throw invalid(last + 1, `expected "${END}" as the last line, got ${first === last ? "the end of the patch" : quote(lines[last])}`);
  }
  return new Parser(lines, first + 1, last).operations();
}

class Parser {
  readonly #lines: readonly string[];
  #at: number;
  readonly #end: number;

  constructor(lines: readonly string[], start: number, end: number) {
    this.#lines = lines;
    this.#at = start;
    this.#end = end;
  }

  operations(): PatchOperation[] {
    const out: PatchOperation[] = [];
    while (this.#at < this.#end) {
      const raw = this.#lines[this.#at] as string;
      const line = raw.trim();
      if (line === "") this.#at++;
      else if (line.startsWith(ADD)) out.push(this.#add(line));
      else if (line.startsWith(DELETE)) out.push({ kind: "delete", path: this.#path(line, DELETE), line: ++this.#at });
      else if (line.startsWith(UPDATE)) out.push(this.#update(line));
      else if (line === END) throw invalid(this.#at + 1, `expected nothing after "${END}", got ${quote(this.#lines[this.#end])}`);
      else throw invalid(this.#at + 1, `expected ${OPERATIONS} or "${END}", got ${quote(raw)}`);
    }
    if (out.length === 0) throw invalid(this.#end + 1, `expected at least one of ${OPERATIONS} before "${END}"`);
    return out;
  }

  #path(line: string, marker: string): string {
    const path = line.slice(marker.length).trim();
    if (path === "") throw invalid(this.#at + 1, `expected a path after "${marker}"`);
    return path;
  }

  #add(header: string): PatchOperation {
    const path = this.#path(header, ADD);
    const line = ++this.#at;
    let text = "";
    // A blank line between "+" lines is taken as an empty line whose "+" was left out.
    for (let i = this.#at; i < this.#end; i++) {
      const raw = this.#lines[i] as string;
      if (raw.startsWith("+")) {
        for (; this.#at < i; this.#at++) text += "\n";
        text += `${raw.slice(1)}\n`;
        this.#at = i + 1;
      } else if (raw.trim() !== "") break;
    }
    return { kind: "add", path, text, line };
  }

  #update(header: string): PatchOperation {
    const path = this.#path(header, UPDATE);
    const line = ++this.#at;
    let moveTo: string | undefined;
    const next = (this.#lines[this.#at] as string).trim();
    if (this.#at < this.#end && next.startsWith(MOVE)) {
      moveTo = this.#path(next, MOVE);
      this.#at++;
    }
    const hunks: Hunk[] = [];
    while (this.#at < this.#end) {
      const raw = this.#lines[this.#at] as string;
      const trimmed = raw.trim();
      if (trimmed === "") {
        this.#at++;
        continue;
      }
      if (trimmed === EOF_MARK) throw invalid(this.#at + 1, `expected a hunk line starting with " ", "+" or "-" before "${EOF_MARK}"`);
      if (trimmed.startsWith("***")) break;
      if (trimmed.startsWith("@@")) {
        hunks.push(this.#hunk(anchorOf(trimmed), this.#at++ + 1));
      } else if (hunks.length === 0 && (raw[0] === " " || raw[0] === "+" || raw[0] === "-")) {
        hunks.push(this.#hunk(undefined, this.#at + 1));
      } else {
        throw invalid(this.#at + 1, `expected a hunk line starting with " ", "+" or "-", or "@@", got ${quote(raw)}`);
      }
    }
    if (hunks.length === 0 && moveTo === undefined) {
      throw invalid(line, `expected at least one hunk ("@@" followed by lines starting with " ", "+" or "-") after "${UPDATE} ${path}"`);
    }
    return moveTo === undefined ? { kind: "update", path, hunks, line } : { kind: "update", path, moveTo, hunks, line };
  }

  #hunk(anchor: string | undefined, line: number): Hunk {
    const lines: HunkLine[] = [];
    let endOfFile = false;
    let blanks = 0;
    for (; this.#at < this.#end; this.#at++) {
      const raw = this.#lines[this.#at] as string;
      const kind = raw[0];
      if (raw === "") {
        blanks++;
        continue;
      }
      if (kind !== " " && kind !== "+" && kind !== "-") {
        if (raw.trim() === EOF_MARK && lines.length > 0) {
          this.#pushBlanks(lines, blanks);
          blanks = 0;
          endOfFile = true;
          this.#at++;
        }
        break;
      }
      // An empty line inside a hunk is an empty context line whose " " was lost; at the hunk's end it only separates.
      this.#pushBlanks(lines, blanks);
      blanks = 0;
      lines.push({ kind, text: raw.slice(1) });
    }
    if (lines.length === 0) {
      const got = this.#at < this.#end ? quote(this.#lines[this.#at]) : `"${END}"`;
      throw invalid(this.#at + 1, `expected a hunk line starting with " ", "+" or "-" after "@@", got ${got}`);
    }
    return anchor === undefined ? { lines, endOfFile, line } : { anchor, lines, endOfFile, line };
  }

  #pushBlanks(lines: HunkLine[], count: number): void {
    for (let k = 0; k < count; k++) lines.push({ kind: " ", text: "" });
  }
}

function anchorOf(trimmed: string): string | undefined {
  const unified = UNIFIED_HEADER.exec(trimmed);
  const rest = unified ? (unified[1] as string) : trimmed.slice(2).replace(/^ /, "");
  return rest.trim() === "" ? undefined : rest;
}

function quote(line: string | undefined): string {
  return quoteInput(line ?? "", "json");
}

function invalid(line: number, expected: string): PatchError {
  return new PatchError("PATCH_INVALID", `line ${line}: ${expected}`, { details: { line } });
}
