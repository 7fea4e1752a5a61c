import {
  concatBytes,
  createProcessRunner,
  type KillSignal,
  type ProcessDriver,
  type ProcessExit,
  type ProcessRunner,
  ProcessError,
  type ProcessRunnerOptions,
  type ProcEntry,
  type ProcIo,
  processTree,
  PS_TABLE_ARGS,
  parsePsTable,
  readProcTable,
  type SignalTargets,
  type SpawnedProcess,
  type SpawnRequest,
  spawnFailure,
} from "../../core/mod.ts";
import { type DenoApi, type DenoChildProcess, type DenoCommandOptions, denoApi, type DenoPermissionDescriptor } from "./deno-api.ts";

export interface DenoProcessRunnerOptions extends ProcessRunnerOptions {
  /**
   * The program that starts each child in a new session, so that stopping it reaches its descendants
   * (`Deno.Command` has no process-group option). Default `"setsid"` (util-linux); needs `--allow-run` for it.
   * `false`, or a setsid that is missing or not permitted, starts children directly: then a stop reaches only
   * the descendants /proc still shows under the child.
   */
  readonly setsid?: string | false;
  /**
   * The program that delivers signals when `Deno.kill` is not permitted (it needs an unscoped `--allow-run`).
   * Default `"kill"`; needs `--allow-run` for it. Without either, only the child itself can be signalled.
   */
  readonly kill?: string | false;
  /**
   * The program that lists processes when /proc may not be read (the read permission does not cover it), so a
   * stop can wait for descendants and tell a running process from a zombie. Default `"ps"` (procps); needs
   * `--allow-run` for it. Without either, `kill -0` on the child's group tells whether anything of the tree is
   * left (zombies count, so a stop waits out its grace and then kills the group); without a group, the runner
   * waits for the child alone.
   */
  readonly ps?: string | false;
}

/**
 * A process runner over `Deno.Command`. Needs `--allow-run` for the programs it starts and for its helpers:
 * `--allow-run=setsid,kill,ps` besides them is what stopping a whole tree takes.
 */
export function createDenoProcessRunner(options?: DenoProcessRunnerOptions): ProcessRunner {
  return denoProcessRunnerOver(denoApi(), options);
}

/** The runner over another slice of the Deno namespace (tests take /proc away through it). */
export function denoProcessRunnerOver(deno: DenoApi, options?: DenoProcessRunnerOptions): ProcessRunner {
  return createProcessRunner(new DenoProcessDriver(deno, options), options);
}

// util-linux setsid, when it cannot execute the program, says so on stderr and exits 127 (not found) or 126.
const SETSID_FAILURE = "setsid: ";
const LAUNCH_REPORT_WAIT_MS = 1000;
const LAUNCH_REPORT_BYTES = 1024;
// Decided once the line is complete or its start rules the report out.
const reportComplete = (text: string) => text.includes("\n") || (text.length >= SETSID_FAILURE.length && !text.startsWith(SETSID_FAILURE));

class DenoProcessDriver implements ProcessDriver {
  readonly #deno: DenoApi;
  readonly #setsid: string | false;
  readonly #kill: string | false;
  readonly #ps: string | false;
  #procfs = true;
  // Set once a spawn found no setsid program: from then on children start without a session of their own.
  #setsidMissing = false;
  readonly #procIo: ProcIo;

