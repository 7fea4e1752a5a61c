// The search backend that runs the real ripgrep through the process-runner seam. Every request value reaches
// ripgrep as one argv element in a form that cannot be read as a flag (`--glob=<g>`, `--regexp=<p>`, paths
// after `--`); `--no-config` and an environment without RIPGREP_CONFIG_PATH keep a host configuration (which
// could add `--pre=<program>`) out; ripgrep runs in the search root so anchored globs mean the same as in the
// engine (research/rg-semantics.md §1.3, §8.1).
import { isAbsolutePath } from "../fs/paths.ts";
import { bubblewrapLaunch, searchBubblewrapArgs } from "../process/bubblewrap.ts";
import { HeadTailCollector } from "../process/collectors.ts";
import { isProcessError } from "../process/errors.ts";
import type { OutputSink, ProcessRunner } from "../process/types.ts";
import { quoteInput } from "../errors/mod.ts";
import { encodeUtf8 } from "../text/utf8.ts";
import type {
  FilesRequest,
  GrepEvent,
  GrepFile,
  GrepRequest,
  ResultSink,
  SearchBackend,
  SearchData,
  SearchScope,
  StreamOutcome,
} from "./backend.ts";
import { precheckGlobs } from "./engine/overrides.ts";
import { NUL_BANNED } from "./engine/regex/ban.ts";
import { isSearchError, SearchError } from "./errors.ts";
import { checkPatternSize, SEARCH_MAX_OUTPUT_BYTES } from "./limits.ts";
import { collectMatches, collectPaths, GrepCollector } from "./stream.ts";

export interface RipgrepBackendOptions {
  readonly runner: ProcessRunner;
  /**
   * The ripgrep executable, or a function that locates it: called on the first search and remembered, also
   * when it fails. A failure fails every search `SEARCH_FAILED` with its message, so tools built on the backend
   * still register.
   */
  readonly ripgrep: string | (() => Promise<string> | string);
  /** Default for requests without `timeoutMs`; 30 000. */
  readonly timeoutMs?: number;
  /** SIGTERM-to-SIGKILL grace for a stopped search; the runner's default when absent. */
  readonly graceMs?: number;
  /** Default for whole-result requests (`files`, `grep`) without `maxOutputBytes`; 20 000 000. */
  readonly maxOutputBytes?: number;
  /** How much of ripgrep's stderr is kept for messages and problems; 65 536. */
  readonly stderrMaxBytes?: number;
  /**
   * Caps ripgrep's address space (RLIMIT_AS) by starting it through a POSIX shell that sets `ulimit -v` and
   * then becomes ripgrep (`exec`), so a file with a huge line, or a line with millions of matches, fails the
   * search instead of taking gigabytes. Only for systems whose shell can set that limit (Linux); the Node
   * and Deno adapters pass `{ shell, bytes: RIPGREP_MEMORY_LIMIT_BYTES }` there. Absent or false: no limit.
   */
  readonly memoryLimit?: { readonly shell: string; readonly bytes: number } | false;
}

export const RIPGREP_TIMEOUT_MS = 30_000;
export const RIPGREP_MAX_OUTPUT_BYTES: number = SEARCH_MAX_OUTPUT_BYTES;
export const RIPGREP_STDERR_MAX_BYTES = 65_536;
/** The address-space limit the adapters give ripgrep where they can: 512 MiB. */
export const RIPGREP_MEMORY_LIMIT_BYTES: number = 512 * 1024 * 1024;

// Runs as `sh -c LIMIT_SCRIPT toolfs-ripgrep <KiB> <ripgrep> <args…>`. The shell's own failures get exit
// codes ripgrep never uses: 125 when the limit cannot be set, 126/127 (the shell's) when ripgrep cannot be
// executed.
const LIMIT_SCRIPT = 'ulimit -v "$1" || exit 125; shift; exec "$@"';
const LIMIT_FAILED = 125;

// Bytes of stderr quoted in an error message: enough for a regex error with its caret line.
const EXCERPT_BYTES = 2000;
const NARROW = "Search a narrower path, or use a more specific pattern or include glob.";

