import { z } from "zod";
import { boundMessage, quoteInput } from "../errors/mod.ts";
import { FsError, isFsError, throwIfAborted } from "../fs/errors.ts";
import { isAbsolutePath, resolvePath } from "../fs/paths.ts";
import type { FileSystem, FsFence } from "../fs/types.ts";
import { ObservationLedger } from "../policy/ledger.ts";
import { isWiderMode, type SandboxMode, sandboxFence, widerModes } from "../policy/sandbox.ts";
import { isProcessError } from "../process/errors.ts";
import type { ProcessRunner } from "../process/types.ts";
import { isSearchError } from "../search/errors.ts";
import type { SearchBackend } from "../search/backend.ts";
import type { SpillStore } from "../spill/mod.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { readTool } from "./read.ts";
import { type CallContext, DEFAULT_LIMITS, inputJsonSchema, type Tool, type ToolEnv, type ToolLimits } from "./tool.ts";
import { type ToolCallOptions, type ToolDefinition, ToolError, type ToolResult } from "./types.ts";
import { writeTool } from "./write.ts";

/** The tools a toolkit can register. */
export type ToolName = "read" | "write" | "edit" | "glob" | "grep" | "bash";

/** What a host decides about one escalation request. */
export type ApprovalOutcome = "allowed-once" | "rejected" | "cancelled";

export interface ApprovalRequest {
  readonly tool: string;
  /** The display path of the destination the sandbox refused. */
  readonly path: string;
  readonly mode: SandboxMode;
  readonly justification: string;
  readonly actor: unknown;
  readonly signal: AbortSignal | undefined;
}

export interface SandboxOptions {
  readonly mode: SandboxMode;
  /** Writable in workspace-write mode; defaults to the toolkit's workspace. */
  readonly workspaceRoot?: string;
  /** Further writable roots, such as the system's temp directories. */
  readonly writableRoots?: readonly string[];
  /** Asked when the model retries a denied write with a wider mode. Without it, such retries fail. */
  readonly approve?: (request: ApprovalRequest) => Promise<ApprovalOutcome>;
}

export interface ToolkitOptions {
  readonly fs: FileSystem;
  /** Registered tools, in order; defaults to every tool the options make possible. */
  readonly tools?: readonly ToolName[];
  /** Absolute directory relative paths start from and paths are shown relative to; defaults to the provider's cwd. */
  readonly workspace?: string;
  readonly limits?: Partial<ToolLimits>;
  /** "read-before-write" (default): writes and edits are guarded by what the actor read. "none": unguarded. */
  readonly policy?: "read-before-write" | "none";
  readonly sandbox?: SandboxOptions;
  /** Runs glob and grep; without it those tools are not registered by default. */
  readonly search?: SearchBackend;
  /** Keeps complete over-cap glob and grep results for the model to page through. */
  readonly spill?: SpillStore;
  /** How an over-cap glob page is chosen: a sample across top-level entries (default), or the oldest. */
  readonly overCap?: "sample" | "head";
  /**
   * Runs bash on the host, outside the provider and the sandbox fence; without it bash is not registered by
   * default. A confining sandbox and bash cannot be combined.
   */
  readonly runner?: ProcessRunner;
}

export interface Toolkit {
  /** The registered tools as a model sees them. */
  readonly definitions: readonly ToolDefinition[];
  /** System-prompt guidance for the registered tools. */
  readonly guidance: string;
  /** Runs one call. Never throws: every failure is a result with `isError` and a code. */
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult>;
}

const DEFAULT_ACTOR: unique symbol = Symbol("toolfs default actor");

/** Builds the model-facing tools over a provider. */
export function createToolkit(options: ToolkitOptions): Toolkit {
  return new ToolkitImpl(options);
}

interface Registered {
  readonly tool: Tool<Record<string, unknown>>;
  readonly schema: z.ZodType<Record<string, unknown>>;
  readonly definition: ToolDefinition;
}

interface Escalation {
  readonly mode: SandboxMode;
  readonly justification: string;
}

class ToolkitImpl implements Toolkit {
  readonly #fs: FileSystem;
  readonly #workspace: string;
  readonly #sandbox: SandboxOptions | undefined;
  readonly #tools = new Map<string, Registered>();
  // Per actor: the last write or edit the sandbox refused, the only call an escalation may retry.
  readonly #denied = new Map<unknown, { tool: string; key: string }>();
  readonly definitions: readonly ToolDefinition[];
  readonly guidance: string;

