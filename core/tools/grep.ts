import { z } from "zod";
import { quoteInput } from "../errors/mod.ts";
import { baseName } from "../fs/paths.ts";
import type { GrepEvent, ResultSink, SearchData } from "../search/backend.ts";
import { comparePaths } from "../search/engine/files.ts";
import { RIPGREP_TYPES } from "../search/engine/type-list.ts";
import { streamMatches } from "../search/stream.ts";
import { completeUtf8Prefix } from "../text/utf8.ts";
import { type FileCount, GrepFileCounts } from "./grep-files.ts";
import { ToolError } from "./types.ts";
import { backendOf, capMeta, fallbackNote, grouped, problemsNote, searchRoot, SpillList } from "./search.ts";
import { type CallContext, otherRoots, plural, type Tool, type ToolEnv, type ToolOutput } from "./tool.ts";

export interface GrepArgs {
  readonly pattern: string;
  readonly path?: string | undefined;
  readonly include?: string | undefined;
  readonly output_mode?: OutputMode | undefined;
  readonly "-i"?: boolean | undefined;
  readonly type?: string | undefined;
}

/** What grep answers: matching lines (the default), the files that have one, or how many each has. */
export type OutputMode = "content" | "files_with_matches" | "count";

interface Match {
  readonly path: string;
  readonly lineNumber: number;
  readonly line: string;
}

/** `grep`: lines matching a ripgrep regular expression, grouped by file. */
export function grepTool(env: ToolEnv): Tool<GrepArgs> {
  const cap = env.limits.grepMaxMatches;
  return {
    name: "grep",
    mutates: false,
    description:
      "Search file contents with a ripgrep regular expression (case-sensitive unless -i). Matching " +
      `lines come grouped by file with line numbers (output_mode "files_with_matches" lists the files, "count" counts per file), ` +
      `up to ${cap}${env.spill ? "; the footer says where the rest is" : ""}. Skips hidden ` +
      "files, files ignored by .gitignore/.ignore/.rgignore, and binary files; include overrides the first two.",
    schema: z
      .object({
        pattern: z.string().min(1).describe("Regular expression (ripgrep syntax)"),
        path: z
          .string()
          .min(1)
          .optional()
          .describe(`File or directory to search (default: the working directory)${otherRoots(env.roots)}`),
        include: z.string().optional().describe('One glob for the files to search, such as "*.ts" or "*.{js,jsx}"'),
        output_mode: z
          .enum(["content", "files_with_matches", "count"])
          .optional()
          .describe('"content" (default): matching lines with line numbers; "files_with_matches": paths only; "count": matching lines per file'),
        "-i": z.boolean().optional().describe("Case-insensitive search (rg -i)"),
        type: z.string().min(1).optional().describe('File type to search (rg --type), such as "js", "py", "rust", "go" or "java"; ripgrep\'s type list'),
      })
      .strict(),
    guidance:
      "grep searches contents with a ripgrep regex and skips hidden, ignored and binary files unless include or path " +
      `names them${env.has("read") ? "; read a match's file for context" : ""}.`,
    run: (args, call) => runGrep(env, args, call),
  };
}

function checkType(type: string | undefined): void {
  if (type === undefined || Object.hasOwn(RIPGREP_TYPES, type) || type === "all") return;
  throw new ToolError(
    "TOOL_INVALID_ARGUMENTS",
    `Invalid arguments for grep: type ${quoteInput(type, "json")} is not one of ripgrep's file types (such as js, ts, py, rust, go, java, md, json); ` +
      'for other files give include a glob such as "*.ext"',
  );
}

function checkInclude(include: string | undefined): void {
  if (include === undefined) return;
  let problem: string | undefined;
  if (include.trim() === "") problem = "include is blank; give one glob such as *.ts, or leave it out";
  else if (include.startsWith("!")) problem = "include cannot be negated; give the files to search, such as *.ts";
  else {
    let depth = 0;
    for (const char of include) {
      if (char === "{") depth++;
      else if (char === "}") depth = Math.max(0, depth - 1);
      else if (char === "," && depth === 0) {
        problem = `include is one glob, not a list; write several as {a,b}, such as *.{ts,tsx}`;
        break;
      }
    }
  }
  if (problem) throw new ToolError("TOOL_INVALID_ARGUMENTS", `Invalid arguments for grep: ${problem}`);
}

