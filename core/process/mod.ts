/**
 * Processes: the runner seam (argv spawn, stdin closed, output through byte-bounded sinks, cancellation by
 * signal and timeout with a SIGTERM-then-SIGKILL grace that reaches the whole process tree), confinement in
 * bubblewrap (the argv for a sandbox view, detection, a confining runner), the collectors
 * consumers build their output policy from, and the /proc helpers adapters use to find a tree.
 *
 * @module
 */
export { bubblewrapArgs, bubblewrapLaunch, confinedRunner, detectBubblewrap, searchBubblewrapArgs, SYSTEM_DIRECTORIES } from "./bubblewrap.ts";
export { SECCOMP_ABIS, seccompFilter } from "./seccomp.ts";
export type { ConfinedCommand, ConfinementView, DetectBubblewrapOptions, SearchView, ShellConfinement } from "./bubblewrap.ts";
export { BoundedCollector, HeadTailCollector } from "./collectors.ts";
export type { BoundedCollectorOptions, HeadTailCollectorOptions } from "./collectors.ts";
export { isProcessError, PROCESS_ERROR_CODES, ProcessError, spawnFailure } from "./errors.ts";
export type { ProcessErrorCode } from "./errors.ts";
export { createProcessRunner, DEFAULT_GRACE_MS } from "./runner.ts";
export type { ProcessRunnerOptions } from "./runner.ts";
export { liveTree, parseProcStat, parsePsTable, processTree, PS_TABLE_ARGS, readProcTable } from "./tree.ts";
export type { ProcEntry, ProcessTree, ProcessTreeHost, ProcIo, SignalTargets } from "./tree.ts";
export type {
  KillSignal,
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
