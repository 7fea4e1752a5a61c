// grep's content mode: matching lines (and, with -A/-B/-C, context lines) grouped by file, as the page
// shows them and the spill keeps them. ripgrep's separators: `N:` for a match, `N-` for a context line, and
// `--` between groups of lines that are not adjacent (only when context was asked for).
import type { GrepEvent, ResultSink, SearchData } from "../search/backend.ts";
import { comparePaths } from "../search/engine/files.ts";
import { completeUtf8Prefix } from "../text/utf8.ts";
import { capMeta, type SpillList } from "./search.ts";

/** A line shown: a match, or a context line around one. */
export interface Match {
  readonly path: string;
  readonly lineNumber: number;
  readonly line: string;
  readonly context?: true;
}

interface Group {
  readonly path: string;
  readonly lines: Match[];
  /** Matches among `lines`. */
  matches: number;
}

/**
 * Takes grep's events as the backend finds them. The page is the first `cap` matches in path order (the
 * walk's order, which ripgrep's threads do not keep), so every backend shows the same page; it holds at most
 * `cap` matches (with their context lines), and the arrival order of the first `cap` until the spill opens.
 * Past the cap every line goes on to the spill as it arrives, rendered as the page renders it.
 *
 * A context line is held until the next match of its file (or the file's end) says where it belongs: with
 * that match when the match joins the page, else only as far as it is the after-context of the match before.
 */
export class GrepMatches implements ResultSink<GrepEvent> {
  readonly spill: SpillList;
  total = 0;
  files = 0;
  readonly #cap: number;
  readonly #lineBytes: number;
  readonly #shown: (path: string) => string;
  readonly #after: number;
  readonly #separated: boolean;
  // The page: files in path order, each with its first matches; `#paged` matches in all.
  readonly #page: Group[] = [];
  #paged = 0;
  // The file whose lines are arriving, its group on the page (undefined when it is not on it), and its
  // context lines not yet placed.
  #open: string | undefined;
  #group: Group | undefined;
  #pending: Match[] = [];
  // The first `cap` matches (and their context) in arrival order: the head of the spill, written once it opens.
  #arrived: Match[] | undefined = [];
  // The last line in the spill, to group and separate its lines as the page does.
  #spilled: Match | undefined;

  constructor(cap: number, lineBytes: number, shown: (path: string) => string, context: { before: number; after: number }, spill: SpillList) {
    this.#cap = cap;
    this.#lineBytes = lineBytes;
    this.#shown = shown;
    this.#after = context.after;
    this.#separated = context.before > 0 || context.after > 0;
    this.spill = spill;
  }

  /** The page's lines, grouped by file in path order. */
  get page(): Match[] {
    return this.#page.flatMap((group) => group.lines);
  }

  /** Lines held now: the page and the head of the spill until it opens, not what the search found. */
  get held(): number {
    return this.#page.reduce((n, g) => n + g.lines.length, 0) + this.#pending.length + (this.#arrived?.length ?? 0);
  }

