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
export class ProcessError extends Error {
  override readonly name = "ProcessError";
  readonly code: ProcessErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ProcessErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details ?? {};
  }
}

const codes: ReadonlySet<string> = new Set(PROCESS_ERROR_CODES);

/** True for a ProcessError, also one from another copy of this library. */
export function isProcessError(value: unknown, code?: ProcessErrorCode): value is ProcessError {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { name?: unknown; code?: unknown };
  if (candidate.name !== "ProcessError" || typeof candidate.code !== "string" || !codes.has(candidate.code)) return false;
  return code === undefined || candidate.code === code;
}

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