  constructor(options: ToolkitOptions) {
    this.#fs = options.fs;
    this.#workspace = options.workspace ? absolute(options.workspace, "workspace") : options.fs.cwd;
    this.#sandbox = options.sandbox;
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    for (const [key, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`limits.${key} must be a positive integer, got ${String(value)}`);
    }
    if (limits.bashTimeoutMs > limits.bashMaxTimeoutMs) {
      throw new RangeError(`limits.bashTimeoutMs (${limits.bashTimeoutMs}) must not exceed limits.bashMaxTimeoutMs (${limits.bashMaxTimeoutMs})`);
    }
    const confining = this.#sandbox !== undefined && this.#sandbox.mode !== "full-access";
    const names: readonly ToolName[] = options.tools ?? [
      "read",
      "write",
      "edit",
      ...(options.search ? (["glob", "grep"] as const) : []),
      ...(options.runner && !confining ? (["bash"] as const) : []),
    ];
    // A sandbox that bash could write around would make the guidance about refused writes untrue.
    if (confining && names.includes("bash")) {
      throw new RangeError(`bash runs outside the sandbox fence, so it cannot be registered with a ${this.#sandbox!.mode} sandbox`);
    }
    const env: ToolEnv = {
      fs: options.fs,
      limits,
      ledger: options.policy === "none" ? undefined : new ObservationLedger(),
      has: (name) => (names as readonly string[]).includes(name),
      search: options.search,
      spill: options.spill,
      overCap: options.overCap ?? "sample",
      runner: options.runner,
    };
    const factories = { read: readTool, write: writeTool, edit: editTool, glob: globTool, grep: grepTool, bash: bashTool } as const;
    for (const name of names) {
      const tool = factories[name](env) as unknown as Tool<Record<string, unknown>>;
      const schema = tool.mutates && confining ? withEscalation(tool.schema, this.#sandbox!.mode) : tool.schema;
      this.#tools.set(name, {
        tool,
        schema,
        definition: { name, description: tool.description, inputSchema: inputJsonSchema(schema) },
      });
    }
    this.definitions = [...this.#tools.values()].map((r) => r.definition);
    this.guidance = this.#guidance(confining);
  }

  async call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult> {
    try {
      const registered = this.#tools.get(name);
      if (!registered) {
        throw new ToolError("TOOL_UNKNOWN", `Unknown tool ${quoteInput(name)}; available: ${[...this.#tools.keys()].join(", ")}`);
      }
      const parsed = registered.schema.safeParse(args);
      if (!parsed.success) throw invalidArguments(name, parsed.error);
      throwIfAborted(options?.signal);
      const { sandbox_permissions, justification, ...toolArgs } = parsed.data as Record<string, unknown>;
      const call: CallContext = {
        signal: options?.signal,
        cwd: options?.cwd === undefined ? this.#workspace : absolute(options.cwd, "cwd"),
        workspace: this.#workspace,
        actor: options?.actor ?? DEFAULT_ACTOR,
        fence: undefined,
      };
      if (!registered.tool.mutates || !this.#sandbox) return await this.#run(registered.tool, toolArgs, call);
      const escalation = sandbox_permissions === undefined ? undefined : { mode: sandbox_permissions as SandboxMode, justification: String(justification) };
      return await this.#runFenced(registered.tool, toolArgs, call, escalation);
    } catch (error) {
      return failure(error);
    }
  }

  async #run(tool: Tool<Record<string, unknown>>, args: Record<string, unknown>, call: CallContext): Promise<ToolResult> {
    const { content, meta } = await tool.run(args, call);
    return { content, isError: false, meta };
  }

