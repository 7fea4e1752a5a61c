// How a search request becomes ripgrep's command line. Every request value reaches ripgrep as one argv element
// in a form that cannot be read as a flag (`--glob=<g>`, `--regexp=<p>`, paths after `--`); `--no-config`
// keeps a host configuration (which could add `--pre=<program>`) out (research/rg-semantics.md §1.3, §8.1).
import { quoteInput } from "../errors/mod.ts";
import { isAbsolutePath } from "../fs/paths.ts";
import { bubblewrapLaunch, searchBubblewrapArgs } from "../process/bubblewrap.ts";
import type { FilesRequest, GrepRequest, SearchScope } from "./backend.ts";
import { precheckGlobs } from "./engine/overrides.ts";
import { checkTypes } from "./engine/types.ts";
import { SearchError } from "./errors.ts";
import { checkPatternSize } from "./limits.ts";

/** `rg --files` arguments for a request (without the program name). */
export function ripgrepFilesArgs(request: FilesRequest): string[] {
  const args = ["--no-config", "--files", request.noIgnore ? "--no-ignore" : "--no-ignore-global"];
  if (request.hidden) args.push("--hidden");
  if (request.sort) args.push(`--${request.sort.reverse ? "sortr" : "sort"}=${request.sort.by}`);
  if (request.follow) args.push("-L");
  const types = typeArgs(request);
  return [...args, ...globArgs(request), ...types, "--", ...pathArgs(request)];
}

/** `rg --json` arguments for a request (without the program name). Never sorted: sorting costs the threads. */
export function ripgrepGrepArgs(request: GrepRequest): string[] {
  const args = ["--no-config", "--json", "--no-ignore-global"];
  if (request.noIgnore) args.push("--no-ignore");
  if (request.hidden) args.push("--hidden");
  if (request.follow) args.push("-L");
  if (request.caseInsensitive) args.push("--ignore-case");
  if (request.multiline) args.push("--multiline");
  const { before = 0, after = 0 } = request.context ?? {};
  if (before > 0) args.push(`--before-context=${before}`);
  if (after > 0) args.push(`--after-context=${after}`);
  const types = typeArgs(request);
  const globs = globArgs(request);
  checkPatternSize(request.pattern);
  return [...args, ...globs, ...types, `--regexp=${spellNul(request.pattern)}`, "--", ...pathArgs(request)];
}

/**
 * No argv carries a NUL, but a NUL character in a pattern means what `\x00` means to ripgrep's regex parser,
 * so it is passed that way and ripgrep judges it (usually refusing it, as the engine does). After an odd run
 * of backslashes it would be an escape of its own, which no spelling reproduces.
 */
function spellNul(pattern: string): string {
  if (!pattern.includes("\0")) return pattern;
  return pattern.replace(/(\\*)\0/g, (_, slashes: string) => {
    if (slashes.length % 2 === 1) {
      throw new SearchError(
        "SEARCH_INVALID_PATTERN",
        "The pattern contains a NUL byte right after a backslash, which cannot be passed to ripgrep. Remove it and call again.",
      );
    }
    return `${slashes}\\x00`;
  });
}

// Checked against the engine's copy of ripgrep's table first, so both backends refuse an unknown name alike.
function typeArgs(request: SearchScope): string[] {
  checkTypes(request.types);
  return (request.types ?? []).map((name) => `--type=${name}`);
}

function globArgs(request: SearchScope): string[] {
  // The limits ripgrep reports badly or not at all (a glob too long to pass, one nested past its regex
  // parser's limit) are checked here, with the engine's code and message.
  precheckGlobs(request.globs);
  return (request.globs ?? []).map(({ glob, caseInsensitive }) => {
    if (glob.includes("\0")) {
      throw new SearchError("SEARCH_INVALID_PATTERN", `The glob ${quoteInput(glob, "json")} contains a NUL byte, which no path has. Remove it and call again.`);
    }
    return `--${caseInsensitive ? "iglob" : "glob"}=${glob}`;
  });
}

// ripgrep reads stdin for the path "-", even after "--"; "./-" names the file. Its output then says "./-",
// which is turned back into the path as requested, unless "./-" itself was requested too.
function pathArgs(request: SearchScope): string[] {
  for (const path of [request.cwd, ...(request.paths ?? [])]) {
    if (path.includes("\0")) {
      throw new SearchError("SEARCH_FAILED", `The path ${quoteInput(path, "json")} contains a NUL byte, which no path has. Correct it and call again.`);
    }
  }
  return (request.paths ?? []).map((path) => (path === "-" ? "./-" : path));
}

/** Turns the `./-` that {@link pathArgs} passed for a requested `-` back into `-` in ripgrep's output. */
export function dashRestorer(request: SearchScope): (path: string) => string {
  const paths = request.paths ?? [];
  if (!paths.includes("-") || paths.includes("./-")) return (path) => path;
  return (path) => (path === "./-" || path.startsWith("./-/") ? path.slice(2) : path);
}

// Runs as `sh -c LIMIT_SCRIPT toolfs-ripgrep <KiB> <ripgrep> <args…>`. The shell's own failures get exit
// codes ripgrep never uses: 125 when the limit cannot be set, 126/127 (the shell's) when ripgrep cannot be
// executed.
const LIMIT_SCRIPT = 'ulimit -v "$1" || exit 125; shift; exec "$@"';
/** The exit code of the memory-limit shell when it could not set the limit. */
export const LIMIT_FAILED = 125;

/** A program to start, with its arguments and working directory. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/**
 * The program, arguments and cwd that start ripgrep: itself in the search root, or, under `request.confine`,
 * bubblewrap started from `/` (through bash), which enters the root inside the confinement (outside it, the
 * root could already lead elsewhere); under `limit`, through a shell that sets the address-space limit first.
 */
export function ripgrepLaunch(
  request: SearchScope,
  binary: string,
  args: readonly string[],
  limit: { readonly shell: string; readonly bytes: number } | undefined,
): Launch {
  const started = confined(request, binary, args);
  if (!limit) return started;
  const kib = String(Math.max(1, Math.floor(limit.bytes / 1024)));
  return { command: limit.shell, args: ["-c", LIMIT_SCRIPT, "toolfs-ripgrep", kib, started.command, ...started.args], cwd: started.cwd };
}

function confined(request: SearchScope, binary: string, args: readonly string[]): Launch {
  const confine = request.confine;
  if (!confine) return { command: binary, args: [...args], cwd: request.cwd };
  if (!isAbsolutePath(binary)) {
    throw new SearchError(
      "SEARCH_FAILED",
      `Search failed: ripgrep (${binary}) cannot be confined, as its path is not absolute. Tell the user to configure ripgrep by its absolute path.`,
      { details: { binary } },
    );
  }
  // Above the confined roots ripgrep sees no repository, so .gitignore files would stop counting.
  const flags = confine.inRepository ? [args[0] as string, "--no-require-git", ...args.slice(1)] : [...args];
  const view = { roots: confine.roots, masks: confine.masks, programs: [binary] };
  // Started as the confined shell is (bash, which closes inherited descriptors and execs bubblewrap), so a
  // host that may run a confined bash (Deno: --allow-run=bash) may run a confined search.
  const launch = bubblewrapLaunch(confine.program, searchBubblewrapArgs(view, { command: binary, args: flags, cwd: request.cwd }), true);
  return { ...launch, cwd: "/" };
}
