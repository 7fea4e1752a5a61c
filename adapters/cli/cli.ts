// The toolfs command line: runs tool calls in one session against a directory and prints what the model
// would see, or serves an ACP agent on stdio. A thin layer over the public API; everything runtime-specific
// arrives through CliHost.
import {
  approvalText,
  type ApprovalOutcome,
  type ApprovalRequest,
  createFsSpillStore,
  createOverlayProvider,
  createOverlaySearchBackend,
  createToolkit,
  type FileSystem,
  type OverlayFileSystem,
  type ProcessRunner,
  resultText,
  type SandboxOptions,
  sandboxPolicy,
  type SearchBackend,
  type ShellConfinement,
  type Toolkit,
} from "../../core/mod.ts";
// The ACP and MCP SDKs are optional peer dependencies: the modules that import them load only with their command.
import { COMPOSITIONS } from "../acp/composition.ts";
import { createModel } from "../acp/drivers.ts";
import { createScriptedModel, type Model, ModelError, parseScript } from "../acp/model.ts";
import type { AcpRuntime } from "../acp/mod.ts";
import { PERMISSION_MODES, type PermissionMode } from "../acp/permissions.ts";
import { noFlags, type SandboxFlags, sandboxFlag, UsageError } from "./flags.ts";
import { MCP_USAGE, type McpHost, runMcp } from "./mcp.ts";

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
  /**
   * Detects how bash can be confined by the operating system (bubblewrap); called only when a sandbox or a deny
   * list needs it. Without it, bash is not offered under a confining sandbox.
   */
  confinement?(): Promise<ShellConfinement>;
  /** The user's home directory: where path arguments starting with `~` start, and `~` in --deny patterns. */
  readonly home?: string;
  /** Asks the person at the terminal, or undefined when nobody can be asked. */
  readonly ask: ((question: string) => Promise<string>) | undefined;
  out(text: string): void;
  err(text: string): void;
  /** The runtime's side of `toolfs acp`; absent where the agent cannot run. Called only for that command. */
  readonly acp?: () => AcpHost;
  /** The runtime's side of `toolfs mcp`; absent where the server cannot run. Called only for that command. */
  readonly mcp?: () => McpHost;
}