  /** Renders lines as the page shows them. */
  render(lines: readonly Match[]): string {
    return render(lines, this.#separated);
  }

  push(event: GrepEvent): "stop" | void {
    if (event.type === "end") {
      if (this.#group && this.#pending.length > 0) place(this.#group, this.#pending, this.#after);
      this.#pending = [];
      this.#open = undefined;
      this.#group = undefined;
      return;
    }
    if (this.#open !== event.path) {
      this.#open = event.path;
      this.#pending = [];
      this.files++;
      this.#group = this.#admit(event.path);
    }
    const path = this.#shown(event.path);
    // A multiline match holds every line it spans; each is shown (and counted) as a matching line, as
    // `rg -U -n` prints them.
    const parts = splitLines(event.line.line);
    for (const [k, part] of parts.entries()) {
      const shown: Match = {
        path,
        lineNumber: event.line.lineNumber + k,
        line: preview(part, this.#lineBytes),
        ...(event.line.context ? { context: true as const } : {}),
      };
      if (this.#take(shown) === "stop") return "stop";
    }
  }

  #take(shown: Match): "stop" | void {
    if (shown.context) {
      // Held only for a file on the page, and only until its next match: at most -B plus -A lines.
      if (this.#group) this.#pending.push(shown);
    } else {
      this.total++;
      this.#offer(shown);
    }
    if (this.total <= this.#cap && this.#arrived) {
      this.#arrived.push(shown);
      return;
    }
    if (this.#arrived) {
      this.spill.open();
      this.spill.write(this.render(this.#arrived));
      this.#spilled = this.#arrived.at(-1);
      this.#arrived = undefined;
    }
    const last = this.#spilled;
    this.#spilled = shown;
    const line = `  ${lineText(shown)}`;
    if (last?.path !== shown.path) return this.spill.write(`\n\n${shown.path}\n${line}`);
    return this.spill.write(this.#separated && shown.lineNumber !== last.lineNumber + 1 ? `\n  --\n${line}` : `\n${line}`);
  }

  ready(): Promise<void> | undefined {
    return this.spill.ready();
  }

  // A file joins the page when the page has room or the file comes before its last one; a file after it
  // cannot displace anything, since all its matches come later in path order.
  #admit(path: string): Group | undefined {
    const page = this.#page;
    const last = page.at(-1);
    if (this.#paged >= this.#cap && last && comparePaths(path, last.path) >= 0) return undefined;
    let at = page.length;
    while (at > 0 && comparePaths(path, (page[at - 1] as Group).path) < 0) at--;
    const group: Group = { path, lines: [], matches: 0 };
    page.splice(at, 0, group);
    return group;
  }

  // Adds a match of the arriving file to its group (after its pending context), dropping the page's last
  // match when it is full; a refused match closes the file's group to anything further.
  #offer(match: Match): void {
    const group = this.#group;
    if (!group) return;
    if (this.#paged >= this.#cap) {
      const last = this.#page.at(-1) as Group;
      if (last === group) {
        // The arriving file is the last one on the page: its further matches come after everything there.
        place(group, this.#pending, this.#after);
        this.#pending = [];
        this.#group = undefined;
        if (group.matches === 0) this.#page.pop();
        return;
      }
      this.#dropLast(last);
    }
    group.lines.push(...this.#pending, match);
    this.#pending = [];
    group.matches++;
    this.#paged++;
  }

  // Drops the last match of the page's last group, the context after it, and the context before it that is
  // not after-context of the match before; and the group when no match is left in it.
  #dropLast(group: Group): void {
    const lines = group.lines;
    while (lines.length > 0 && (lines.at(-1) as Match).context) lines.pop();
    lines.pop();
    group.matches--;
    this.#paged--;
    let end = lines.length;
    while (end > 0 && (lines[end - 1] as Match).context) end--;
    place(group, lines.splice(end), this.#after);
    if (group.matches === 0) this.#page.pop();
  }
}

// Of context lines that followed the group's last match, those that are its after-context: adjacent to it,
// up to -A lines.
function place(group: Group, context: readonly Match[], after: number): void {
  const last = group.lines.at(-1);
  if (!last) return;
  let next = last.lineNumber + 1;
  for (const line of context) {
    if (line.lineNumber !== next || next - last.lineNumber > after) break;
    group.lines.push(line);
    next++;
  }
}

function lineText(line: Match): string {
  return `${line.lineNumber}${line.context ? "-" : ":"} ${line.line}`;
}

function render(lines: readonly Match[], separated: boolean): string {
  const out: string[] = [];
  let previous: Match | undefined;
  for (const line of lines) {
    if (line.path !== previous?.path) {
      if (previous !== undefined) out.push("");
      out.push(line.path);
    } else if (separated && line.lineNumber !== previous.lineNumber + 1) {
      out.push("  --");
    }
    out.push(`  ${lineText(line)}`);
    previous = line;
  }
  return out.join("\n");
}

/** The page as meta: files with their lines (context lines marked), capped to `maxBytes`. */
export function matchesMeta(lines: readonly Match[], total: number, paged: number, maxBytes: number): Record<string, unknown> {
  const files: { path: string; matches: { lineNumber: number; line: string; context?: true }[] }[] = [];
  for (const line of lines) {
    const last = files.at(-1);
    const entry = { lineNumber: line.lineNumber, line: line.line, ...(line.context ? { context: true as const } : {}) };
    if (last?.path === line.path) last.matches.push(entry);
    else files.push({ path: line.path, matches: [entry] });
  }
  return capMeta({ shape: "matches", files, truncated: total > paged, total }, "files", maxBytes);
}

/** The lines of a message (more than one for a multiline match), each with its terminator. */
export function splitLines(data: SearchData): SearchData[] {
  if ("text" in data) {
    const text = data.text;
    const nl = text.indexOf("\n");
    if (nl === -1 || nl === text.length - 1) return [data];
    return (text.match(/[^\n]*\n|[^\n]+$/g) ?? [text]).map((line) => ({ text: line }));
  }
  const bytes = data.bytes;
  const out: SearchData[] = [];
  for (let start = 0; start < bytes.length; ) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl === -1 ? bytes.length : nl + 1;
    out.push({ bytes: bytes.subarray(start, end) });
    start = end;
  }
  return out.length > 0 ? out : [data];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

// The line without its terminator, cut to `maxBytes` on a character boundary.
function preview(data: SearchData, maxBytes: number): string {
  if (!("text" in data)) return "[this line is not valid UTF-8; read the file to see it]";
  let text = data.text;
  if (text.endsWith("\n")) text = text.slice(0, text.endsWith("\r\n") ? -2 : -1);
  if (text.length <= maxBytes / 4) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  return `${decoder.decode(bytes.subarray(0, completeUtf8Prefix(bytes, maxBytes)))} … [line cut at ${maxBytes} bytes]`;
}
