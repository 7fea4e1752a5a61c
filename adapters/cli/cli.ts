// The toolfs command line: runs tool calls in one session against a directory and prints what the model
// would see, or serves an ACP agent on stdio. A thin layer over the public API; everything runtime-specific
// arrives through CliHost.
import {
  type ApprovalOutcome,
  type ApprovalRequest,
  createFsSpillStore,
  createToolkit,
  type FileSystem,
  SANDBOX_MODES,
  type SandboxMode,
  type ProcessRunner,
  type SearchBackend,
  type Toolkit,
} from "../../core/mod.ts";
import { type AcpRuntime, COMPOSITIONS, createScriptedModel, type Model, ModelError, parseScript, serveAcp } from "../acp/mod.ts";

/** What the CLI needs from its runtime. */
export interface CliHost {
  readonly cwd: string;
  /** Canonical absolute path of a directory, or an error message. */
  realDirectory(path: string): Promise<string | { error: string }>;
  /** A provider for `root` on the chosen backend. */
  provider(backend: "node" | "memory", root: string): Promise<FileSystem>;
  /** The search backend for that provider, when glob and grep are available. */
  search?(backend: "node" | "memory", fs: FileSystem): SearchBackend | undefined;
  /** Directory (absolute) where complete over-cap search results are saved. */
  readonly spillDirectory?: string;
  /** Runs the bash tool's commands (on the node backend; a memory volume has no programs). */
  readonly runner?: ProcessRunner;
  /** Extra writable roots for workspace-write (the system's temp directories). */
  readonly tempRoots: readonly string[];
  /** Asks the person at the terminal, or undefined when nobody can be asked. */
  readonly ask: ((question: string) => Promise<string>) | undefined;
  out(text: string): void;
  err(text: string): void;
  /** The runtime's side of `toolfs acp`; absent where the agent cannot run. Called only for that command. */
  readonly acp?: () => AcpHost;
}

/** What `toolfs acp` takes from its runtime. */
export interface AcpHost {
  readonly runtime: AcpRuntime;
  readText(path: string): Promise<string>;
  /** Opens the protocol's streams; called once the options are known to be good, so a refusal leaves stdin alone. */
  stdio(): AcpStdio;
}

export interface AcpStdio {
  /** The protocol's input (stdin) and output (stdout); diagnostics go to CliHost.err. */
  readonly input: ReadableStream<Uint8Array>;
  readonly output: WritableStream<Uint8Array>;
  /** Fires when the process is asked to stop, so running tools are stopped before it exits. */
  readonly signal?: AbortSignal;
}

const USAGE = `Usage:
  toolfs <tool> '<json args>' [<tool> '<json args>' ...] [options]
  toolfs tools [options]      print the tool definitions as JSON
  toolfs prompt [options]     print the system-prompt guidance
  toolfs acp [--composition NAME] [--script FILE]
                              serve an Agent Client Protocol agent on stdin/stdout (logs go to stderr)

Runs the calls in order, in one session (a read authorizes a later edit), and prints what the model sees.

Options:
  --root DIR            workspace and working directory (default: the current directory)
  --backend node|memory memory loads DIR into an in-memory volume first; nothing is written back
  --sandbox MODE        read-only | workspace-write | full-access (default: no sandbox)
  --approve yes|no      answer sandbox escalation requests without asking
  --json                one JSON result per call, one per line
  --help                this text

acp options:
  --composition NAME    the tools and limits offered: ${Object.keys(COMPOSITIONS).join(", ")} (default)
  --script FILE         replay this model script (JSON: {"turns": [...]}) instead of calling a model

Example:
  toolfs read '{"path":"README.md"}' edit '{"path":"README.md","old_string":"a","new_string":"b"}'`;

interface Parsed {
  readonly command: "calls" | "tools" | "prompt" | "help";
  readonly calls: { tool: string; args: unknown; text: string }[];
  readonly root: string | undefined;
  readonly backend: "node" | "memory";
  readonly sandbox: SandboxMode | undefined;
  readonly approve: "yes" | "no" | undefined;
  readonly json: boolean;
}

class UsageError extends Error {}

/** Runs the CLI; resolves to the exit status (0 success, 1 a call failed, 2 bad usage). */
export async function runCli(argv: readonly string[], host: CliHost): Promise<number> {
  if (argv[0] === "acp") return runAcp(argv.slice(1), host);
  let parsed: Parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usage(host, error.message);
  }
  if (parsed.command === "help") {
    host.out(`${USAGE}\n`);
    return 0;
  }
  const root = await host.realDirectory(parsed.root ?? host.cwd);
  if (typeof root !== "string") {
    host.err(`toolfs: ${root.error}\n`);
    return 2;
  }
  const fs = await host.provider(parsed.backend, root);
  const search = host.search?.(parsed.backend, fs);
  const kit = createToolkit({
    fs,
    workspace: root,
    ...(search ? { search } : {}),
    ...(search && host.spillDirectory ? { spill: createFsSpillStore(fs, host.spillDirectory) } : {}),
    ...(host.runner && parsed.backend === "node" ? { runner: host.runner } : {}),
    ...(parsed.sandbox ? { sandbox: { mode: parsed.sandbox, writableRoots: host.tempRoots, ...approver(parsed, host) } } : {}),
  });
  if (parsed.command === "tools") {
    host.out(`${JSON.stringify(kit.definitions, null, 2)}\n`);
    return 0;
  }
  if (parsed.command === "prompt") {
    host.out(`${kit.guidance}\n`);
    return 0;
  }
  return runCalls(kit, parsed, host);
}