async function runGrep(env: ToolEnv, args: GrepArgs, call: CallContext): Promise<ToolOutput> {
  checkInclude(args.include);
  checkType(args.type);
  const backend = backendOf(env, call);
  const root = await searchRoot(env, args.path, call, "grep");
  const { limits } = env;
  const key = root.target.key;
  const cwd = root.type === "directory" ? key : key.slice(0, key.lastIndexOf("/")) || "/";
  const cap = limits.grepMaxMatches;
  const shown = root.type === "file" ? () => root.shown : root.display;
  const mode = args.output_mode ?? "content";
  const spill = new SpillList(env, "grep", call);
  const found =
    mode === "content"
      ? new GrepMatches(cap, limits.grepLineBytes, shown, spill)
      : new GrepFileCounts(cap, shown, mode === "count" ? renderCount : (f) => f.path, spill);
  let outcome;
  try {
    outcome = await streamMatches(
      backend,
      {
        cwd,
        pattern: args.pattern,
        ...(root.type === "file" ? { paths: [baseName(key)] } : {}),
        ...(args.include === undefined ? {} : { globs: [{ glob: args.include }] }),
        ...(args.type === undefined ? {} : { types: [args.type] }),
        ...(args["-i"] ? { caseInsensitive: true } : {}),
        timeoutMs: limits.searchTimeoutMs,
        ...(call.signal ? { signal: call.signal } : {}),
      },
      found,
    );
  } catch (error) {
    await found.spill.abort();
    throw error;
  }
  const { total, files } = found;
  const stopped = outcome.stopped;
  const fellBack = fallbackNote(outcome);
  const note = problemsNote(outcome.problems) + fellBack.note;
  const where = args.path === undefined ? "" : ` in ${root.shown}`;
  if (total === 0 && outcome.nothingSearched) {
    // ripgrep's "No files were searched", on both backends: there was nothing to look in, which is not "no match".
    const content =
      `No files were searched${where}: grep skips hidden files, files ignored by .gitignore/.ignore/.rgignore` +
      `${args.include === undefined ? "" : ", files include does not match"}${args.type === undefined ? "" : `, files not of type ${args.type}`} and symbolic links, and that left none. ` +
      "To search such a file, name it or its folder with path, or give include a glob that matches it (include brings back hidden and ignored files)." +
      note;
    return { content, meta: { ...meta([], 0, limits.searchMetaBytes), ...fellBack.meta } };
  }
  if (total === 0) {
    const skipped = root.type === "file" ? "" : " (hidden, ignored and binary files were skipped; name them with path or include to search them)";
    return {
      content: `No matches for ${quoteInput(args.pattern, "json")}${where}${skipped}.${note}`,
      meta: { ...meta([], 0, limits.searchMetaBytes), ...fellBack.meta },
    };
  }
  if (found instanceof GrepFileCounts) return fileModeOutput(env, mode, found, stopped, note, fellBack.meta);
  const page = found.page;
  if (total <= cap) {
    const header = `Found ${plural(total, "match", "matches")} in ${plural(files, "file")}.`;
    return { content: `${header}\n\n${render(page)}${note}`, meta: { ...meta(page, total, limits.searchMetaBytes), ...fellBack.meta } };
  }
  found.spill.write("\n");
  const saved = await found.spill.finish(
    stopped ? `the first ${grouped(total)} matches, by file (the search stopped at the spill limit)` : `all ${grouped(total)} matches, by file`,
  );
  const recovery = saved
    ? stopped
      ? `The search stopped once the full list passed ${limits.spillBytes} bytes; its first ${total} matches are in ${saved.locator}; ${saved.hint}. Narrow pattern, path or include to see the rest.`
      : `All ${total} matches are in ${saved.locator}; ${saved.hint}.`
    : env.spill
      ? `${found.spill.notSaved()}; narrow pattern, path or include to see the rest.`
      : "Narrow pattern, path or include to see the rest.";
  const shownFiles = new Set(page.map((m) => m.path)).size;
  const atLeast = stopped ? "at least " : "";
  const header = `Found ${atLeast}${total} matches in ${atLeast}${plural(files, "file")}; showing the first ${cap} (in ${plural(shownFiles, "file")}).`;
  return {
    content: `${header}\n\n${render(page)}\n\n(${recovery})${note}`,
    meta: {
      ...meta(page, total, limits.searchMetaBytes),
      ...fellBack.meta,
      ...(stopped ? { lowerBound: true } : {}),
      ...(saved ? { spill: saved.locator } : {}),
    },
    ...(saved?.parts ? { parts: saved.parts } : {}),
  };
}