/** A SearchBackend that runs ripgrep. */
export function createRipgrepBackend(options: RipgrepBackendOptions): SearchBackend {
  const defaults = {
    timeoutMs: positive("timeoutMs", options.timeoutMs) ?? RIPGREP_TIMEOUT_MS,
    maxOutputBytes: positive("maxOutputBytes", options.maxOutputBytes) ?? RIPGREP_MAX_OUTPUT_BYTES,
    stderrMaxBytes: positive("stderrMaxBytes", options.stderrMaxBytes) ?? RIPGREP_STDERR_MAX_BYTES,
  };
  const limit = options.memoryLimit || undefined;
  if (limit) positive("memoryLimit.bytes", limit.bytes);
  let located: Promise<string> | undefined;
  const { ripgrep } = options;
  const locate = () => (located ??= Promise.resolve().then(() => (typeof ripgrep === "string" ? ripgrep : ripgrep())));

  // `whole`: the caller holds the entire output, so the default output budget applies.
  async function run(
    request: SearchScope,
    args: readonly string[],
    onLine: (line: string) => "stop" | void,
    ready: (() => Promise<void> | undefined) | undefined,
    whole: boolean,
  ): Promise<RawRun> {
    if (request.signal?.aborted) throw aborted(undefined);
    let binary: string;
    try {
      binary = await locate();
    } catch (error) {
      // A locator that knows why (a runtime permission, say) has said so; "reinstall" would send the user astray.
      if (isSearchError(error)) throw error;
      throw new SearchError(
        "SEARCH_FAILED",
        `Search is unavailable: ripgrep could not be found (${messageOf(error)}). glob and grep cannot run on this installation; tell the user that reinstalling toolfs with its optional dependencies brings ripgrep back.`,
        { cause: error, details: { unavailable: true } },
      );
    }
    const timeoutMs = positive("timeoutMs", request.timeoutMs) ?? defaults.timeoutMs;
    const maxOutputBytes = positive("maxOutputBytes", request.maxOutputBytes) ?? (whole ? defaults.maxOutputBytes : Number.POSITIVE_INFINITY);
    // Lines are handled as they arrive, so parsing overlaps ripgrep's own work instead of following it.
    const stdout = new LineSink(maxOutputBytes, onLine, ready);
    const half = Math.floor(defaults.stderrMaxBytes / 2);
    const stderr = new HeadTailCollector({ headBytes: half, tailBytes: defaults.stderrMaxBytes - half });
    const started = confined(request, binary, args);
    let result;
    try {
      result = await options.runner.run({
        command: limit ? limit.shell : started.command,
        args: limit ? ["-c", LIMIT_SCRIPT, "toolfs-ripgrep", String(Math.max(1, Math.floor(limit.bytes / 1024))), started.command, ...started.args] : started.args,
        cwd: started.cwd,
        env: { RIPGREP_CONFIG_PATH: undefined },
        stdout,
        stderr,
        signal: request.signal,
        timeoutMs,
        graceMs: options.graceMs,
      });
    } catch (error) {
      if (!isProcessError(error)) throw error;
      throw new SearchError("SEARCH_FAILED", `Search failed: ripgrep could not be started. ${error.message}`, { cause: error, details: { binary } });
    }
    if (result.stopReason === "timeout") throw aborted(timeoutMs);
    if (result.stopReason === "abort" || request.signal?.aborted) throw aborted(undefined);
    const stderrText = stderr.text((omitted) => `\n(${omitted} bytes of ripgrep's messages left out)\n`).trim();
    if (request.confine && stdout.empty && result.exitCode === 1 && CHDIR_FAILED.test(stderrText)) {
      // The search root was swapped for a way out between the guard's judgement and bubblewrap's chdir: inside
      // the confinement it leads nowhere, as the engine would report it.
      return { exitCode: 0, stderr: "", stderrOmitted: 0, stopped: false, unreachableRoot: true };
    }
    if (request.confine && stdout.empty && result.exitCode === 1 && /^bwrap: /m.test(stderrText)) {
      throw new SearchError("SEARCH_FAILED", `Search failed: ripgrep could not be started inside its confinement (${request.confine.program}).${quote(clip(stderrText))}`, {
        details: { exitCode: result.exitCode, program: request.confine.program },
      });
    }
    // The consumer has what it wants; ripgrep was stopped for it, so its exit status says nothing.
    if (stdout.stopped) return { exitCode: 0, stderr: stderrText, stderrOmitted: stderr.omittedBytes, stopped: true };
    if (stdout.overflowed) {
      throw new SearchError(
        "SEARCH_RAW_OUTPUT_OVERFLOW",
        `The search was stopped: ripgrep printed more than ${maxOutputBytes} bytes of raw output. ${NARROW}`,
        { details: { maxOutputBytes } },
      );
    }
    if (limit && stdout.empty && result.exitCode !== null && result.exitCode > 2) {
      if (result.exitCode === LIMIT_FAILED) {
        throw new SearchError("SEARCH_FAILED", `Search failed: ripgrep's memory limit could not be set by ${limit.shell}.${quote(clip(stderrText))}`, {
          details: { exitCode: result.exitCode, shell: limit.shell },
        });
      }
      if (result.exitCode === 126 || result.exitCode === 127) {
        throw new SearchError("SEARCH_FAILED", `Search failed: ripgrep could not be started.${quote(clip(stderrText))}`, {
          details: { exitCode: result.exitCode, binary },
        });
      }
    }
    // Rust reports a failed allocation this way and aborts; under the limit that is ripgrep running out.
    if (result.exitCode === null && /memory allocation of \d+ bytes failed/.test(stderrText)) {
      const mib = limit ? `${Math.round(limit.bytes / 2 ** 20)} MiB` : "the memory it could get";
      throw new SearchError(
        "SEARCH_FAILED",
        `The search was stopped: ripgrep needed more than ${mib} of memory. That happens on a file with an extremely ` +
          "long line, or a line with a very large number of matches (minified, generated or data files). Leave such " +
          "files out with path or include, or use a more specific pattern.",
        { details: { memoryLimitBytes: limit?.bytes ?? null, signal: result.signal } },
      );
    }
    if (result.exitCode === null) {
      throw new SearchError("SEARCH_FAILED", `Search failed: ripgrep was ended by ${result.signal ?? "an unknown signal"}.${quote(stderrText)}`, {
        details: { signal: result.signal },
      });
    }
    if (result.exitCode > 2) {
      throw new SearchError("SEARCH_FAILED", `Search failed: ripgrep exited with code ${result.exitCode}.${quote(stderrText)}`, {
        details: { exitCode: result.exitCode },
      });
    }
    stdout.end();
    return { exitCode: result.exitCode, stderr: stderrText, stderrOmitted: stderr.omittedBytes, stopped: stdout.stopped };
  }

  async function streamFiles(request: FilesRequest, sink: ResultSink<string>, whole: boolean): Promise<StreamOutcome> {
    const args = ripgrepFilesArgs(request);
    const restore = dashRestorer(request);
    let printed = false;
    const onLine = (line: string) => {
      printed = true;
      return sink.push(restore(line));
    };
    const raw = await run(request, args, onLine, sink.ready?.bind(sink), whole);
    if (raw.unreachableRoot) return { problems: [UNREACHABLE_ROOT], stopped: false };
    return raw.stopped ? { problems: problemLines(raw), stopped: true } : { problems: outcome(raw, printed), stopped: false };
  }

  async function streamGrep(request: GrepRequest, sink: ResultSink<GrepEvent>, whole: boolean): Promise<StreamOutcome> {
    const args = ripgrepGrepArgs(request);
    const restore = dashRestorer(request);
    let matched = false;
    const parser = new GrepJsonParser((event) => {
      matched = true;
      const path = restore(event.path);
      return sink.push(path === event.path ? event : { ...event, path });
    });
    const raw = await run(request, args, (line) => parser.line(line), sink.ready?.bind(sink), whole);
    if (raw.unreachableRoot) return { problems: [UNREACHABLE_ROOT], stopped: false };
    if (raw.stopped) return { problems: problemLines(raw), stopped: true };
    const { searches } = parser.finish();
    // ripgrep exits 2 when, walking its cwd, no file passed the filters: an answer, not a failure.
    const nothing = raw.exitCode === 2 && searches === 0 && !matched && NOTHING_SEARCHED.test(raw.stderr);
    const problems = outcome(raw, matched || searches > 0 || nothing);
    return nothing ? { problems, stopped: false, nothingSearched: true } : { problems, stopped: false };
  }

  return {
    name: "ripgrep",
    readableGuard: "confinable",
    files: (request) => collectPaths((sink) => streamFiles(request, sink, true)),
    grep: (request) => collectMatches((sink) => streamGrep(request, sink, true)),
    streamFiles: (request, sink) => streamFiles(request, sink, false),
    streamGrep: (request, sink) => streamGrep(request, sink, false),
  };
}

