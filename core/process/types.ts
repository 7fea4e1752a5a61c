// The process-runner seam. Consumers describe one argv run and hand in sinks for its output; adapters only
// start processes, read their pipes and deliver signals (ProcessDriver). Budgets, timeouts, cancellation and
// the terminate-then-kill escalation live once, in core (runner.ts), so every runtime stops processes alike.

export type ProcessStream = "stdout" | "stderr";

/**
 * Receives a process's output in arrival order. Returning `"stop"` says the sink has all it wants: the runner
 * stops the process (as for a timeout) and delivers nothing more. Returning a promise holds that stream back
 * until it settles: nothing more is read from it meanwhile, so a process writing faster than the sink
 * consumes blocks on its full pipe instead of piling output up in memory. The chunk is the sink's to keep.
 */
export interface OutputSink {
  write(chunk: Uint8Array, stream: ProcessStream): "stop" | void | Promise<"stop" | void>;
}

/** Why the runner ended a process before it finished on its own. */
export type StopReason = "timeout" | "abort" | "output";

/** One program run: an argv, never a shell string. Standard input is always closed (`/dev/null`). */
export interface ProcessSpec {
  /** Program name (looked up on PATH) or path. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Working directory; the caller's current directory when absent. */
  readonly cwd?: string;
  /**
   * Changes to the inherited environment: a string sets a variable, `undefined` removes it. A runtime that may
   * not read the whole environment (Deno without `--allow-env`) sets a removed variable to the empty string.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * When set, the program inherits only the variables these name (a name, or a prefix ending in `*`:
   * `LC_*`; `*` alone keeps everything), plus what `env` sets; everything else in the host's environment
   * is left out. Filtered by a bash that execs the program through `env -i`, so the runtime need not be
   * able to read the environment (Deno without `--allow-env`); bash must be on PATH.
   */
  readonly inheritEnv?: readonly string[];
  /** Where stdout goes; discarded when absent. Pass the same sink as `stderr` to interleave both. */
  readonly stdout?: OutputSink;
  readonly stderr?: OutputSink;
  /** Stops the process when it fires; a signal that has already fired starts nothing. */
  readonly signal?: AbortSignal;
  /** Stops the process after this many milliseconds. */
  readonly timeoutMs?: number;
  /** How long a stopped process may take to exit after SIGTERM before it gets SIGKILL; default 3000 ms. */
  readonly graceMs?: number;
}

export interface ProcessResult {
  /** The exit code, or null when a signal ended the process (or it never started because of an abort). */
  readonly exitCode: number | null;
  /** The signal that ended the process, such as "SIGTERM", or null. */
  readonly signal: string | null;
  /** Set when the runner stopped the process: the first of timeout, abort or a sink's "stop". */
  readonly stopReason?: StopReason;
  /** True when something in the process tree outlived SIGTERM by the grace period and was killed. */
  readonly forced: boolean;
}

/** Runs argv processes; see {@link ProcessSpec}. Rejects only with a ProcessError, when nothing could start. */
export interface ProcessRunner {
  run(spec: ProcessSpec): Promise<ProcessResult>;
  /**
   * Why a stop (a timeout, an abort, or the end of a program whose background jobs still run) might not reach
   * every process the program started, in a sentence that names the fix; undefined when it reaches them all.
   * A runner without this method claims that it does. Asked before each bash command, so that a runner that
   * cannot keep that promise is refused rather than silently weakened.
   */
  treeStopGap?(): string | undefined;
}

export type KillSignal = "SIGTERM" | "SIGKILL";

export interface ProcessExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/** A validated {@link ProcessSpec} as the driver sees it. */
export interface SpawnRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A started process, as an adapter exposes it to the runner. */
export interface SpawnedProcess {
  readonly pid: number;
  readonly stdout: AsyncIterable<Uint8Array>;
  readonly stderr: AsyncIterable<Uint8Array>;
  /**
   * Settles once the process has exited. Rejects with a ProcessError when it turns out the program never
   * started (a launcher in between reported that it could not execute it).
   */
  readonly exit: Promise<ProcessExit>;
  /** Delivers the signal to the process and its live descendants; quietly does nothing for those gone. */
  signal(signal: KillSignal): Promise<void>;
  /** True while the process or one of its descendants still runs (zombies do not count). */
  alive(): Promise<boolean>;
  /** Stops reading both pipes and closes them, so pending reads end. */
  release(): void;
}

/**
 * What an adapter implements: start a process with stdin closed and stdout/stderr piped, in a way that lets
 * `signal` reach its descendants (its own process group, for instance). Rejects with a ProcessError.
 */
export interface ProcessDriver {
  spawn(request: SpawnRequest): Promise<SpawnedProcess>;
  /** See {@link ProcessRunner.treeStopGap}; absent when the driver always reaches the whole tree. */
  treeStopGap?(): string | undefined;
}