  // A mutation under the sandbox: the fence for the standing mode, or, for a retry of the call the sandbox
  // just refused, a wider mode the host approved for this one call.
  async #runFenced(
    tool: Tool<Record<string, unknown>>,
    args: Record<string, unknown>,
    call: CallContext,
    escalation: Escalation | undefined,
  ): Promise<ToolResult> {
    const sandbox = this.#sandbox as SandboxOptions;
    const target = await this.#fs.resolve(String(args.path), { cwd: call.cwd, signal: call.signal });
    let mode = sandbox.mode;
    if (escalation) {
      const denied = this.#denied.get(call.actor);
      if (!denied || denied.tool !== tool.name || denied.key !== target.key) {
        throw new ToolError(
          "TOOL_INVALID_ARGUMENTS",
          "sandbox_permissions is only valid when retrying, once, a write or edit the sandbox has just refused; call without it",
        );
      }
      this.#denied.delete(call.actor);
      if (!isWiderMode(escalation.mode, mode)) {
        throw new ToolError("TOOL_INVALID_ARGUMENTS", `sandbox_permissions must be wider than the current mode (${mode})`);
      }
      mode = await this.#approve(tool.name, target.displayPath, escalation, call);
    }
    const fence = await this.#fence(mode, call);
    try {
      const result = await this.#run(tool, args, { ...call, fence });
      this.#denied.delete(call.actor);
      return result;
    } catch (error) {
      if (!isFsError(error, "FS_SANDBOX_DENIED")) {
        this.#denied.delete(call.actor);
        throw error;
      }
      this.#denied.set(call.actor, { tool: tool.name, key: target.key });
      const wider = widerModes(mode);
      const choices = wider.length === 1 ? `"${wider[0]}"` : `${wider.map((m) => `"${m}"`).join(" or ")} (the narrowest that suffices)`;
      const hint =
        wider.length === 0 || escalation
          ? ""
          : `\n[escalation] If this write is necessary, retry this exact call once with sandbox_permissions set to ${choices} ` +
            "and a one-sentence justification; the user will be asked.";
      throw new FsError("FS_SANDBOX_DENIED", `${error.message}${hint}`, { cause: error, details: error.details });
    }
  }

  async #approve(tool: string, path: string, escalation: Escalation, call: CallContext): Promise<SandboxMode> {
    const approve = this.#sandbox?.approve;
    if (!approve) {
      throw new ToolError("TOOL_ESCALATION_UNAVAILABLE", "No one can approve wider sandbox permissions here; nothing was changed");
    }
    const outcome = await approve({ tool, path, mode: escalation.mode, justification: escalation.justification, actor: call.actor, signal: call.signal });
    if (outcome === "allowed-once") return escalation.mode;
    if (outcome === "cancelled") {
      throw new ToolError("TOOL_ESCALATION_CANCELLED", "The approval request was cancelled; nothing was changed");
    }
    throw new ToolError("TOOL_ESCALATION_REJECTED", `The user declined ${escalation.mode} access for this call; nothing was changed. Do not retry it`);
  }

  async #fence(mode: SandboxMode, call: CallContext): Promise<FsFence> {
    const sandbox = this.#sandbox as SandboxOptions;
    const paths = [sandbox.workspaceRoot ?? this.#workspace, ...(sandbox.writableRoots ?? [])];
    const roots = await Promise.all(paths.map((p) => this.#fs.resolve(p, { signal: call.signal })));
    return sandboxFence(this.#fs, mode, roots);
  }

  #guidance(confining: boolean): string {
    const parts = [...this.#tools.values()].map((r) => r.tool.guidance);
    if (confining && [...this.#tools.values()].some((r) => r.tool.mutates)) {
      const mode = this.#sandbox!.mode;
      parts.push(
        mode === "read-only"
          ? "Writes are refused in this session (read-only sandbox)."
          : "Writes outside the workspace and temp directories are refused (workspace-write sandbox).",
      );
    }
    return parts.join("\n");
  }
}

function withEscalation(schema: z.ZodType<Record<string, unknown>>, mode: SandboxMode): z.ZodType<Record<string, unknown>> {
  const wider = widerModes(mode) as [SandboxMode, ...SandboxMode[]];
  const object = schema as unknown as z.ZodObject;
  return object
    .extend({
      sandbox_permissions: z
        .enum(wider)
        .optional()
        .describe("Only when retrying, once, a call the sandbox just refused: the wider mode to ask the user for"),
      justification: z.string().optional().describe("With sandbox_permissions: one sentence telling the user why this call needs it"),
    })
    .strict()
    .refine((args) => (args.sandbox_permissions === undefined) === (args.justification === undefined), {
      message: "sandbox_permissions and justification go together",
    })
    .refine((args) => typeof args.justification !== "string" || args.justification.trim() !== "", {
      message: "justification must be a sentence, not blank",
    }) as unknown as z.ZodType<Record<string, unknown>>;
}

function invalidArguments(tool: string, error: z.ZodError): ToolError {
  const problems = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join(".") : "arguments";
    return `${where}: ${issue.message}`;
  });
  return new ToolError("TOOL_INVALID_ARGUMENTS", `Invalid arguments for ${tool}: ${problems.join("; ")}`);
}

function absolute(path: string, what: string): string {
  if (typeof path !== "string" || !isAbsolutePath(path)) throw new ToolError("TOOL_INVALID_ARGUMENTS", `${what} must be an absolute path, got ${JSON.stringify(path)}`);
  return resolvePath("/", path);
}

function failure(error: unknown): ToolResult {
  if (isFsError(error) || isSearchError(error) || isProcessError(error) || error instanceof ToolError) {
    return { content: error.message, isError: true, meta: {}, error: { name: error.name, code: error.code } };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    content: boundMessage(`The tool failed unexpectedly: ${message}`),
    isError: true,
    meta: {},
    error: { name: "ToolError", code: "TOOL_FAILED" },
  };
}
