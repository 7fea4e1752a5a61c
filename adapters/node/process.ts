import { type ChildProcess, spawn } from "node:child_process";
import { promises as fsp } from "node:fs";
import {
  createProcessRunner,
  type KillSignal,
  type ProcessDriver,
  type ProcessError,
  type ProcessExit,
  type ProcessRunner,
  type ProcessRunnerOptions,
  type ProcEntry,
  type ProcIo,
  processTree,
  readProcTable,
  type SignalTargets,
  type SpawnedProcess,
  type SpawnRequest,
  spawnFailure,
} from "../../core/mod.ts";

/**
 * A process runner over `node:child_process`. Each child leads a new session and process group (`detached`),
 * so a stop reaches its descendants too. POSIX only.
 */
export function createNodeProcessRunner(options?: ProcessRunnerOptions): ProcessRunner {
  return createProcessRunner(nodeProcessDriver, options);
}

/** The driver behind {@link createNodeProcessRunner}, for composing a runner with other options. */
export const nodeProcessDriver: ProcessDriver = nodeProcessDriverOver(() => readProcTable(procIo));

/**
 * The driver with another process table: where none can be read (`undefined`, as on macOS, which has no /proc),
 * stops still reach the whole group and liveness comes from probing the group. Tests use it to pin that.
 */
export function nodeProcessDriverOver(table: () => Promise<readonly ProcEntry[] | undefined>): ProcessDriver {
  return { spawn: (request) => spawnNode(request, table) };
}

function spawnNode(request: SpawnRequest, table: () => Promise<readonly ProcEntry[] | undefined>): Promise<SpawnedProcess> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(request.command, [...request.args], {
        cwd: request.cwd,
        env: environment(request.env),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      classify(request, error).then(reject, reject);
      return;
    }
    // Registered before the first turn of the event loop, so neither the exit nor an error can be missed.
    const exit = new Promise<ProcessExit>((settle) => child.once("exit", (code, signal) => settle({ exitCode: code, signal })));
    let started = false;
    child.on("error", (error) => {
      if (!started) classify(request, error).then(reject, reject);
    });
    child.once("spawn", () => {
      started = true;
      resolve(spawned(child, exit, table));
    });
  });
}

function spawned(child: ChildProcess, exit: Promise<ProcessExit>, table: () => Promise<readonly ProcEntry[] | undefined>): SpawnedProcess {
  const pid = child.pid!;
  const stdout = child.stdout!;
  const stderr = child.stderr!;
  const tree = processTree({
    root: pid,
    leadsGroup: true,
    table,
    send: async (signal, targets) => send(signal, targets),
    fallbackAlive: async () => {
      try {
        process.kill(-pid, 0);
        return true;
      } catch {
        return false;
      }
    },
    // No member of the group at all (not even a zombie): the common end of a run, known without /proc.
    gone: () => {
      try {
        process.kill(-pid, 0);
        return false;
      } catch (error) {
        return (error as { code?: unknown }).code === "ESRCH";
      }
    },
  });
  return {
    pid,
    stdout,
    stderr,
    exit,
    alive: tree.alive,
    signal: tree.signal,
    release() {
      stdout.destroy();
      stderr.destroy();
    },
  };
}

const procIo: ProcIo = { readDir: (path) => fsp.readdir(path), readText: (path) => fsp.readFile(path, "utf8") };

function send(signal: KillSignal, targets: SignalTargets): void {
  const deliver = (pid: number) => {
    try {
      process.kill(pid, signal);
    } catch {
      // ESRCH: it is gone already, which is what the signal was for.
    }
  };
  for (const group of targets.groups) deliver(-group);
  for (const pid of targets.pids) deliver(pid);
}

function environment(changes: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

async function classify(request: SpawnRequest, error: unknown): Promise<ProcessError> {
  const errno = (error as { code?: unknown } | null)?.code;
  let cwdUsable = true;
  if (request.cwd !== undefined)
    cwdUsable = await fsp.stat(request.cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
  return spawnFailure(request.command, request.cwd, typeof errno === "string" ? errno : undefined, cwdUsable, error);
}