  constructor(deno: DenoApi, options: DenoProcessRunnerOptions | undefined) {
    this.#deno = deno;
    this.#setsid = options?.setsid ?? "setsid";
    this.#kill = options?.kill ?? "kill";
    this.#ps = options?.ps ?? "ps";
    this.#procIo = {
      readDir: async (path) => {
        const names: string[] = [];
        for await (const entry of deno.readDir(path)) names.push(entry.name);
        return names;
      },
      readText: (path) => deno.readTextFile(path),
    };
  }

  async spawn(request: SpawnRequest): Promise<SpawnedProcess> {
    const options = this.#options(request);
    // Through setsid, Deno checks its permission for setsid only; the program itself must be allowed too,
    // or it is started directly so that Deno's own check (and error) applies.
    const setsid = this.#setsid;
    if (setsid !== false && this.#permitted(setsid) && this.#permitted(request.command)) {
      try {
        return this.#started(request, this.#spawn(setsid, ["--", request.command, ...request.args], options), true);
      } catch (error) {
        // Not found with a usable cwd: setsid is missing (from this request's PATH, which Deno searches).
        if (!(await this.#cwdUsable(request)) || (error as { name?: unknown }).name !== "NotFound") throw await this.#failure(request, error);
        this.#setsidMissing = true;
      }
    }
    try {
      return this.#started(request, this.#spawn(request.command, [...request.args], options), false);
    } catch (error) {
      throw await this.#failure(request, error);
    }
  }

  #spawn(command: string, args: string[], options: DenoCommandOptions): DenoChildProcess {
    return new this.#deno.Command(command, { ...options, args }).spawn();
  }

  #options(request: SpawnRequest): DenoCommandOptions {
    const options: DenoCommandOptions = { stdin: "null", stdout: "piped", stderr: "piped" };
    if (request.cwd !== undefined) options.cwd = request.cwd;
    // Removing a variable means passing a whole environment, which needs permission to read it; without
    // that, an empty value is the closest Deno allows.
    const removes = Object.values(request.env).some((value) => value === undefined);
    const whole = removes && this.#granted({ name: "env" });
    const env: Record<string, string> = whole ? this.#deno.env.toObject() : {};
    for (const [name, value] of Object.entries(request.env)) {
      if (value !== undefined) env[name] = value;
      else if (whole) delete env[name];
      else env[name] = "";
    }
    if (whole) options.clearEnv = true;
    options.env = env;
    return options;
  }

  #started(request: SpawnRequest, child: DenoChildProcess, viaSetsid: boolean): SpawnedProcess {
    const stdout = readable(child.stdout);
    const stderr = readable(child.stderr, viaSetsid ? LAUNCH_REPORT_BYTES : 0);
    let exited = false;
    const exit = child.status.then(async (status): Promise<ProcessExit> => {
      exited = true;
      if (viaSetsid && (status.code === 126 || status.code === 127) && status.signal === null) {
        const said = await stderr.first(reportComplete, LAUNCH_REPORT_WAIT_MS);
        if (said.startsWith(SETSID_FAILURE)) {
          throw spawnFailure(request.command, request.cwd, status.code === 127 ? "ENOENT" : "EACCES", true, new Error(said.trim()));
        }
      }
      return { exitCode: status.signal === null ? status.code : null, signal: status.signal };
    });
    const tree = processTree({
      root: child.pid,
      leadsGroup: viaSetsid,
      table: () => this.#table(),
      send: (signal, targets) => this.#send(signal, targets, child),
      fallbackAlive: async () => (viaSetsid ? this.#groupAlive(child.pid, () => exited) : !exited),
    });
    return {
      pid: child.pid,
      stdout: stdout.chunks,
      stderr: stderr.chunks,
      exit,
      alive: tree.alive,
      signal: tree.signal,
      release() {
        stdout.cancel();
        stderr.cancel();
      },
    };
  }

  // A stop reaches a whole tree only with all three parts: a session per child (setsid), a way to signal a
  // group (Deno.kill, which needs an unscoped --allow-run, or the kill program), and the process table that
  // shows what is left once the program ends (ps, or /proc under --allow-all). Without the table, background
  // jobs are never found; without the others, they are not reached.
  treeStopGap(): string | undefined {
    if (this.#setsidMissing) {
      return "no setsid program was found, so a command cannot get a process group of its own; install util-linux setsid";
    }
    const forbidden: string[] = [];
    const off: string[] = [];
    const need = (option: string | false, name: string) => {
      if (option === false) off.push(`${name}: false`);
      else if (!this.#permitted(option)) forbidden.push(option);
    };
    need(this.#setsid, "setsid");
    if (!this.#granted({ name: "run" })) need(this.#kill, "kill");
    if (!this.#allAccess()) need(this.#ps, "ps");
    const reasons = [
      ...(forbidden.length > 0 ? [`Deno is not permitted to run ${forbidden.join(", ")}; grant --allow-run=${forbidden.join(",")} as well`] : []),
      ...(off.length > 0 ? [`the process runner was created with ${off.join(", ")}`] : []),
    ];
    return reasons.length === 0 ? undefined : `stopping the background processes of a command needs setsid, kill and ps: ${reasons.join("; ")}`;
  }

  // Deno lets only an unrestricted process read /proc; otherwise `ps` reads it on our behalf.
  async #table(): Promise<ProcEntry[] | undefined> {
    if (this.#procfs) {
      const table = await readProcTable(this.#procIo);
      if (table !== undefined) return table;
      this.#procfs = false;
    }
    if (this.#ps === false || !this.#permitted(this.#ps)) return undefined;
    try {
      const listed = await new this.#deno.Command(this.#ps, { args: [...PS_TABLE_ARGS], stdin: "null", stdout: "piped", stderr: "null" }).output();
      return listed.success ? parsePsTable(new TextDecoder().decode(listed.stdout)) : undefined;
    } catch {
      return undefined;
    }
  }

  // Without a process table, whether anything of the child's group is left: `kill -0` on the group. It counts
  // zombies too, which only makes a stop wait out its grace before the group gets SIGKILL; going by the child
  // alone would leave a descendant that ignores SIGTERM running.
  async #groupAlive(group: number, exited: () => boolean): Promise<boolean> {
    if (this.#kill === false || !this.#permitted(this.#kill)) return !exited();
    try {
      const probe = new this.#deno.Command(this.#kill, { args: ["-0", "--", `-${group}`], stdin: "null", stdout: "null", stderr: "null" });
      return (await probe.spawn().status).success;
    } catch {
      return !exited();
    }
  }

  async #send(signal: KillSignal, targets: SignalTargets, child: DenoChildProcess): Promise<void> {
    const ids = [...targets.groups.map((group) => -group), ...targets.pids];
    if (ids.length === 0) return;
    if (this.#granted({ name: "run" })) {
      for (const id of ids) {
        try {
          this.#deno.kill(id, signal);
        } catch {
          // Gone already.
        }
      }
      return;
    }
    if (this.#kill !== false && this.#permitted(this.#kill)) {
      const args = ["-s", signal.slice(3), "--", ...ids.map(String)];
      try {
        await new this.#deno.Command(this.#kill, { args, stdin: "null", stdout: "null", stderr: "null" }).spawn().status;
        return;
      } catch {
        // The kill program is missing: fall back to the one signal Deno allows without it.
      }
    }
    try {
      child.kill(signal);
    } catch {
      // The child has exited.
    }
  }

  #permitted(command: string): boolean {
    return this.#granted({ name: "run", command });
  }

  #allAccess(): boolean {
    return (["read", "write", "net", "env", "sys", "run", "ffi"] as const).every((name) => this.#granted({ name }));
  }

  #granted(descriptor: DenoPermissionDescriptor): boolean {
    try {
      return this.#deno.permissions.querySync(descriptor).state === "granted";
    } catch {
      return false;
    }
  }

  // Without read permission the directory cannot be looked at; that is no reason to call it missing.
  async #cwdUsable(request: SpawnRequest): Promise<boolean> {
    if (request.cwd === undefined) return true;
    try {
      return (await this.#deno.stat(request.cwd)).isDirectory;
    } catch (error) {
      return (error as { name?: unknown } | null)?.name === "NotCapable";
    }
  }

  async #failure(request: SpawnRequest, error: unknown): Promise<ProcessError> {
    const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
    if (name === "NotCapable") {
      return new ProcessError(
        "PROCESS_PERMISSION_DENIED",
        `Cannot start "${request.command}": Deno is not permitted to run it; grant --allow-run=${request.command}.`,
        { cause: error, details: { command: request.command, cwd: request.cwd, errno: "NotCapable" } },
      );
    }
    const errno = typeof code === "string" ? code : name === "NotFound" ? "ENOENT" : name === "NotCapable" ? "NotCapable" : undefined;
    return spawnFailure(request.command, request.cwd, errno, await this.#cwdUsable(request), error);
  }
}

interface Readable {
  readonly chunks: AsyncIterable<Uint8Array>;
  /**
   * The start of the stream (up to the `keep` bytes given to {@link readable}) as text, once `complete` says
   * it is enough, the stream ended, or `ms` passed.
   */
  first(complete: (text: string) => boolean, ms: number): Promise<string>;
  cancel(): void;
}

// A reader of our own instead of the stream's async iterator: cancelling a reader ends a pending read at once,
// which releasing a pipe that some escaped process still holds needs.
function readable(stream: ReadableStream<Uint8Array>, keep = 0): Readable {
  const reader = stream.getReader();
  let start: Uint8Array = new Uint8Array(0);
  let ended = false;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  async function* chunks(): AsyncIterable<Uint8Array> {
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) return;
        if (start.length < keep) {
          start = concatBytes([start, value.subarray(0, keep - start.length)]);
          wake();
        }
        yield value;
      }
    } finally {
      ended = true;
      wake();
    }
  }
  return {
    chunks: chunks(),
    first(complete, ms) {
      const text = () => new TextDecoder().decode(start);
      return new Promise((resolve) => {
        let timedOut = false;
        const check = () => {
          if (!ended && !timedOut && start.length < keep && !complete(text())) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(text());
        };
        const timer = setTimeout(() => {
          timedOut = true;
          check();
        }, ms);
        waiters.add(check);
        check();
      });
    },
    cancel() {
      reader.cancel().catch(() => undefined);
    },
  };
}