/** What `toolfs acp` takes from its runtime. */
export interface AcpHost {
  readonly runtime: AcpRuntime;
  readText(path: string): Promise<string>;
  /** An environment variable (the model's key), or undefined when unset or not readable. */
  env(name: string): string | undefined;
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
  toolfs acp [--composition NAME] (--model PROVIDER:MODEL | --script FILE) [acp options]
                              serve an Agent Client Protocol agent on stdin/stdout (logs go to stderr)
${MCP_USAGE.command}

Runs the calls in order, in one session (a read authorizes a later edit), and prints what the model sees.

Options:
  --root DIR            workspace and working directory (default: the current directory)
  --backend node|memory|overlay
                        memory loads DIR into an in-memory volume first; nothing is written back.
                        overlay reads DIR where nothing was written and keeps every write in memory; after
                        the calls it prints the changes as a patch, and leaves DIR as it was
  --commit              with --backend overlay: then apply the changes to DIR, each only if nobody changed
                        that file meanwhile (otherwise nothing is applied and the conflicts are listed)
  --sandbox MODE        read-only | workspace-write | full-access (default: no sandbox); under read-only and
                        workspace-write, bash runs confined by bubblewrap, or is not offered where it cannot be
  --read-scope SCOPE    anywhere (default) | workspace: read, glob, grep and bash see only the workspace and
                        the writable roots
  --deny GLOB           a path no tool may read or write and bash cannot see, in every mode (.env, *.pem,
                        ~/.ssh, /abs/path); repeat for more
  --network             let a confined bash use the network (default: none)
  --bash-env NAME       a variable bash inherits besides PATH, HOME, USER, SHELL, LANG, LC_*, TERM, TZ, TMPDIR
                        (the rest of the environment, API keys included, is left out); NAME_* for a prefix,
                        * for everything; repeat for more
  --approve yes|no      answer sandbox escalation requests without asking
  --json                one JSON result per call, one per line
  --help                this text

acp options:
  --composition NAME    the tools and limits offered: ${Object.keys(COMPOSITIONS).join(", ")} (default bash-glob-grep)
  --model PROVIDER:MODEL  openai:MODEL (any Chat Completions server) or anthropic:MODEL
  --base-url URL        the API root, e.g. http://127.0.0.1:8080/v1 for a local server
  --api-key-env NAME    read the key from NAME (default OPENAI_API_KEY or ANTHROPIC_API_KEY;
                        with --base-url and no key set, none is sent)
  --context-window N    the model's window in tokens (default 128000 openai, 200000 anthropic)
  --max-tokens N        the longest reply in tokens (anthropic default 8192)
  --max-steps N         model requests per prompt before it stops (default 64)
  --permission-mode M   ask (default): ask before every write, edit and bash; allow-edits: ask before bash;
                        allow-all: never ask
  --script FILE         replay this model script (JSON: {"turns": [...]}) instead of calling a model
  --backend overlay     each session's writes stay in memory until the user types /commit; /changes shows
                        them as a patch, /undo takes back the last turn; bash is not offered
  --sandbox, --read-scope, --deny, --network, --bash-env   as above, for every session

${MCP_USAGE.options}

Example:
  toolfs read '{"path":"README.md"}' edit '{"path":"README.md","old_string":"a","new_string":"b"}'`;

interface Parsed {
  readonly command: "calls" | "tools" | "prompt" | "help";
  readonly calls: { tool: string; args: unknown; text: string }[];
  readonly root: string | undefined;
  readonly backend: "node" | "memory" | "overlay";
  readonly commit: boolean;
  readonly flags: SandboxFlags;
  readonly approve: "yes" | "no" | undefined;
  readonly json: boolean;
}

/**
 * The toolkit's sandbox options for the flags, or undefined when none was given. A read scope, a deny list or
 * the network flag without --sandbox means full-access writes with those limits.
 */
async function sandboxOptions(flags: SandboxFlags, host: CliHost, withBash: boolean): Promise<Omit<SandboxOptions, "approve"> | undefined> {
  if (!flags.sandbox && !flags.readScope && flags.deny.length === 0 && !flags.network) return undefined;
  const mode = flags.sandbox ?? "full-access";
  const confine = withBash && host.confinement && (mode !== "full-access" || flags.deny.length > 0 || flags.readScope === "workspace");
  return {
    mode,
    writableRoots: host.tempRoots,
    ...(flags.readScope ? { readScope: flags.readScope } : {}),
    ...(flags.deny.length > 0 ? { deny: flags.deny } : {}),
    ...(host.home ? { home: host.home } : {}),
    network: flags.network,
    ...(confine ? { confinement: await host.confinement!() } : {}),
  };
}

/** Runs the CLI; resolves to the exit status (0 success, 1 a call failed, 2 bad usage). */
export async function runCli(argv: readonly string[], host: CliHost): Promise<number> {
  if (argv[0] === "acp") return runAcp(argv.slice(1), host);
  if (argv[0] === "mcp") return runMcp(argv.slice(1), host, (message) => usage(host, message));
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
  const storage = parsed.backend === "memory" ? "memory" : "node";
  const base = await host.provider(storage, root);
  // The overlay writes nothing to the tree; spilled search results go to their folder as usual, outside it.
  const overlay = parsed.backend === "overlay" ? createOverlayProvider({ base }) : undefined;
  const fs = overlay ?? base;
  const baseSearch = host.search?.(storage, base);
  const search = overlay && baseSearch ? createOverlaySearchBackend(overlay, baseSearch) : baseSearch;
  const runner = host.runner && parsed.backend === "node" ? host.runner : undefined;
  // Said only to a user who asked for bash: its call then fails as a tool that is not offered.
  if (overlay && host.runner && parsed.calls.some((call) => call.tool === "bash")) host.err("toolfs: bash is not offered with --backend overlay: its commands would change the real files\n");
  let sandbox: Omit<SandboxOptions, "approve"> | undefined;
  let kit: Toolkit;
  try {
    sandbox = await sandboxOptions(parsed.flags, host, runner !== undefined);
    kit = createToolkit({
      fs,
      workspace: root,
      ...(search ? { search } : {}),
      ...(search && host.spillDirectory ? { spill: createFsSpillStore(base, host.spillDirectory) } : {}),
      ...(runner ? { runner } : {}),
      ...(parsed.flags.bashEnv.length > 0 ? { bashEnv: parsed.flags.bashEnv } : {}),
      ...(host.home ? { home: host.home } : {}),
      ...(sandbox ? { sandbox: { ...sandbox, ...approver(parsed, host) } } : {}),
    });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return usage(host, error.message);
  }
  // Said once, on stderr: the model is told by the tool list itself.
  for (const reason of Object.values(kit.withheld)) host.err(`toolfs: ${reason}\n`);
  if (parsed.command === "tools") {
    host.out(`${JSON.stringify(kit.definitions, null, 2)}\n`);
    return 0;
  }
  if (parsed.command === "prompt") {
    host.out(`${kit.guidance}\n`);
    return 0;
  }
  const status = await runCalls(kit, parsed, host);
  return overlay ? finishOverlay(overlay, parsed, host, status) : status;
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
    host.out(`${resultText(result)}\n`);
  }
  return failed ? 1 : 0;
}

// After the calls on --backend overlay: the changes as a patch, then, with --commit, the commit's outcome.
async function finishOverlay(overlay: OverlayFileSystem, parsed: Parsed, host: CliHost, status: number): Promise<number> {
  const changes = overlay.changes();
  const patch = await overlay.patch();
  const summary = changes.map((c) => ({ path: c.path, status: c.status, size: c.size }));
  const files = (n: number) => (n === 1 ? "1 file" : `${n} files`);
  if (!parsed.json) {
    const note = changes.length === 0 ? "no changes" : parsed.commit ? `${files(changes.length)} changed` : `${files(changes.length)} changed; not applied, --commit applies them`;
    host.out(`\n### patch (${note})\n${patch}`);
  }
  if (!parsed.commit || changes.length === 0) {
    if (parsed.json) host.out(`${JSON.stringify({ overlay: { changes: summary, patch } })}\n`);
    return status;
  }
  if (status !== 0) {
    if (parsed.json) host.out(`${JSON.stringify({ overlay: { changes: summary, patch, commit: { ok: false, held: "a call failed" } } })}\n`);
    else host.out("\n### commit\nNothing was committed: a call failed. Fix it and run again.\n");
    return status;
  }
  const commit = await overlay.commit();
  if (parsed.json) {
    const outcome = {
      ok: commit.ok,
      committed: commit.committed.map((c) => c.path),
      conflicts: commit.conflicts.map((c) => ({ path: c.change.path, reason: c.reason, message: c.message })),
      pending: commit.pending.map((c) => c.path),
    };
    host.out(`${JSON.stringify({ overlay: { changes: summary, patch, commit: outcome } })}\n`);
  } else if (commit.ok) {
    host.out(`\n### commit\nCommitted ${files(commit.committed.length)}: ${commit.committed.map((c) => c.path).join(", ")}\n`);
  } else {
    const lines = commit.conflicts.map((c) => `  ${c.change.path} (${c.reason}): ${c.message}`);
    const done = commit.committed.length === 0 ? "Nothing was committed" : `Committed only ${commit.committed.map((c) => c.path).join(", ")}`;
    const conflicts = commit.conflicts.length === 1 ? "1 conflict" : `${commit.conflicts.length} conflicts`;
    const left = commit.pending.length === 0 ? "" : `\nNot committed: ${commit.pending.map((c) => c.path).join(", ")}`;
    host.out(`\n### commit\n${done}; ${conflicts}:\n${lines.join("\n")}${left}\n`);
  }
  return commit.ok ? status : 1;
}