interface RawRun {
  /** 0, 1 or 2. */
  readonly exitCode: number;
  readonly stderr: string;
  readonly stderrOmitted: number;
  /** The consumer stopped the search. */
  readonly stopped: boolean;
  /** Confined, the search root could not be entered: it led outside the confinement. */
  readonly unreachableRoot?: true;
}

const CHDIR_FAILED = /^bwrap: Can't chdir to /m;
const UNREACHABLE_ROOT = ".: not searched: it now leads where this search may not look";

/**
 * The program, arguments and cwd that start ripgrep: itself in the search root, or, under
 * `request.confine`, bubblewrap started from `/` (through bash), which enters the root inside the confinement (outside
 * it, the root could already lead elsewhere).
 */
function confined(request: SearchScope, binary: string, args: readonly string[]): { command: string; args: string[]; cwd: string } {
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

/**
 * ripgrep exits 2 both when it could not start searching (a bad pattern, a missing root) and when it searched
 * but some paths failed. The second is a partial result, told apart by what it printed (rg-semantics §3).
 */
function outcome(raw: RawRun, searched: boolean): string[] {
  if (raw.exitCode !== 2) return [];
  if (searched) return problemLines(raw);
  const excerpt = quote(clip(raw.stderr));
  if (NUL_REFUSED.test(raw.stderr)) {
    // ripgrep's advice (its --text flag) is not one the tools offer; the engine's wording says what to do.
    throw new SearchError("SEARCH_INVALID_PATTERN", NUL_BANNED, { details: { stderr: clip(raw.stderr) } });
  }
  const rejected = rejection(raw.stderr);
  if (rejected) {
    throw new SearchError("SEARCH_INVALID_PATTERN", `ripgrep could not parse the ${rejected.what}.${excerpt}\n${rejected.advice}`, {
      details: { stderr: clip(raw.stderr) },
    });
  }
  throw new SearchError("SEARCH_FAILED", `Search failed (ripgrep exit code 2).${excerpt}\nCheck that the path exists and is readable, then call again.`, {
    details: { exitCode: 2, stderr: clip(raw.stderr) },
  });
}

const NUL_REFUSED = /^rg: pattern contains "\\0" but it is impossible to match$/m;

function rejection(stderr: string): { what: string; advice: string } | undefined {
  if (/error parsing glob|^rg: error (?:parsing pattern \d+|building NFA)$/im.test(stderr)) {
    return { what: "glob", advice: "Fix the glob and call again; to match a character such as [ or { literally, escape it with a backslash." };
  }
  if (/the literal .* is not allowed/i.test(stderr)) {
    return { what: "regular expression", advice: "A pattern matches within one line, so it cannot contain a line break. Search for one line at a time." };
  }
  if (/regex parse error/i.test(stderr)) {
    return {
      what: "regular expression",
      advice: "Fix it and call again; to match a character such as ( [ { . * + ? literally, escape it with a backslash.",
    };
  }
  return undefined;
}

// ripgrep's notice (its second line has no prefix); the result says it as `nothingSearched`.
const NOTHING_SEARCHED = /^rg: No files were searched, /m;

function problemLines(raw: RawRun): string[] {
  const problems = raw.stderr
    .split("\n")
    .filter((line) => line.startsWith("rg: ") && !NOTHING_SEARCHED.test(line))
    .map((line) => line.slice(4));
  if (raw.stderrOmitted > 0) problems.push(`(more problems were reported; ${raw.stderrOmitted} bytes of them were left out)`);
  return problems;
}

/** `rg --files` arguments for a request (without the program name). */
export function ripgrepFilesArgs(request: FilesRequest): string[] {
  const args = ["--no-config", "--files", request.noIgnore ? "--no-ignore" : "--no-ignore-global"];
  if (request.hidden) args.push("--hidden");
  if (request.sort) args.push(`--${request.sort.reverse ? "sortr" : "sort"}=${request.sort.by}`);
  if (request.follow) args.push("-L");
  return [...args, ...globArgs(request), "--", ...pathArgs(request)];
}

/** `rg --json` arguments for a request (without the program name). Never sorted: sorting costs the threads. */
export function ripgrepGrepArgs(request: GrepRequest): string[] {
  const args = ["--no-config", "--json", "--no-ignore-global"];
  if (request.noIgnore) args.push("--no-ignore");
  if (request.hidden) args.push("--hidden");
  if (request.follow) args.push("-L");
  const globs = globArgs(request);
  checkPatternSize(request.pattern);
  return [...args, ...globs, `--regexp=${spellNul(request.pattern)}`, "--", ...pathArgs(request)];
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
      throw new SearchError("SEARCH_INVALID_PATTERN", "The pattern contains a NUL byte right after a backslash, which cannot be passed to ripgrep. Remove it and call again.");
    }
    return `${slashes}\\x00`;
  });
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

