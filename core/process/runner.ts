import { ProcessError } from "./errors.ts";
import type {
  OutputSink,
  ProcessDriver,
  ProcessExit,
  ProcessResult,
  ProcessRunner,
  ProcessSpec,
  ProcessStream,
  SpawnedProcess,
  SpawnRequest,
  StopReason,
} from "./types.ts";

/** SIGTERM-to-SIGKILL grace when neither the runner nor the spec sets one. */
export const DEFAULT_GRACE_MS = 3000;

// Timers take at most a signed 32-bit millisecond count; a larger value fires at once on every runtime.
const MAX_TIMER_MS = 2_147_483_647;
// How often a tree that was sent SIGTERM is checked for survivors during its grace period.
const POLL_MS = 25;
// Once the tree is gone, what is still buffered in the pipes is read at once; a pipe that stays open this
// much longer is held by a process that left the tree (it made itself a new session), and is closed.
const DRAIN_MS = 1000;

export interface ProcessRunnerOptions {
  /** Default SIGTERM-to-SIGKILL grace for every run; {@link DEFAULT_GRACE_MS} when absent. */
  readonly graceMs?: number;
}

/**
 * Builds the runner from an adapter's driver. The runner validates the spec, enforces the timeout, the abort
 * signal and the sinks' stop requests by sending SIGTERM to the whole tree and SIGKILL after the grace, and
 * does not settle before every process of the tree has exited, including descendants still running when the
 * program itself had finished.
 */
export function createProcessRunner(driver: ProcessDriver, options?: ProcessRunnerOptions): ProcessRunner {
  const defaultGrace = checkDuration("graceMs", options?.graceMs, 0) ?? DEFAULT_GRACE_MS;
  return {
    async run(spec) {
      const request = validate(spec);
      const graceMs = checkDuration("graceMs", spec.graceMs, 0) ?? defaultGrace;
      const timeoutMs = checkDuration("timeoutMs", spec.timeoutMs, 1);
      if (spec.signal?.aborted) return { exitCode: null, signal: null, stopReason: "abort", forced: false };
      let child: SpawnedProcess;
      try {
        child = await driver.spawn(request);
      } catch (error) {
        throw asProcessError(error, request.command);
      }
      return new Supervision(child, spec, graceMs, timeoutMs).result();
    },
    ...(driver.treeStopGap ? { treeStopGap: () => driver.treeStopGap!() } : {}),
  };
}