interface AcpArgs {
  composition: string;
  script?: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  contextWindow?: number;
  maxTokens?: number;
  maxSteps?: number;
  permissionMode: PermissionMode;
  backend: "node" | "overlay";
  readonly flags: SandboxFlags;
}

function parseAcp(argv: readonly string[]): AcpArgs | "help" {
  const args: AcpArgs = { composition: "bash-glob-grep", permissionMode: "ask", backend: "node", flags: noFlags() };
  const positive = (flag: string, text: string): number => {
    if (!/^[1-9]\d*$/.test(text)) throw new UsageError(`${flag} takes a positive whole number, got "${text}"`);
    return Number(text);
  };
  const oneOf = <T extends string>(flag: string, text: string, values: readonly T[]): T => {
    if (!(values as readonly string[]).includes(text)) throw new UsageError(`${flag} must be one of ${values.join(", ")}, got "${text}"`);
    return text as T;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") return "help";
    const taken = sandboxFlag(argv, i, args.flags);
    if (taken > 0) {
      i += taken - 1;
      continue;
    }
    const value = argv[i + 1];
    if (!arg.startsWith("--")) throw new UsageError(`acp does not take ${arg}`);
    if (value === undefined) throw new UsageError(`${arg} needs a value`);
    i++;
    if (arg === "--composition") args.composition = value;
    else if (arg === "--script") args.script = value;
    else if (arg === "--model") args.model = value;
    else if (arg === "--base-url") args.baseUrl = value;
    else if (arg === "--api-key-env") args.apiKeyEnv = value;
    else if (arg === "--context-window") args.contextWindow = positive(arg, value);
    else if (arg === "--max-tokens") args.maxTokens = positive(arg, value);
    else if (arg === "--max-steps") args.maxSteps = positive(arg, value);
    else if (arg === "--permission-mode") args.permissionMode = oneOf(arg, value, PERMISSION_MODES);
    else if (arg === "--backend") args.backend = oneOf(arg, value, ["node", "overlay"] as const);
    else throw new UsageError(`acp does not take ${arg}`);
  }
  if (args.script !== undefined && args.model !== undefined) throw new UsageError("give --model or --script, not both");
  const modelOnly = (["baseUrl", "apiKeyEnv", "contextWindow", "maxTokens"] as const).find((k) => args[k] !== undefined);
  if (modelOnly && args.model === undefined) throw new UsageError(`--${modelOnly.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --model`);
  if (args.baseUrl !== undefined && !/^https?:\/\/[^/]/.test(args.baseUrl)) throw new UsageError(`--base-url must be an http(s) URL, got "${args.baseUrl}"`);
  return args;
}