function dashRestorer(request: SearchScope): (path: string) => string {
  const paths = request.paths ?? [];
  if (!paths.includes("-") || paths.includes("./-")) return (path) => path;
  return (path) => (path === "./-" || path.startsWith("./-/") ? path.slice(2) : path);
}

/** The paths of `rg --files` output, one a line. */
export function parseFilesOutput(stdout: string): string[] {
  const lines = stdout.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export interface ParsedGrep {
  readonly files: GrepFile[];
  /** Files ripgrep searched, from its summary (0 when it printed none). */
  readonly searches: number;
}

/** Reads `rg --json` output: one `begin`, its `match`es and one `end` per file, then a `summary`. */
export function parseGrepJson(stdout: string): ParsedGrep {
  const collector = new GrepCollector();
  const parser = new GrepJsonParser((event) => collector.push(event));
  for (const line of stdout.split("\n")) parser.line(line);
  return { files: collector.files, searches: parser.finish().searches };
}

/**
 * {@link parseGrepJson} one line at a time, as the output arrives: each matching line becomes a `line` event
 * and the end of a file that had any an `end` event. What the handler returns (`"stop"`) is passed back.
 */
export class GrepJsonParser {
  readonly #emit: (event: GrepEvent) => "stop" | void;
  #searches = 0;
  #index = -1;
  // The file whose lines are being read, and whether any was emitted.
  #current: { path: string; matched: boolean } | undefined;

  constructor(emit: (event: GrepEvent) => "stop" | void) {
    this.#emit = emit;
  }

  line(line: string): "stop" | void {
    this.#index++;
    if (line === "") return;
    // The most common line after a match: the end of a file with no binary offset. It carries nothing else
    // needed, so it is not worth parsing its statistics.
    if (line.startsWith('{"type":"end"') && line.includes('"binary_offset":null')) {
      return this.#close(null);
    }
    const index = this.#index;
    let message: RgMessage;
    try {
      message = JSON.parse(line) as RgMessage;
    } catch (error) {
      throw malformed(index, error);
    }
    const data = message.data ?? {};
    switch (message.type) {
      case "begin": {
        const stop = this.#close(null);
        this.#current = { path: pathOf(data.path, index), matched: false };
        return stop;
      }
      case "match": {
        const path = pathOf(data.path, index);
        if (this.#current?.path !== path) {
          if (this.#close(null) === "stop") return "stop";
          this.#current = { path, matched: false };
        }
        this.#current.matched = true;
        return this.#emit({
          type: "line",
          path,
          line: {
            line: searchData(data.lines, index),
            lineNumber: numberOf(data.line_number, index),
            absoluteOffset: numberOf(data.absolute_offset, index),
            submatches: (data.submatches ?? []).map((sub) => ({
              match: searchData(sub.match, index),
              start: numberOf(sub.start, index),
              end: numberOf(sub.end, index),
            })),
          },
        });
      }
      case "end":
        if (this.#current?.path === pathOf(data.path, index)) return this.#close(data.binary_offset);
        return;
      case "summary":
        this.#searches = typeof data.stats?.searches === "number" ? data.stats.searches : 0;
        return;
      default:
        // `context` lines (never requested) and message types a later ripgrep may add.
        return;
    }
  }

  /** Ends the last file; returns the files ripgrep searched, from its summary (0 when it printed none). */
  finish(): { readonly searches: number } {
    this.#close(null);
    return { searches: this.#searches };
  }

  #close(binaryOffset: unknown): "stop" | void {
    const current = this.#current;
    this.#current = undefined;
    if (!current?.matched) return;
    return this.#emit(typeof binaryOffset === "number" ? { type: "end", path: current.path, binaryOffset } : { type: "end", path: current.path });
  }
}

/**
 * Splits output into lines as it arrives and counts its bytes. Past `maxBytes`, or when a line's handler says
 * `"stop"`, it asks the runner to stop the process and handles nothing more. After each chunk it waits for
 * `ready`, so a consumer that falls behind holds ripgrep back (its pipe fills) instead of piling up output.
 */
class LineSink implements OutputSink {
  // A U+FEFF at the start of the output is the first character of a path, not a byte-order mark.
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  readonly #max: number;
  readonly #onLine: (line: string) => "stop" | void;
  readonly #ready: (() => Promise<void> | undefined) | undefined;
  #rest = "";
  #total = 0;
  #stopped = false;

  constructor(maxBytes: number, onLine: (line: string) => "stop" | void, ready: (() => Promise<void> | undefined) | undefined) {
    this.#max = maxBytes;
    this.#onLine = onLine;
    this.#ready = ready;
  }

  get overflowed(): boolean {
    return this.#total > this.#max;
  }

  /** Nothing was written. */
  get empty(): boolean {
    return this.#total === 0;
  }

  /** A line's handler said `"stop"`. */
  get stopped(): boolean {
    return this.#stopped;
  }

  write(chunk: Uint8Array): "stop" | void | Promise<void> {
    if (this.#stopped) return "stop";
    this.#total += chunk.length;
    if (this.overflowed) return "stop";
    const text = this.#rest + this.#decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      if (this.#onLine(text.slice(start, nl)) === "stop") {
        this.#stopped = true;
        this.#rest = "";
        return "stop";
      }
      start = nl + 1;
    }
    this.#rest = text.slice(start);
    return this.#ready?.();
  }

  /** Handles a last line without a newline. */
  end(): void {
    const last = this.#rest + this.#decoder.decode();
    this.#rest = "";
    if (last !== "" && !this.overflowed && !this.#stopped && this.#onLine(last) === "stop") this.#stopped = true;
  }
}

interface RgData {
  readonly text?: unknown;
  readonly bytes?: unknown;
}

interface RgMessage {
  readonly type?: unknown;
  readonly data?: {
    readonly path?: RgData;
    readonly lines?: RgData;
    readonly line_number?: unknown;
    readonly absolute_offset?: unknown;
    readonly submatches?: readonly { readonly match?: RgData; readonly start?: unknown; readonly end?: unknown }[];
    readonly binary_offset?: unknown;
    readonly stats?: { readonly searches?: unknown };
  };
}

function searchData(data: RgData | undefined, index: number): SearchData {
  if (typeof data?.text === "string") return { text: data.text };
  if (typeof data?.bytes === "string") {
    try {
      return { bytes: Uint8Array.from(atob(data.bytes), (char) => char.charCodeAt(0)) };
    } catch (error) {
      throw malformed(index, error);
    }
  }
  throw malformed(index, "a text field is neither text nor bytes");
}

const lenient = new TextDecoder();

/** Paths are strings in results; one that is not UTF-8 keeps its valid parts and U+FFFD for the rest. */
function pathOf(data: RgData | undefined, index: number): string {
  const value = searchData(data, index);
  return "text" in value ? value.text : lenient.decode(value.bytes);
}

function numberOf(value: unknown, index: number): number {
  if (typeof value !== "number") throw malformed(index, "a number is missing");
  return value;
}

function malformed(index: number, cause: unknown): SearchError {
  return new SearchError("SEARCH_FAILED", `Search failed: ripgrep's output could not be read (line ${index + 1}: ${messageOf(cause)}).`, { cause });
}

function aborted(timeoutMs: number | undefined): SearchError {
  return new SearchError(
    "SEARCH_ABORTED",
    timeoutMs === undefined
      ? "The search was cancelled before it finished."
      : `The search was stopped after ${timeoutMs} ms without finishing. ${NARROW}`,
    { details: timeoutMs === undefined ? {} : { timeoutMs } },
  );
}

/** The head and tail of long stderr text. */
function clip(text: string): string {
  const collector = new HeadTailCollector({ headBytes: EXCERPT_BYTES / 2, tailBytes: EXCERPT_BYTES / 2 });
  collector.write(encodeUtf8(text));
  return collector.text((omitted) => `\n(${omitted} bytes left out)\n`);
}

function quote(text: string): string {
  return text === "" ? "" : `\n${text}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function positive(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new SearchError("SEARCH_FAILED", `Search failed: ${name} must be a positive whole number, got ${String(value)}.`);
  }
  return value;
}
