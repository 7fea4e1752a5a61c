import { z } from "zod";
import { quoteInput } from "../errors/mod.ts";
import { baseName } from "../fs/paths.ts";
import { RIPGREP_TYPES } from "../search/engine/type-list.ts";
import { streamMatches } from "../search/stream.ts";
import { type FileCount, GrepFileCounts } from "./grep-files.ts";
import { GrepMatches, matchesMeta } from "./grep-lines.ts";
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
  readonly "-A"?: number | undefined;
  readonly "-B"?: number | undefined;
  readonly "-C"?: number | undefined;
  readonly multiline?: boolean | undefined;
}

/** The most context lines on either side of a match: enough to read a hit, and a bound on the page. */
export const MAX_CONTEXT = 10;

/** What grep answers: matching lines (the default), the files that have one, or how many each has. */
export type OutputMode = "content" | "files_with_matches" | "count";

/** `grep`: lines matching a ripgrep regular expression, grouped by file. */
export function grepTool(env: ToolEnv): Tool<GrepArgs> {
  const cap = env.limits.grepMaxMatches;
  return {
    name: "grep",
    mutates: false,
    description:
      "Search file contents with a ripgrep regular expression (case-sensitive unless -i). Matching " +
      `lines come grouped by file with line numbers (or see output_mode), ` +
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
          .describe('"content" (default): matching lines; "files_with_matches": paths; "count": matching lines per file'),
        "-A": contextArg("after each match"),
        "-B": contextArg("before each match"),
        "-C": contextArg("before and after each match"),
        "-i": z.boolean().optional().describe("Case-insensitive"),
        type: z.string().min(1).optional().describe('File type (rg --type), such as "js", "py" or "rust"'),
        multiline: z.boolean().optional().describe("Let a match span lines (rg -U): \\n matches a line break; . does not unless (?s)"),
      })
      .strict(),
    guidance:
      "grep searches contents with a ripgrep regex and skips hidden, ignored and binary files unless include or path " +
      `names them${env.has("read") ? "; read a match's file for context" : ""}.`,
    run: (args, call) => runGrep(env, args, call),
  };
}

function contextArg(where: string) {
  return z.number().int().min(0).max(MAX_CONTEXT).optional().describe(`Context lines ${where} (content mode)`);
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
  // As in ripgrep, -A and -B override -C; context means nothing to the per-file modes.
  const around = mode === "content" ? (args["-C"] ?? 0) : 0;
  const context = mode === "content" ? { before: args["-B"] ?? around, after: args["-A"] ?? around } : { before: 0, after: 0 };
  const spill = new SpillList(env, "grep", call);
  const found =
    mode === "content"
      ? new GrepMatches(cap, limits.grepLineBytes, shown, context, spill)
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
        ...(args.multiline ? { multiline: true } : {}),
        ...(context.before > 0 || context.after > 0 ? { context } : {}),
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
    return { content, meta: { ...matchesMeta([], 0, 0, limits.searchMetaBytes), ...fellBack.meta } };
  }
  if (total === 0) {
    const skipped = root.type === "file" ? "" : " (hidden, ignored and binary files were skipped; name them with path or include to search them)";
    return {
      content: `No matches for ${quoteInput(args.pattern, "json")}${where}${skipped}.${note}`,
      meta: { ...matchesMeta([], 0, 0, limits.searchMetaBytes), ...fellBack.meta },
    };
  }
  if (found instanceof GrepFileCounts) return fileModeOutput(env, mode, found, stopped, note, fellBack.meta);
  const page = found.page;
  if (total <= cap) {
    const header = `Found ${plural(total, "match", "matches")} in ${plural(files, "file")}.`;
    return { content: `${header}\n\n${found.render(page)}${note}`, meta: { ...matchesMeta(page, total, total, limits.searchMetaBytes), ...fellBack.meta } };
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
    content: `${header}\n\n${found.render(page)}\n\n(${recovery})${note}`,
    meta: {
      ...matchesMeta(page, total, cap, limits.searchMetaBytes),
      ...fellBack.meta,
      ...(stopped ? { lowerBound: true } : {}),
      ...(saved ? { spill: saved.locator } : {}),
    },
    ...(saved?.parts ? { parts: saved.parts } : {}),
  };
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
