import { z } from "zod";
import { HeadTailCollector } from "../process/collectors.ts";
import type { ProcessResult, ProcessRunner } from "../process/types.ts";
import { ToolError } from "./types.ts";
import type { CallContext, Tool, ToolEnv, ToolOutput } from "./tool.ts";

/**
 * What a bash command inherits of the host's environment unless the host passes more (`bashEnv`): what
 * programs need to find themselves, their locale and terminal, and nothing that tends to hold a secret.
 * docs/notes/0010-confined-shell.md.
 */
export const DEFAULT_BASH_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "TZ",
  "TMPDIR",
];

export interface BashArgs {
  readonly command: string;
  /** Seconds. */
  readonly timeout?: number | undefined;
}

/** `bash`: one `bash -c` command in the call's working directory, its combined output bounded. */
export function bashTool(env: ToolEnv): Tool<BashArgs> {
  const { bashTimeoutMs, bashMaxTimeoutMs, bashOutputBytes } = env.limits;
  const seconds = (ms: number) => ms / 1000;
  const max = seconds(bashMaxTimeoutMs);
  return {
    name: "bash",
    mutates: false,
    description:
      "Run a command with bash -c in the working directory, stdin closed. stdout and stderr come back combined; past " +
      `${bashOutputBytes} bytes, only the start and the end are kept. The result ends with [exit code: N].` +
      (env.bashSandbox ? ` Commands run ${env.bashSandbox}` : ""),
    schema: z
      .object({
        command: z
          .string()
          .refine((c) => c.trim() !== "", "command is blank")
          .describe("The bash command line"),
        timeout: z
          .number()
          .positive()
          .max(max, `timeout is at most ${max} seconds`)
          .optional()
          .describe(`Seconds before the command is killed (default ${seconds(bashTimeoutMs)}, at most ${max})`),
      })
      .strict(),
    guidance:
      unavailable(env) ??
      "Check the last line of a bash result, [exit code: N]: anything but 0 means the command failed. Background " +
        "jobs are killed when the command exits or times out." +
        (env.bashSandbox ? ` bash commands run ${env.bashSandbox}` : ""),
    run: (args, call) => runBash(runnerOf(env), env, args, call),
  };
}

// Why no command can run, in the words the guidance and every refused call use; undefined when bash works.
function unavailable(env: ToolEnv): string | undefined {
  if (!env.runner) return "bash cannot run in this session: no process runner was configured.";
  const gap = env.runner.treeStopGap?.();
  return gap === undefined ? undefined : `bash cannot run in this session: ${gap}.`;
}

// Asked again on every call: a runner's abilities (Deno's permissions) can change while the toolkit lives.
function runnerOf(env: ToolEnv): ProcessRunner {
  const why = unavailable(env);
  if (why !== undefined || !env.runner) throw new ToolError("TOOL_UNAVAILABLE", `${why} Nothing was run; tell the user.`);
  return env.runner;
}

async function runBash(runner: ProcessRunner, env: ToolEnv, args: BashArgs, call: CallContext): Promise<ToolOutput> {
  const { bashTimeoutMs, bashOutputBytes } = env.limits;
  const timeoutMs = args.timeout === undefined ? bashTimeoutMs : Math.max(1, Math.round(args.timeout * 1000));
  const headBytes = Math.floor(bashOutputBytes / 2);
  const output = new HeadTailCollector({ headBytes, tailBytes: bashOutputBytes - headBytes });
  const result = await runner.run({
    command: "bash",
    args: ["-c", args.command],
    cwd: call.cwd,
    ...(env.bashEnv ? { inheritEnv: env.bashEnv } : {}),
    stdout: output,
    stderr: output,
    timeoutMs,
    ...(call.signal ? { signal: call.signal } : {}),
  });
  let omitted = 0;
  const text = output.text(
    (n) => {
      omitted = n;
      return `[... ${n} of ${output.totalBytes} bytes omitted ...]`;
    },
    { wholeLines: true },
  );
  const shown = text === "" ? "(no output)" : text.endsWith("\n") ? text.slice(0, -1) : text;
  const meta = {
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.stopReason === "timeout",
    outputBytes: output.totalBytes,
    omittedBytes: omitted,
  };
  if (result.stopReason === "abort") {
    throw new ToolError("TOOL_ABORTED", `${shown}\n[cancelled; the command was stopped]`);
  }
  const lines = [shown];
  if (result.stopReason === "timeout") lines.push(`[timed out after ${timeoutMs / 1000} s and was stopped]`);
  lines.push(exitLine(result));
  return { content: lines.join("\n"), meta };
}

function exitLine(result: ProcessResult): string {
  if (result.exitCode !== null) return `[exit code: ${result.exitCode}]`;
  return `[exit code: none, killed by ${result.signal ?? "a signal"}]`;
}