async function runAcp(argv: readonly string[], host: CliHost): Promise<number> {
  let args: AcpArgs;
  try {
    const parsed = parseAcp(argv);
    if (parsed === "help") {
      host.err(`${USAGE}\n`);
      return 0;
    }
    args = parsed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usage(host, error.message);
  }
  const chosen = COMPOSITIONS[args.composition];
  if (!chosen) return usage(host, `--composition must be one of ${Object.keys(COMPOSITIONS).join(", ")}, got "${args.composition}"`);
  if (!host.acp) {
    host.err("toolfs: acp cannot run on this runtime\n");
    return 2;
  }
  const acp = host.acp();
  const log = (line: string) => host.err(`${line}\n`);
  let model: Model | undefined;
  if (args.script !== undefined) {
    try {
      model = createScriptedModel(parseScript(await acp.readText(args.script)));
    } catch (error) {
      const reason = error instanceof ModelError ? error.message : `cannot read it (${(error as Error).message})`;
      host.err(`toolfs: --script ${args.script}: ${reason}\n`);
      return 2;
    }
  } else if (args.model !== undefined) {
    try {
      model = createModel(args.model, {
        env: (name) => acp.env(name),
        log,
        ...(args.baseUrl === undefined ? {} : { baseUrl: args.baseUrl }),
        ...(args.apiKeyEnv === undefined ? {} : { apiKeyEnv: args.apiKeyEnv }),
        ...(args.contextWindow === undefined ? {} : { contextWindow: args.contextWindow }),
        ...(args.maxTokens === undefined ? {} : { maxTokens: args.maxTokens }),
      });
    } catch (error) {
      if (!(error instanceof ModelError)) throw error;
      host.err(`toolfs: ${error.message}\n`);
      return 2;
    }
  } else {
    host.err("toolfs acp: no --model or --script given; every prompt will fail\n");
  }
  let sandbox: Omit<SandboxOptions, "approve"> | undefined;
  try {
    sandbox = await sandboxOptions(args.flags, host, chosen.tools.includes("bash") && args.backend !== "overlay");
    // Checked now, so that a bad pattern is a usage error before the protocol starts.
    if (sandbox) sandboxPolicy({ ...sandbox, workspace: host.cwd });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return usage(host, error.message);
  }
  const { input, output, signal } = acp.stdio();
  const { serveAcp } = await import("../acp/serve.ts");
  try {
    await serveAcp({
      input,
      output,
      runtime: acp.runtime,
      ...(signal ? { signal } : {}),
      composition: chosen,
      model,
      log,
      permissionMode: args.permissionMode,
      ...(args.flags.bashEnv.length > 0 ? { bashEnv: args.flags.bashEnv } : {}),
      ...(args.backend === "overlay" ? { overlay: true } : {}),
      ...(args.maxSteps === undefined ? {} : { maxTurnRequests: args.maxSteps }),
      ...(sandbox ? { sandbox } : {}),
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
      const text = approvalText(request);
      const reply = await ask(`toolfs: the model asks for ${text.title}, for this call only\n${text.lines.map((line) => `  ${line}\n`).join("")}Allow this once? [y/N] `);
      return /^y(es)?$/i.test(reply.trim()) ? "allowed-once" : "rejected";
    },
  };
}

function parse(argv: readonly string[]): Parsed {
  const positional: string[] = [];
  let root: string | undefined;
  let backend: "node" | "memory" | "overlay" = "node";
  let commit = false;
  const flags = noFlags();
  let approve: "yes" | "no" | undefined;
  let json = false;
  const value = (i: number, flag: string): string => {
    const next = argv[i + 1];
    if (next === undefined) throw new UsageError(`${flag} needs a value`);
    return next;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") return { command: "help", calls: [], root, backend, commit, flags, approve, json };
    const taken = sandboxFlag(argv, i, flags);
    if (taken > 0) i += taken - 1;
    else if (arg === "--json") json = true;
    else if (arg === "--commit") commit = true;
    else if (arg === "--root") root = value(i++, arg);
    else if (arg === "--backend") {
      const chosen = value(i++, arg);
      if (chosen !== "node" && chosen !== "memory" && chosen !== "overlay") throw new UsageError(`--backend must be node, memory or overlay, got "${chosen}"`);
      backend = chosen;
    } else if (arg === "--approve") {
      const chosen = value(i++, arg);
      if (chosen !== "yes" && chosen !== "no") throw new UsageError(`--approve must be yes or no, got "${chosen}"`);
      approve = chosen;
    } else if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  if (commit && backend !== "overlay") throw new UsageError("--commit goes with --backend overlay");
  const base = { root, backend, commit, flags, approve, json };
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
