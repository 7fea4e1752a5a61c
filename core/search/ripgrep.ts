// The search backend that runs the real ripgrep through the process-runner seam: it locates ripgrep, starts it
// (ripgrep-args.ts builds the command line), reads its output as it arrives (ripgrep-output.ts) and judges how
// it ended (ripgrep-exit.ts). An environment without RIPGREP_CONFIG_PATH keeps a host configuration out;
// ripgrep runs in the search root so anchored globs mean the same as in the engine (research/rg-semantics.md).
import { HeadTailCollector } from "../process/collectors.ts";
import { isProcessError } from "../process/errors.ts";
import type { ProcessRunner } from "../process/types.ts";
import type { FilesRequest, GrepEvent, GrepRequest, ResultSink, SearchScope, StreamOutcome, WholeSearchBackend } from "./backend.ts";
import { isSearchError, SearchError } from "./errors.ts";
import { SEARCH_MAX_OUTPUT_BYTES } from "./limits.ts";
import { dashRestorer, ripgrepFilesArgs, ripgrepGrepArgs, ripgrepLaunch } from "./ripgrep-args.ts";
import { aborted, answerProblems, classifyEnding, NOTHING_SEARCHED, problemLines, UNREACHABLE_ROOT } from "./ripgrep-exit.ts";
import { GrepJsonParser, LineSink } from "./ripgrep-output.ts";
import { withWholeResults } from "./stream.ts";

export { ripgrepFilesArgs, ripgrepGrepArgs } from "./ripgrep-args.ts";
export { GrepJsonParser, parseFilesOutput, parseGrepJson } from "./ripgrep-output.ts";
export type { ParsedGrep } from "./ripgrep-output.ts";

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

/** A SearchBackend that runs ripgrep. */
export function createRipgrepBackend(options: RipgrepBackendOptions): WholeSearchBackend {
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

  async function run(
    request: SearchScope,
    args: readonly string[],
    onLine: (line: string) => "stop" | void,
    ready: (() => Promise<void> | undefined) | undefined,
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
    const maxOutputBytes = positive("maxOutputBytes", request.maxOutputBytes) ?? (request.whole ? defaults.maxOutputBytes : Number.POSITIVE_INFINITY);
    // Lines are handled as they arrive, so parsing overlaps ripgrep's own work instead of following it.
    const stdout = new LineSink(maxOutputBytes, onLine, ready);
    const half = Math.floor(defaults.stderrMaxBytes / 2);
    const stderr = new HeadTailCollector({ headBytes: half, tailBytes: defaults.stderrMaxBytes - half });
    const launch = ripgrepLaunch(request, binary, args, limit);
    let result;
    try {
      result = await options.runner.run({
        command: launch.command,
        args: launch.args,
        cwd: launch.cwd,
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
    const stderrText = stderr.text((omitted) => `\n(${omitted} bytes of ripgrep's messages left out)\n`).trim();
    const { verdict } = classifyEnding({
      exitCode: result.exitCode,
      signal: result.signal,
      ...(result.stopReason ? { stopReason: result.stopReason } : {}),
      aborted: request.signal?.aborted === true,
      stderr: stderrText,
      empty: stdout.empty,
      stopped: stdout.stopped,
      overflowed: stdout.overflowed,
      timeoutMs,
      maxOutputBytes,
      binary,
      ...(request.confine ? { confinedBy: request.confine.program } : {}),
      ...(limit ? { limit } : {}),
    });
    if (verdict instanceof SearchError) throw verdict;
    if (verdict.kind === "unreachable-root") return { exitCode: 0, stderr: "", stderrOmitted: 0, stopped: false, unreachableRoot: true };
    if (verdict.kind === "stopped") return { exitCode: 0, stderr: stderrText, stderrOmitted: stderr.omittedBytes, stopped: true };
    stdout.end();
    return { exitCode: verdict.exitCode, stderr: stderrText, stderrOmitted: stderr.omittedBytes, stopped: stdout.stopped };
  }

  async function streamFiles(request: FilesRequest, sink: ResultSink<string>): Promise<StreamOutcome> {
    const args = ripgrepFilesArgs(request);
    const restore = dashRestorer(request);
    let printed = false;
    const onLine = (line: string) => {
      printed = true;
      return sink.push(restore(line));
    };
    const raw = await run(request, args, onLine, sink.ready?.bind(sink));
    if (raw.unreachableRoot) return { problems: [UNREACHABLE_ROOT], stopped: false };
    return raw.stopped ? { problems: problemLines(raw), stopped: true } : { problems: answerProblems(raw, printed), stopped: false };
  }

  async function streamGrep(request: GrepRequest, sink: ResultSink<GrepEvent>): Promise<StreamOutcome> {
    const args = ripgrepGrepArgs(request);
    const restore = dashRestorer(request);
    let matched = false;
    const parser = new GrepJsonParser((event) => {
      matched = true;
      const path = restore(event.path);
      return sink.push(path === event.path ? event : { ...event, path });
    });
    const raw = await run(request, args, (line) => parser.line(line), sink.ready?.bind(sink));
    if (raw.unreachableRoot) return { problems: [UNREACHABLE_ROOT], stopped: false };
    if (raw.stopped) return { problems: problemLines(raw), stopped: true };
    const { searches } = parser.finish();
    // ripgrep exits 2 when, walking its cwd, no file passed the filters: an answer, not a failure.
    const nothing = raw.exitCode === 2 && searches === 0 && !matched && NOTHING_SEARCHED.test(raw.stderr);
    const problems = answerProblems(raw, matched || searches > 0 || nothing);
    return nothing ? { problems, stopped: false, nothingSearched: true } : { problems, stopped: false };
  }

  // Which ripgrep ran: the outcome says so, as the footer of a slow search may need to.
  const by = (request: SearchScope) => (request.confine ? "ripgrep in bubblewrap" : "ripgrep");
  return withWholeResults({
    name: "ripgrep",
    readableGuard: "confinable",
    streamFiles: async (request, sink) => ({ ...(await streamFiles(request, sink)), searchedBy: by(request) }),
    streamGrep: async (request, sink) => ({ ...(await streamGrep(request, sink)), searchedBy: by(request) }),
  });
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
