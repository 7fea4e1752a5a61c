import { z } from "zod";
import { quoteInput } from "../errors/mod.ts";
import { baseName } from "../fs/paths.ts";
import type { SearchData } from "../search/backend.ts";
import { completeUtf8Prefix } from "../text/utf8.ts";
import { ToolError } from "./types.ts";
import { backendOf, capMeta, problemsNote, searchRoot, spill } from "./search.ts";
import { type CallContext, plural, type Tool, type ToolEnv, type ToolOutput } from "./tool.ts";

export interface GrepArgs {
  readonly pattern: string;
  readonly path?: string | undefined;
  readonly include?: string | undefined;
}

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
      "Search file contents with a ripgrep regular expression (case-sensitive; (?i) for case-insensitive). Matching " +
      `lines come grouped by file with line numbers, up to ${cap}${env.spill ? "; the footer says where the rest is" : ""}. Skips hidden ` +
      "files, files ignored by .gitignore/.ignore/.rgignore, and binary files; include overrides the first two.",
    schema: z
      .object({
        pattern: z.string().min(1).describe("Regular expression (ripgrep syntax)"),
        path: z.string().min(1).optional().describe("File or directory to search (default: the working directory)"),
        include: z.string().optional().describe('One glob for the files to search, such as "*.ts" or "*.{js,jsx}"'),
      })
      .strict(),
    guidance:
      "grep searches contents with a ripgrep regex and skips hidden, ignored and binary files unless include or path " +
      `names them${env.has("read") ? "; read a match's file for context" : ""}.`,
    run: (args, call) => runGrep(env, args, call),
  };
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
  const backend = backendOf(env);
  const root = await searchRoot(env, args.path, call, "grep");
  const { limits } = env;
  const key = root.target.key;
  const cwd = root.type === "directory" ? key : key.slice(0, key.lastIndexOf("/")) || "/";
  const result = await backend.grep({
    cwd,
    pattern: args.pattern,
    ...(root.type === "file" ? { paths: [baseName(key)] } : {}),
    ...(args.include === undefined ? {} : { globs: [{ glob: args.include }] }),
    timeoutMs: limits.searchTimeoutMs,
    maxOutputBytes: limits.searchRawBytes,
    ...(call.signal ? { signal: call.signal } : {}),
  });
  const matches: Match[] = [];
  for (const file of result.files) {
    const path = root.type === "file" ? root.shown : root.display(file.path);
    for (const line of file.lines) matches.push({ path, lineNumber: line.lineNumber, line: preview(line.line, limits.grepLineBytes) });
  }
  const note = problemsNote(result.problems);
  const where = args.path === undefined ? "" : ` in ${root.shown}`;
  if (matches.length === 0 && result.nothingSearched) {
    // ripgrep's "No files were searched", on both backends: there was nothing to look in, which is not "no match".
    const content =
      `No files were searched${where}: grep skips hidden files, files ignored by .gitignore/.ignore/.rgignore` +
      `${args.include === undefined ? "" : ", files include does not match"} and symbolic links, and that left none. ` +
      "To search such a file, name it or its folder with path, or give include a glob that matches it (include brings back hidden and ignored files)." +
      note;
    return { content, meta: meta([], 0, limits.searchMetaBytes) };
  }
  if (matches.length === 0) {
    const skipped = root.type === "file" ? "" : " (hidden, ignored and binary files were skipped; name them with path or include to search them)";
    return { content: `No matches for ${quoteInput(args.pattern, "json")}${where}${skipped}.${note}`, meta: meta([], 0, limits.searchMetaBytes) };
  }
  const files = new Set(matches.map((m) => m.path)).size;
  const cap = limits.grepMaxMatches;
  if (matches.length <= cap) {
    const header = `Found ${plural(matches.length, "match", "matches")} in ${plural(files, "file")}.`;
    return { content: `${header}\n\n${render(matches)}${note}`, meta: meta(matches, matches.length, limits.searchMetaBytes) };
  }
  const page = matches.slice(0, cap);
  const complete = `Found ${matches.length} matches in ${plural(files, "file")}.\n\n${render(matches)}\n`;
  const saved = await spill(env, "grep", complete, call);
  const recovery = saved
    ? `All ${matches.length} matches are in ${saved.locator}; ${saved.hint}.`
    : env.spill
      ? "The complete list could not be saved; narrow pattern, path or include to see the rest."
      : "Narrow pattern, path or include to see the rest.";
  const shownFiles = new Set(page.map((m) => m.path)).size;
  const header = `Found ${matches.length} matches in ${plural(files, "file")}; showing the first ${cap} (in ${plural(shownFiles, "file")}).`;
  return {
    content: `${header}\n\n${render(page)}\n\n(${recovery})${note}`,
    meta: { ...meta(page, matches.length, limits.searchMetaBytes), ...(saved ? { spill: saved.locator } : {}) },
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
const decoder = new TextDecoder();

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