/** One running process, from spawn until its whole tree is gone and its pipes are drained. */
class Supervision {
  readonly #child: SpawnedProcess;
  readonly #spec: ProcessSpec;
  readonly #graceMs: number;
  readonly #timeoutMs: number | undefined;
  #stopReason: StopReason | undefined;
  #forced = false;
  #exited = false;
  #discard = false;
  #sinkError: unknown;
  // Sink writes that returned a promise: how many settled, and how many are pending. While a sink is busy or
  // still settling writes, a slow drain is a slow sink, not a pipe held open by a stray process.
  #progress = 0;
  #pendingWrites = 0;
  /** When SIGKILL is due, counted from the first SIGTERM. */
  #deadline: number | undefined;
  #killTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(child: SpawnedProcess, spec: ProcessSpec, graceMs: number, timeoutMs: number | undefined) {
    this.#child = child;
    this.#spec = spec;
    this.#graceMs = graceMs;
    this.#timeoutMs = timeoutMs;
  }

  async result(): Promise<ProcessResult> {
    const signal = this.#spec.signal;
    const onAbort = () => this.#stop("abort");
    signal?.addEventListener("abort", onAbort, { once: true });
    const timeout = this.#timeoutMs === undefined ? undefined : setTimeout(() => this.#stop("timeout"), this.#timeoutMs);
    // The signal may have fired while the process was being started.
    if (signal?.aborted) this.#stop("abort");
    const pumps = Promise.all([this.#pump(this.#child.stdout, this.#spec.stdout, "stdout"), this.#pump(this.#child.stderr, this.#spec.stderr, "stderr")]);
    let exit: ProcessExit;
    try {
      exit = await this.#child.exit;
    } catch (error) {
      this.#child.release();
      await pumps;
      throw asProcessError(error, this.#spec.command);
    } finally {
      this.#exited = true;
      clearTimeout(timeout);
      clearTimeout(this.#killTimer);
      signal?.removeEventListener("abort", onAbort);
    }
    await this.#reap();
    await this.#drain(pumps);
    if (this.#sinkError !== undefined) throw this.#sinkError;
    const result: ProcessResult = { exitCode: exit.exitCode, signal: exit.signal, forced: this.#forced };
    return this.#stopReason === undefined ? result : { ...result, stopReason: this.#stopReason };
  }

  /** First reason wins; a process that has already exited is left alone (its leftovers are reaped anyway). */
  #stop(reason: StopReason): void {
    if (this.#stopReason !== undefined || this.#exited) return;
    this.#stopReason = reason;
    this.#terminate();
    this.#killTimer = setTimeout(() => {
      if (this.#exited) return;
      this.#forced = true;
      void this.#child.signal("SIGKILL");
    }, this.#graceMs);
  }

  #terminate(): void {
    this.#deadline = performance.now() + this.#graceMs;
    void this.#child.signal("SIGTERM");
  }

  /** Descendants that outlive the program get the same treatment: SIGTERM, then SIGKILL once the grace is up. */
  async #reap(): Promise<void> {
    if (!(await this.#child.alive())) return;
    if (this.#deadline === undefined) this.#terminate();
    const deadline = this.#deadline ?? 0;
    while (performance.now() < deadline) {
      await sleep(Math.min(POLL_MS, deadline - performance.now()));
      if (!(await this.#child.alive())) return;
    }
    this.#forced = true;
    await this.#child.signal("SIGKILL");
  }

  async #drain(pumps: Promise<unknown>): Promise<void> {
    for (;;) {
      const progress = this.#progress;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), DRAIN_MS);
      });
      const outcome = await Promise.race([pumps, late]);
      clearTimeout(timer);
      if (outcome !== "late") return;
      // A sink still working through buffered output is waited for: closing the pipes would lose the rest.
      if (this.#pendingWrites > 0 || this.#progress !== progress) continue;
      this.#child.release();
      await pumps;
      return;
    }
  }

  async #pump(source: AsyncIterable<Uint8Array>, sink: OutputSink | undefined, stream: ProcessStream): Promise<void> {
    try {
      // Keep reading after a stop, so a process that is still writing never blocks on a full pipe.
      for await (const chunk of source) {
        if (this.#discard || sink === undefined) continue;
        let verdict: "stop" | void;
        try {
          const written = sink.write(chunk, stream);
          // Any thenable, not only this realm's Promise.
          if (typeof written === "object" && written !== null) {
            this.#pendingWrites++;
            try {
              verdict = await written;
            } finally {
              this.#pendingWrites--;
              this.#progress++;
            }
          } else {
            verdict = written;
          }
        } catch (error) {
          this.#sinkError ??= error;
          verdict = "stop";
        }
        if (verdict === "stop") {
          this.#discard = true;
          this.#stop("output");
        }
      }
    } catch {
      // A pipe closed by release() or broken by the kill ends like any other stream; the exit status says why.
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

function asProcessError(error: unknown, command: string): ProcessError {
  if (error instanceof ProcessError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new ProcessError("PROCESS_SPAWN_FAILED", `Cannot start "${command}": ${reason}`, { cause: error, details: { command } });
}

function invalid(message: string): ProcessError {
  return new ProcessError("PROCESS_INVALID_ARGUMENT", message);
}

function checkDuration(name: string, value: number | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > MAX_TIMER_MS) {
    throw invalid(`${name} must be a number of milliseconds from ${min} to ${MAX_TIMER_MS}, got ${String(value)}.`);
  }
  return value;
}

// No program can receive a NUL byte in its argv or environment (they are C strings); runtimes throw
// differently on one, so it is refused here, the same way everywhere.
function checkString(what: string, value: unknown): string {
  if (typeof value !== "string") throw invalid(`${what} must be a string, got ${typeof value}.`);
  if (value.includes("\0")) throw invalid(`${what} contains a NUL byte, which cannot be passed to a program. Remove it.`);
  return value;
}

function validate(spec: ProcessSpec): SpawnRequest {
  const command = checkString("The command", spec.command);
  if (command === "") throw invalid("The command is empty. Name a program to run.");
  const args = (spec.args ?? []).map((arg, i) => checkString(`Argument ${i + 1}`, arg));
  const cwd = spec.cwd === undefined ? undefined : checkString("The working directory", spec.cwd);
  if (cwd === "") throw invalid("The working directory is empty. Leave it out to use the current one.");
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(spec.env ?? {})) {
    checkString("An environment variable name", name);
    if (name === "" || name.includes("=")) throw invalid(`"${name}" is not a valid environment variable name.`);
    env[name] = value === undefined ? undefined : checkString(`The value of ${name}`, value);
  }
  if (spec.inheritEnv === undefined) return { command, args, cwd, env };
  const keep = spec.inheritEnv.map((pattern, i) => {
    checkString(`Pattern ${i + 1} of inheritEnv`, pattern);
    if (!/^[^=*]*\*?$/.test(pattern) || pattern === "") throw invalid(`"${pattern}" in inheritEnv is not a variable name or a prefix ending in *.`);
    // The filter matches with bash's [[ == ]]: the name is quoted, so only the trailing * is a wildcard.
    return pattern.endsWith("*") ? `${quoteGlob(pattern.slice(0, -1))}*` : quoteGlob(pattern);
  });
  for (const [name, value] of Object.entries(env)) if (value !== undefined) keep.push(quoteGlob(name));
  if (command.includes("="))
    throw invalid(`The command "${command}" contains "=", which env(1) would take for a variable. Rename it to run it with a filtered environment.`);
  return { command: "bash", args: ["-c", ENV_FILTER, "toolfs-env", String(keep.length), ...keep, command, ...args], cwd, env };
}

// The filter keeps the exported variables whose names match, then execs the program through `env -i` with
// only those: bash alone would pass on entries it cannot unset (names that are not identifiers).
const ENV_FILTER =
  'n=$1; shift; keep=(); for v in $(compgen -e); do for ((i = 1; i <= n; i++)); do if [[ $v == ${!i} ]]; then keep+=("$v=${!v}"); break; fi; done; done; ' +
  'shift "$n"; exec env -i "${keep[@]}" "$@"';

function quoteGlob(text: string): string {
  return text.replace(/[\\*?[\]()|&;<>'" $`!^@+]/g, (c) => `\\${c}`);
}