/**
 * Takes grep's events as the backend finds them. The page is the first `cap` matches in path order (the
 * walk's order, which ripgrep's threads do not keep), so every backend shows the same page; it holds at most
 * `cap` matches, and the arrival order of the first `cap` until the spill opens. Past the cap every match goes
 * on to the spill as it arrives, rendered as the page renders it.
 */
class GrepMatches implements ResultSink<GrepEvent> {
  readonly spill: SpillList;
  total = 0;
  files = 0;
  readonly #cap: number;
  readonly #lineBytes: number;
  readonly #shown: (path: string) => string;
  // The page: files in path order, each with its first matches; `#paged` matches in all.
  readonly #page: { readonly path: string; readonly matches: Match[] }[] = [];
  #paged = 0;
  // The file whose lines are arriving, and its group on the page (undefined when it is not on it).
  #open: string | undefined;
  #group: { readonly path: string; readonly matches: Match[] } | undefined;
  // The first `cap` matches in arrival order: the head of the spill, written once it opens.
  #arrived: Match[] | undefined = [];
  // The path of the last match in the spill, to group its lines as the page does.
  #spilledPath: string | undefined;

  constructor(cap: number, lineBytes: number, shown: (path: string) => string, spill: SpillList) {
    this.#cap = cap;
    this.#lineBytes = lineBytes;
    this.#shown = shown;
    this.spill = spill;
  }

  /** The page's matches, grouped by file in path order. */
  get page(): Match[] {
    return this.#page.flatMap((group) => group.matches);
  }

  /** Matches held now: the page and the head of the spill until it opens, not what the search found. */
  get held(): number {
    return this.#paged + (this.#arrived?.length ?? 0);
  }

