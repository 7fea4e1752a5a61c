// `toolfs acp`: an Agent Client Protocol agent on stdin/stdout. The ACP SDK is an optional peer dependency: the
// module that imports it (acp/serve.ts) loads only when the command runs.
import { sandboxPolicy, type SandboxOptions } from "../../core/mod.ts";
import { COMPOSITIONS } from "../acp/composition.ts";
import { createModel } from "../acp/drivers.ts";
import { createScriptedModel, type Model, ModelError, parseScript } from "../acp/model.ts";
import { PERMISSION_MODES, type PermissionMode } from "../acp/permissions.ts";
import {
  oneOf,
  type OptionSpec,
  positiveFlag,
  readArgs,
  SANDBOX_OPTIONS,
  type SandboxFlags,
  sandboxFlags,
  sandboxOptions,
  stringFlag,
  UsageError,
} from "./flags.ts";
import type { CliHost } from "./host.ts";
import { PEERS, withPeer } from "./peers.ts";
import { USAGE, usage } from "./usage.ts";

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

const ACP_OPTIONS: OptionSpec = {
  ...SANDBOX_OPTIONS,
  composition: { type: "string" },
  script: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  "api-key-env": { type: "string" },
  "context-window": { type: "string" },
  "max-tokens": { type: "string" },
  "max-steps": { type: "string" },
  "permission-mode": { type: "string" },
  backend: { type: "string" },
};

function parseAcp(argv: readonly string[]): AcpArgs | "help" {
  const read = readArgs(argv, ACP_OPTIONS, (arg) => `acp does not take ${arg}`);
  if (read.help) return "help";
  const [extra] = read.positionals;
  if (extra !== undefined) throw new UsageError(`acp does not take ${extra}`);
  const text = (name: string) => stringFlag(read, name);
  const positive = (name: string) => {
    const value = text(name);
    return value === undefined ? undefined : positiveFlag(`--${name}`, value);
  };
  const mode = text("permission-mode");
  const backend = text("backend");
  const args: AcpArgs = {
    composition: text("composition") ?? "bash-glob-grep",
    permissionMode: mode === undefined ? "ask" : oneOf("--permission-mode", mode, PERMISSION_MODES),
    backend: backend === undefined ? "node" : oneOf("--backend", backend, ["node", "overlay"] as const),
    flags: sandboxFlags(read),
  };
  const optional = {
    script: text("script"),
    model: text("model"),
    baseUrl: text("base-url"),
    apiKeyEnv: text("api-key-env"),
    contextWindow: positive("context-window"),
    maxTokens: positive("max-tokens"),
    maxSteps: positive("max-steps"),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(args, { [key]: value });
  if (args.script !== undefined && args.model !== undefined) throw new UsageError("give --model or --script, not both");
  const modelOnly = (["baseUrl", "apiKeyEnv", "contextWindow", "maxTokens"] as const).find((k) => args[k] !== undefined);
  if (modelOnly && args.model === undefined) throw new UsageError(`--${modelOnly.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --model`);
  if (args.baseUrl !== undefined && !/^https?:\/\/[^/]/.test(args.baseUrl)) throw new UsageError(`--base-url must be an http(s) URL, got "${args.baseUrl}"`);
  return args;
}

/** Runs `toolfs acp`; resolves to the exit status. */
export async function runAcp(argv: readonly string[], host: CliHost): Promise<number> {
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
  // Loaded before the streams are opened, so that a missing SDK leaves stdin alone.
  const served = await withPeer(
    (text) => host.err(text),
    "acp",
    PEERS.acp,
    () => import("../acp/serve.ts"),
  );
  if (!served) return 2;
  const { serveAcp } = served;
  const { input, output, signal } = acp.stdio();
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
