import { z } from "zod";
import { quoteInput } from "../errors/mod.ts";
import { FsError } from "../fs/errors.ts";
import type { ResultSink } from "../search/backend.ts";
import { EntrySampler, type StreamedSample } from "../search/sample.ts";
import { streamPaths } from "../search/stream.ts";
import { ToolError } from "./types.ts";
import { backendOf, capMeta, fallbackNote, grouped, problemsNote, type SearchRoot, searchRoot, SpillList } from "./search.ts";
import { type CallContext, otherRoots, type Tool, type ToolEnv, type ToolOutput } from "./tool.ts";

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
        path: z
          .string()
          .min(1)
          .optional()
          .describe(`Directory to search (default: the working directory)${otherRoots(env.roots)}`),
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
  const backend = backendOf(env, call);
  const root = await searchRoot(env, args.path, call, "glob");
  if (root.type !== "directory") {
    throw new FsError("FS_NOT_DIRECTORY", `Cannot glob in "${root.shown}": it is a file; glob searches a directory`, {
      details: { path: root.target.displayPath },
    });
  }
  const { limits } = env;
  const cap = limits.globMaxResults;
  const listing = new GlobListing(cap, env.overCap === "sample", root, new SpillList(env, "glob", call));
  let outcome;
  try {
    outcome = await streamPaths(
      backend,
      {
        cwd: root.target.key,
        globs: [{ glob: args.pattern }, ...VCS_EXCLUDES],
        hidden: true,
        noIgnore: true,
        sort: { by: "modified" },
        timeoutMs: limits.searchTimeoutMs,
        ...(call.signal ? { signal: call.signal } : {}),
      },
      listing,
    );
  } catch (error) {
    await listing.spill.abort();
    throw error;
  }
  const total = listing.total;
  const stopped = outcome.stopped;
  const where = args.path === undefined ? "" : ` in ${root.shown}`;
  const fellBack = fallbackNote(outcome);
  const note = problemsNote(outcome.problems) + fellBack.note;
  const meta = (page: readonly string[]) => ({
    ...capMeta({ shape: "paths", root: root.shown, paths: page.map(root.display), truncated: total > page.length, total }, "paths", limits.searchMetaBytes),
    ...(stopped ? { lowerBound: true } : {}),
    ...fellBack.meta,
  });
  if (total === 0) return { content: `No files match ${quoteInput(args.pattern)}${where}.${note}`, meta: meta([]) };
  if (total <= cap) return { content: root.displayLines(listing.head) + note, meta: meta(listing.head) };

  const sample = listing.sample();
  // One entry, or entries that are all files: round robin picks the head, so the page is the plain oldest one.
  const flat = sample !== undefined && (sample.flat || (sample.entriesExact && sample.entriesTotal === 1));
  // Entries that interleave by age can also give the oldest paths; then "not the oldest" would be false.
  const oldest = sample !== undefined && !flat && isOldestPage(sample.paths, listing.head);
  const page = sample && !flat ? sample.paths : listing.head;
  const saved = await listing.spill.finish(
    stopped ? `the first ${grouped(total)} paths, oldest first (the search stopped at the spill limit)` : `all ${grouped(total)} paths, oldest first`,
  );
  const atLeast = stopped ? "at least " : "";
  const narrowed = sample !== undefined && !flat && sample.entriesShown < sample.entriesTotal;
  const recovery = saved
    ? stopped
      ? ` The search stopped once the full list passed ${limits.spillBytes} bytes; its first ${total} paths, oldest first, are in ${saved.locator}; ${saved.hint}. Narrow pattern or path to list the rest.`
      : ` The full list, oldest first, is in ${saved.locator}; ${saved.hint}.`
    : env.spill
      ? ` ${listing.spill.notSaved()}; narrow pattern or path to see the rest.`
      : narrowed
        ? ""
        : " Narrow pattern or path to see the rest.";
  let head: string;
  if (sample && !flat) {
    const exact = sample.entriesExact && !stopped;
    const entries =
      exact && sample.entriesShown === sample.entriesTotal
        ? `all ${sample.entriesTotal} top-level entries`
        : `${sample.entriesShown} of ${exact ? "" : "at least "}${sample.entriesTotal} top-level entries`;
    const narrow = narrowed ? "; narrow path to one entry to list it whole" : "";
    const notOldest = oldest ? "" : `, not the oldest ${page.length}`;
    head = `Showing ${page.length} of ${atLeast}${total} paths: a sample across ${entries}${notOldest}${narrow}.`;
  } else {
    head = `Showing the oldest ${page.length} of ${atLeast}${total} paths.`;
  }
  return {
    content: `${root.displayLines(page)}\n\n(${head}${recovery})${note}`,
    meta: { ...meta(page), ...(saved ? { spill: saved.locator } : {}) },
    ...(saved?.parts ? { parts: saved.parts } : {}),
  };
}

/**
 * Takes a glob's paths as the backend finds them and keeps only what the page needs (the head, and what the
 * sampler keeps per entry: O(cap) paths); past the cap every path goes on to the spill as it arrives.
 */
class GlobListing implements ResultSink<string> {
  readonly spill: SpillList;
  readonly #cap: number;
  readonly #root: SearchRoot;
  readonly #sampler: EntrySampler | undefined;
  readonly #head: string[] = [];
  #total = 0;

  constructor(cap: number, sampled: boolean, root: SearchRoot, spill: SpillList) {
    this.#cap = cap;
    this.#root = root;
    this.#sampler = sampled ? new EntrySampler(cap) : undefined;
    this.spill = spill;
  }

  get total(): number {
    return this.#total;
  }

  /** The first `cap` paths, in the backend's order. */
  get head(): readonly string[] {
    return this.#sampler ? this.#sampler.head : this.#head;
  }

  /** Paths held now: what the page needs, not what the search found. */
  get held(): number {
    return this.#sampler ? this.#sampler.held : this.#head.length;
  }

  sample(): StreamedSample | undefined {
    return this.#sampler?.sample();
  }

  push(path: string): "stop" | void {
    const total = ++this.#total;
    if (this.#sampler) this.#sampler.add(path);
    else if (this.#head.length < this.#cap) this.#head.push(path);
    if (total <= this.#cap) return;
    if (total === this.#cap + 1) {
      this.spill.open();
      this.spill.write(`${this.#root.displayLines(this.head)}\n`);
    }
    return this.spill.write(`${this.#root.display(path)}\n`);
  }

  ready(): Promise<void> | undefined {
    return this.spill.ready();
  }
}

// True when `page` holds the same paths as the first `page.length` of `head` (the oldest), in any order.
function isOldestPage(page: readonly string[], head: readonly string[]): boolean {
  const oldest = new Set(head.slice(0, page.length));
  return page.every((path) => oldest.has(path));
}
