import { CodedError, codedErrorGuard } from "../errors/mod.ts";

/**
 * The closed set of process error codes. They cover only a process that could not be started: once it runs,
 * everything else (exit code, signal, timeout, abort, output budget) is part of the result.
 */
export const PROCESS_ERROR_CODES = [
  "PROCESS_INVALID_ARGUMENT",
  "PROCESS_NOT_FOUND",
  "PROCESS_BAD_CWD",
  "PROCESS_PERMISSION_DENIED",
  "PROCESS_SPAWN_FAILED",
] as const;

export type ProcessErrorCode = (typeof PROCESS_ERROR_CODES)[number];

/** A process that could not be started: a stable code plus a message that says what to do next. */
export class ProcessError extends CodedError<ProcessErrorCode> {
  override readonly name = "ProcessError";
}

/** True for a ProcessError, also one from another copy of this library. */
export const isProcessError: (value: unknown, code?: ProcessErrorCode) => value is ProcessError = codedErrorGuard<ProcessError>(
  "ProcessError",
  PROCESS_ERROR_CODES,
);

/**
 * The error for a launch the runtime refused. Runtimes report a missing command and a missing working
 * directory with the same ENOENT, so the adapter says whether `cwd` is a usable directory.
 */
export function spawnFailure(command: string, cwd: string | undefined, errno: string | undefined, cwdUsable: boolean, cause: unknown): ProcessError {
  const details = { command, cwd, errno };
  if (!cwdUsable && cwd !== undefined) {
    return new ProcessError("PROCESS_BAD_CWD", `Cannot start "${command}": the working directory "${cwd}" does not exist or is not a directory.`, {
      cause,
      details,
    });
  }
  if (errno === "ENOENT") {
    return new ProcessError("PROCESS_NOT_FOUND", `Cannot start "${command}": no such program was found. Check its name or install it.`, {
      cause,
      details,
    });
  }
  if (errno === "EACCES" || errno === "EPERM" || errno === "NotCapable") {
    return new ProcessError("PROCESS_PERMISSION_DENIED", `Cannot start "${command}": permission to run it was denied.`, { cause, details });
  }
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ProcessError("PROCESS_SPAWN_FAILED", `Cannot start "${command}": ${reason}`, { cause, details });
}