async function runCalls(kit: Toolkit, parsed: Parsed, host: CliHost): Promise<number> {
  let failed = false;
  for (const [index, { tool, args, text }] of parsed.calls.entries()) {
    const result = await kit.call(tool, args);
    failed ||= result.isError;
    if (parsed.json) {
      host.out(`${JSON.stringify({ tool, args, ...result })}\n`);
      continue;
    }
    if (parsed.calls.length > 1) host.out(`${index > 0 ? "\n" : ""}### ${tool} ${text}\n`);
    host.out(`${result.content}\n`);
  }
  return failed ? 1 : 0;
}

async function runAcp(argv: readonly string[], host: CliHost): Promise<number> {
  let composition = "bash-glob-grep";
  let script: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (arg === "--help" || arg === "-h") {
      host.err(`${USAGE}\n`);
      return 0;
    }
    if ((arg === "--composition" || arg === "--script") && next === undefined) return usage(host, `${arg} needs a value`);
    if (arg === "--composition") composition = argv[++i] as string;
    else if (arg === "--script") script = argv[++i] as string;
    else return usage(host, `acp does not take ${arg}`);
  }
  const chosen = COMPOSITIONS[composition];
  if (!chosen) return usage(host, `--composition must be one of ${Object.keys(COMPOSITIONS).join(", ")}, got "${composition}"`);
  if (!host.acp) {
    host.err("toolfs: acp cannot run on this runtime\n");
    return 2;
  }
  const acp = host.acp();
  let model: Model | undefined;
  if (script !== undefined) {
    try {
      model = createScriptedModel(parseScript(await acp.readText(script)));
    } catch (error) {
      const reason = error instanceof ModelError ? error.message : `cannot read it (${(error as Error).message})`;
      host.err(`toolfs: --script ${script}: ${reason}\n`);
      return 2;
    }
  } else {
    host.err("toolfs acp: no --script given and no model client is built in; every prompt will fail\n");
  }
  const { input, output, signal } = acp.stdio();
  try {
    await serveAcp({
      input,
      output,
      runtime: acp.runtime,
      ...(signal ? { signal } : {}),
      composition: chosen,
      model,
      log: (line) => host.err(`${line}\n`),
    });
  } catch (error) {
    // The connection could not go on (its input failed): say so, and do not exit as if the client had left.
    host.err(`toolfs acp: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return 0;
}

function usage(host: CliHost, message: string): number {
  host.err(`toolfs: ${message}\n\n${USAGE}\n`);
  return 2;
}

function approver(parsed: Parsed, host: CliHost): { approve?: (request: ApprovalRequest) => Promise<ApprovalOutcome> } {
  if (parsed.approve) {
    const answer: ApprovalOutcome = parsed.approve === "yes" ? "allowed-once" : "rejected";
    return { approve: async () => answer };
  }
  const ask = host.ask;
  if (!ask) return {};
  return {
    approve: async (request) => {
      const reply = await ask(
        `toolfs: the model asks for ${request.mode} access to ${request.tool} ${request.path}\n` +
          `  reason: ${request.justification}\nAllow this once? [y/N] `,
      );
      return /^y(es)?$/i.test(reply.trim()) ? "allowed-once" : "rejected";
    },
  };
}

function parse(argv: readonly string[]): Parsed {
  const positional: string[] = [];
  let root: string | undefined;
  let backend: "node" | "memory" = "node";
  let sandbox: SandboxMode | undefined;
  let approve: "yes" | "no" | undefined;
  let json = false;
  const value = (i: number, flag: string): string => {
    const next = argv[i + 1];
    if (next === undefined) throw new UsageError(`${flag} needs a value`);
    return next;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") return { command: "help", calls: [], root, backend, sandbox, approve, json };
    if (arg === "--json") json = true;
    else if (arg === "--root") root = value(i++, arg);
    else if (arg === "--backend") {
      const chosen = value(i++, arg);
      if (chosen !== "node" && chosen !== "memory") throw new UsageError(`--backend must be node or memory, got "${chosen}"`);
      backend = chosen;
    } else if (arg === "--sandbox") {
      const chosen = value(i++, arg);
      if (!(SANDBOX_MODES as readonly string[]).includes(chosen)) throw new UsageError(`--sandbox must be one of ${SANDBOX_MODES.join(", ")}`);
      sandbox = chosen as SandboxMode;
    } else if (arg === "--approve") {
      const chosen = value(i++, arg);
      if (chosen !== "yes" && chosen !== "no") throw new UsageError(`--approve must be yes or no, got "${chosen}"`);
      approve = chosen;
    } else if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  const base = { root, backend, sandbox, approve, json };
  if (positional.length === 0) throw new UsageError("name a tool to call, or tools, or prompt");
  if (positional.length === 1 && (positional[0] === "tools" || positional[0] === "prompt")) {
    return { command: positional[0], calls: [], ...base };
  }
  if (positional.length % 2 !== 0) throw new UsageError(`"${positional.at(-1)}" needs its JSON arguments`);
  const calls: Parsed["calls"] = [];
  for (let i = 0; i < positional.length; i += 2) {
    const tool = positional[i] as string;
    const text = positional[i + 1] as string;
    let args: unknown;
    try {
      args = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`the arguments of ${tool} are not JSON (${(error as Error).message}): ${text}`);
    }
    calls.push({ tool, args, text });
  }
  return { command: "calls", calls, ...base };
}
