import { z } from "zod";
import { quoteInput } from "../errors/mod.ts";
import { FsError } from "../fs/errors.ts";
import { sampleAcrossEntries } from "../search/sample.ts";
import { ToolError } from "./types.ts";
import { backendOf, capMeta, problemsNote, searchRoot, spill } from "./search.ts";
import { type CallContext, type Tool, type ToolEnv, type ToolOutput } from "./tool.ts";

export interface GlobArgs {
  readonly pattern: string;
  readonly path?: string | undefined;
}

const VCS = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];
// After the user's glob, so that a pattern like `*` or `**` cannot re-include them (the last matching rule
// wins): the bare name prunes the directory at any depth, the `/**` form its contents below the root.
const VCS_EXCLUDES = VCS.flatMap((name) => [{ glob: `!${name}` }, { glob: `!${name}/**` }]);

/** `glob`: files matching a pattern, oldest first; an over-cap page is sampled across top-level entries. */
export function globTool(env: ToolEnv): Tool<GlobArgs> {
  const cap = env.limits.globMaxResults;
  const overCap =
    env.overCap === "sample"
      ? `a larger result shows ${cap} paths sampled across the top-level entries under the search root`
      : `a larger result shows the ${cap} oldest`;
  return {
    name: "glob",
    mutates: false,
    description:
      `List files (never directories) whose path matches a glob, oldest first. A pattern without "/" matches file ` +
      `names at any depth: "*" is every file in the tree, "*.ts" every .ts file; with "/" it matches the path from ` +
      `the search root ("src/**/*.ts"). Hidden and ignored files are included, VCS folders are not. Up to ${cap} ` +
      `paths; ${overCap}${env.spill ? ", and the footer says where the complete list is" : ""}.`,
    schema: z
      .object({
        pattern: z.string().describe('Glob such as "*.ts", "src/**/*.test.ts" or "{a,b}/*.md"'),
        path: z.string().min(1).optional().describe("Directory to search (default: the working directory)"),
      })
      .strict(),
    guidance:
      'glob lists files, never directories; a pattern without "/" matches names at any depth, so "*" is the whole ' +
      `tree. Over ${cap} results, the page is ${env.overCap === "sample" ? "a sample across top-level entries" : "the oldest"}` +
      `${env.spill ? " and the footer says where the full list is" : ""}.` +
      (env.has("bash") ? " To see one directory's entries, use ls in bash." : ""),
    run: (args, call) => runGlob(env, args, call),
  };
}

function checkPattern(pattern: string): void {
  const problem =
    pattern.trim() === ""
      ? "pattern is blank; give a glob such as *.ts"
      : pattern.startsWith("#")
        ? "a pattern starting with # is read as a comment by ripgrep; escape it as \\#"
        : pattern.startsWith("!")
          ? "negated patterns are not supported; to match a name starting with !, escape it as \\!"
          : /\s$/.test(pattern) && !/\\\s$/.test(pattern)
            ? "the pattern ends in whitespace, which ripgrep drops; remove it, or escape a real trailing space as '\\ '"
            : undefined;
  if (problem) throw new ToolError("TOOL_INVALID_ARGUMENTS", `Invalid arguments for glob: ${problem}`);
}

async function runGlob(env: ToolEnv, args: GlobArgs, call: CallContext): Promise<ToolOutput> {
  checkPattern(args.pattern);
  const backend = backendOf(env);
  const root = await searchRoot(env, args.path, call, "glob");
  if (root.type !== "directory") {
    throw new FsError("FS_NOT_DIRECTORY", `Cannot glob in "${root.shown}": it is a file; glob searches a directory`, {
      details: { path: root.target.displayPath },
    });
  }
  const { limits } = env;
  const result = await backend.files({
    cwd: root.target.key,
    globs: [{ glob: args.pattern }, ...VCS_EXCLUDES],
    hidden: true,
    noIgnore: true,
    sort: { by: "modified" },
    timeoutMs: limits.searchTimeoutMs,
    maxOutputBytes: limits.searchRawBytes,
    ...(call.signal ? { signal: call.signal } : {}),
  });
  const all = result.paths;
  const where = args.path === undefined ? "" : ` in ${root.shown}`;
  const note = problemsNote(result.problems);
  const cap = limits.globMaxResults;
  const meta = (page: readonly string[]) =>
    capMeta({ shape: "paths", root: root.shown, paths: page.map(root.display), truncated: all.length > page.length, total: all.length }, "paths", limits.searchMetaBytes);
  if (all.length === 0) return { content: `No files match ${quoteInput(args.pattern)}${where}.${note}`, meta: meta([]) };
  if (all.length <= cap) return { content: root.displayLines(all) + note, meta: meta(all) };

  const sample = env.overCap === "sample" ? sampleAcrossEntries(all, cap) : undefined;
  const flat = sample !== undefined && sample.entriesTotal === all.length;
  const page = sample && !flat ? sample.paths : all.slice(0, cap);
  const saved = await spill(env, "glob", `${root.displayLines(all)}\n`, call);
  const narrowed = sample !== undefined && !flat && sample.entriesShown < sample.entriesTotal;
  const recovery = saved
    ? ` The full list, oldest first, is in ${saved.locator}; ${saved.hint}.`
    : env.spill
      ? " The full list could not be saved; narrow pattern or path to see the rest."
      : narrowed
        ? ""
        : " Narrow pattern or path to see the rest.";
  let head: string;
  if (sample && !flat) {
    const entries =
      sample.entriesShown === sample.entriesTotal
        ? `all ${sample.entriesTotal} top-level entries`
        : `${sample.entriesShown} of ${sample.entriesTotal} top-level entries`;
    const narrow = narrowed ? "; narrow path to one entry to list it whole" : "";
    head = `Showing ${page.length} of ${all.length} paths: a sample across ${entries}, not the oldest ${page.length}${narrow}.`;
  } else {
    head = `Showing the oldest ${page.length} of ${all.length} paths.`;
  }
  return {
    content: `${root.displayLines(page)}\n\n(${head}${recovery})${note}`,
    meta: { ...meta(page), ...(saved ? { spill: saved.locator } : {}) },
  };
}