  push(event: GrepEvent): "stop" | void {
    if (event.type === "end") {
      this.#open = undefined;
      this.#group = undefined;
      return;
    }
    if (this.#open !== event.path) {
      this.#open = event.path;
      this.files++;
      this.#group = this.#admit(event.path);
    }
    const total = ++this.total;
    const match = { path: this.#shown(event.path), lineNumber: event.line.lineNumber, line: preview(event.line.line, this.#lineBytes) };
    this.#offer(match);
    if (total <= this.#cap) {
      this.#arrived?.push(match);
      return;
    }
    if (this.#arrived) {
      this.spill.open();
      this.spill.write(render(this.#arrived));
      this.#spilledPath = this.#arrived.at(-1)?.path;
      this.#arrived = undefined;
    }
    const text = match.path === this.#spilledPath ? `\n  ${match.lineNumber}: ${match.line}` : `\n\n${match.path}\n  ${match.lineNumber}: ${match.line}`;
    this.#spilledPath = match.path;
    return this.spill.write(text);
  }

  ready(): Promise<void> | undefined {
    return this.spill.ready();
  }

  // A file joins the page when the page has room or the file comes before its last one; a file after it
  // cannot displace anything, since all its matches come later in path order.
  #admit(path: string): { readonly path: string; readonly matches: Match[] } | undefined {
    const page = this.#page;
    const last = page.at(-1);
    if (this.#paged >= this.#cap && last && comparePaths(path, last.path) >= 0) return undefined;
    let at = page.length;
    while (at > 0 && comparePaths(path, (page[at - 1] as { path: string }).path) < 0) at--;
    const group = { path, matches: [] };
    page.splice(at, 0, group);
    return group;
  }

  // Adds a match of the arriving file to its group, dropping the page's last match when it is full.
  #offer(match: Match): void {
    const group = this.#group;
    if (!group) return;
    if (this.#paged >= this.#cap) {
      const last = this.#page.at(-1) as { matches: Match[] };
      // The arriving file is the last one on the page: its further matches come after everything there.
      if (last === group) return;
      last.matches.pop();
      this.#paged--;
      if (last.matches.length === 0) this.#page.pop();
    }
    group.matches.push(match);
    this.#paged++;
  }
}

function renderCount(file: FileCount): string {
  return `${file.path}: ${file.count}`;
}

// The per-file modes' answer: the page of files (with counts in count mode), and past the cap the footer.
async function fileModeOutput(
  env: ToolEnv,
  mode: OutputMode,
  found: GrepFileCounts,
  stopped: boolean,
  note: string,
  fellBackMeta: { searchedBy?: string },
): Promise<ToolOutput> {
  const { limits } = env;
  const cap = limits.grepMaxMatches;
  const { total, files, page } = found;
  const counting = mode === "count";
  const render = counting ? renderCount : (f: FileCount) => f.path;
  const list = page.map(render).join("\n");
  const metaOf = () => ({
    ...capMeta(
      {
        shape: counting ? "counts" : "paths",
        files: page.map((f) => (counting ? { path: f.path, count: f.count } : f.path)),
        truncated: files > page.length,
        total: files,
        ...(counting ? { matches: total } : {}),
      },
      "files",
      limits.searchMetaBytes,
    ),
    ...fellBackMeta,
  });
  const matches = counting ? ` (${plural(total, "matching line")})` : "";
  if (files <= cap) {
    return { content: `Found ${plural(files, "file")} with matches${matches}.\n\n${list}${note}`, meta: metaOf() };
  }
  const what = counting ? "files with their counts" : "files";
  const saved = await found.spill.finish(
    stopped ? `the first ${grouped(files)} ${what} (the search stopped at the spill limit)` : `all ${grouped(files)} ${what}, in the order found`,
  );
  const recovery = saved
    ? stopped
      ? `The search stopped once the full list passed ${limits.spillBytes} bytes; its first ${files} files are in ${saved.locator}; ${saved.hint}. Narrow pattern, path or include to see the rest.`
      : `All ${files} files are in ${saved.locator}; ${saved.hint}.`
    : env.spill
      ? `${found.spill.notSaved()}; narrow pattern, path or include to see the rest.`
      : "Narrow pattern, path or include to see the rest.";
  const atLeast = stopped ? "at least " : "";
  const header = `Found ${atLeast}${files} files with matches${matches}; showing the first ${cap} in path order.`;
  return {
    content: `${header}\n\n${list}\n\n(${recovery})${note}`,
    meta: { ...metaOf(), ...(stopped ? { lowerBound: true } : {}), ...(saved ? { spill: saved.locator } : {}) },
    ...(saved?.parts ? { parts: saved.parts } : {}),
  };
}

function render(matches: readonly Match[]): string {
  const out: string[] = [];
  let current: string | undefined;
  for (const match of matches) {
    if (match.path !== current) {
      if (current !== undefined) out.push("");
      out.push(match.path);
      current = match.path;
    }
    out.push(`  ${match.lineNumber}: ${match.line}`);
  }
  return out.join("\n");
}

function meta(matches: readonly Match[], total: number, maxBytes: number): Record<string, unknown> {
  const files: { path: string; matches: { lineNumber: number; line: string }[] }[] = [];
  for (const match of matches) {
    const last = files.at(-1);
    const entry = { lineNumber: match.lineNumber, line: match.line };
    if (last?.path === match.path) last.matches.push(entry);
    else files.push({ path: match.path, matches: [entry] });
  }
  return capMeta({ shape: "matches", files, truncated: total > matches.length, total }, "files", maxBytes);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

// The matched line without its terminator, cut to `maxBytes` on a character boundary.
function preview(data: SearchData, maxBytes: number): string {
  if (!("text" in data)) return "[this line is not valid UTF-8; read the file to see it]";
  let text = data.text;
  if (text.endsWith("\n")) text = text.slice(0, text.endsWith("\r\n") ? -2 : -1);
  if (text.length <= maxBytes / 4) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  return `${decoder.decode(bytes.subarray(0, completeUtf8Prefix(bytes, maxBytes)))} … [line cut at ${maxBytes} bytes]`;
}
