// The toolfs command line: runs tool calls in one session against a directory and prints what the model
// would see; `toolfs acp` (acp.ts) and `toolfs mcp` (mcp.ts) serve agents. A thin layer over the public API;
// everything runtime-specific arrives through the hosts (host.ts).
import {
  approvalText,
  type ApprovalOutcome,
  builtinTool,
  type ApprovalRequest,
  createFsSpillStore,
  createOverlayProvider,
  createOverlaySearchBackend,
  createToolkit,
  type DefinedTool,
  type OverlayFileSystem,
  resultText,
  type SandboxOptions,
  type Toolkit,
} from "../../core/mod.ts";
import { runAcp } from "./acp.ts";
import { oneOf, type OptionSpec, readArgs, SANDBOX_OPTIONS, type SandboxFlags, sandboxFlags, sandboxOptions, stringFlag, UsageError } from "./flags.ts";
import type { CliHost } from "./host.ts";
import { runMcp } from "./mcp.ts";
import { PEERS, withPeer } from "./peers.ts";
import { USAGE, usage } from "./usage.ts";

export type { AcpHost, AcpStdio, CliHost, McpHost } from "./host.ts";

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

/** Runs the CLI; resolves to the exit status (0 success, 1 a call failed, 2 bad usage). */
export async function runCli(argv: readonly string[], host: CliHost): Promise<number> {
  if (argv[0] === "acp") return runAcp(argv.slice(1), host);
  if (argv[0] === "mcp") return runMcp(argv.slice(1), host);
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
  const base = await withPeer(
    (text) => host.err(text),
    "--backend memory",
    PEERS.memory,
    () => host.provider(storage, root),
  );
  if (!base) return 2;
  // The overlay writes nothing to the tree; spilled search results go to their folder as usual, outside it.
  const overlay = parsed.backend === "overlay" ? createOverlayProvider({ base }) : undefined;
  const fs = overlay ?? base;
  const baseSearch = host.search?.(storage, base);
  const search = overlay && baseSearch ? createOverlaySearchBackend(overlay, baseSearch) : baseSearch;
  const runner = host.runner && parsed.backend === "node" ? host.runner : undefined;
  // Said only to a user who asked for bash: its call then fails as a tool that is not offered.
  if (overlay && host.runner && parsed.calls.some((call) => call.tool === "bash"))
    host.err("toolfs: bash is not offered with --backend overlay: its commands would change the real files\n");
  let sandbox: Omit<SandboxOptions, "approve"> | undefined;
  let kit: Toolkit;
  try {
    sandbox = await sandboxOptions(parsed.flags, host, runner !== undefined);
    const make = (tools?: readonly DefinedTool[]) =>
      createToolkit({
        ...(tools ? { tools } : {}),
        fs,
        workspace: root,
        ...(search ? { search } : {}),
        ...(search && host.spillDirectory ? { spill: createFsSpillStore(base, host.spillDirectory) } : {}),
        ...(runner ? { runner } : {}),
        ...(parsed.flags.bashEnv.length > 0 ? { bashEnv: parsed.flags.bashEnv } : {}),
        ...(host.home ? { home: host.home } : {}),
        ...(sandbox ? { sandbox: { ...sandbox, ...approver(parsed, host) } } : {}),
      });
    kit = make();
    // A built-in tool named on the command line is offered even when the default list leaves it out (such as
    // one a model family asks for), if what it needs is there; a withheld one stays withheld, and says why.
    const needs = { search: search !== undefined, runner: runner !== undefined };
    const named = parsed.calls.map((call) => call.tool);
    const extra = named.filter((name, i) => {
      const tool = builtinTool(name);
      return named.indexOf(name) === i && tool && !kit.tool(name) && !(name in kit.withheld) && (tool.needs === undefined || needs[tool.needs]);
    });
    if (extra.length > 0) kit = make([...kit.definitions.map((d) => kit.tool(d.name)!), ...extra.map((name) => builtinTool(name)!)]);
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
    const note =
      changes.length === 0
        ? "no changes"
        : parsed.commit
          ? `${files(changes.length)} changed`
          : `${files(changes.length)} changed; not applied, --commit applies them`;
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
      const reply = await ask(
        `toolfs: the model asks for ${text.title}, for this call only\n${text.lines.map((line) => `  ${line}\n`).join("")}Allow this once? [y/N] `,
      );
      return /^y(es)?$/i.test(reply.trim()) ? "allowed-once" : "rejected";
    },
  };
}

const OPTIONS: OptionSpec = {
  ...SANDBOX_OPTIONS,
  root: { type: "string" },
  backend: { type: "string" },
  commit: { type: "boolean" },
  approve: { type: "string" },
  json: { type: "boolean" },
};

function parse(argv: readonly string[]): Parsed {
  const read = readArgs(argv, OPTIONS, (arg) => `unknown option ${arg}`);
  const root = stringFlag(read, "root");
  const flags = sandboxFlags(read);
  const commit = read.values.commit === true;
  const json = read.values.json === true;
  const chosen = stringFlag(read, "backend");
  const backend = chosen === undefined ? "node" : oneOf("--backend", chosen, ["node", "memory", "overlay"] as const, "node, memory or overlay");
  const answer = stringFlag(read, "approve");
  const approve = answer === undefined ? undefined : oneOf("--approve", answer, ["yes", "no"] as const, "yes or no");
  if (read.help) return { command: "help", calls: [], root, backend, commit, flags, approve, json };
  const positional = read.positionals;
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
