import { z } from "zod";
import { FsError, isFsError, throwIfAborted } from "../fs/errors.ts";
import { isAbsolutePath, resolvePath } from "../fs/paths.ts";
import type { FileSystem } from "../fs/types.ts";
import { readAccess } from "../policy/access.ts";
import { ObservationLedger } from "../policy/ledger.ts";
import {
  isWiderMode,
  type ReadScope,
  resolveSandbox,
  rulesFence,
  type SandboxMode,
  type SandboxPolicy,
  sandboxPolicy,
  type SandboxRules,
  widerModes,
} from "../policy/sandbox.ts";
import { shellView } from "../policy/shell.ts";
import { confinedRunner, type ShellConfinement } from "../process/bubblewrap.ts";
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
  /**
   * Where read, glob and grep may look (and what a confined bash sees): `"anywhere"` (default), or
   * `"workspace"`: the workspace root, the writable roots and `readableRoots` only, judged on canonical paths.
   */
  readonly readScope?: ReadScope;
  /** Absolute directories readable under the "workspace" read scope besides the workspace and writable roots. */
  readonly readableRoots?: readonly string[];
  /**
   * Paths no tool may read or write and a confined bash cannot see, in every mode: globs such as `.env` or `*.pem`
   * (a name at any depth), `~/.ssh` or `/abs/path`; relative ones with a `/` start at the workspace.
   */
  readonly deny?: readonly string[];
  /** What `~` stands for in deny patterns. */
  readonly home?: string;
  /**
   * Read-only even inside a writable root, besides `.git` (always protected): names (for that name in every
   * writable root) or absolute paths.
   */
  readonly protectedPaths?: readonly string[];
  /** Whether a confined bash may use the network; default false, except under full-access (with a deny list). */
  readonly network?: boolean;
  /**
   * How bash is confined by the operating system (see detectBubblewrap). Without an available one, bash is not
   * offered under read-only or workspace-write, nor with a deny list or the workspace read scope.
   */
  readonly confinement?: ShellConfinement;
  /** Asked when the model retries a denied write with a wider mode. Without it, such retries fail. */
  readonly approve?: (request: ApprovalRequest) => Promise<ApprovalOutcome>;
}

/** Whether bash can be offered under a sandbox, and how; the reason when it cannot. */
export type BashOffer = { readonly offered: true; readonly confined: boolean } | { readonly offered: false; readonly reason: string };

/**
 * The one place that decides whether bash may be offered under `sandbox`. Without a sandbox, or under
 * full-access with neither a deny list nor the workspace read scope, bash runs as it is. Otherwise it must run confined by the operating system,
 * or not at all: an unconfined bash would write (and read) where the file tools are refused.
 */
export function bashOffer(sandbox: Pick<SandboxOptions, "mode" | "deny" | "readScope" | "confinement"> | undefined): BashOffer {
  const hides = (sandbox?.deny ?? []).length > 0 || sandbox?.readScope === "workspace";
  if (!sandbox || (sandbox.mode === "full-access" && !hides)) return { offered: true, confined: false };
  if (sandbox.confinement?.available) return { offered: true, confined: true };
  const why = sandbox.mode !== "full-access" ? `the ${sandbox.mode} sandbox` : (sandbox.deny ?? []).length > 0 ? "the deny list" : "the workspace read scope";
  const detail = sandbox.confinement ? sandbox.confinement.reason ?? "confinement is unavailable" : "no OS confinement (bubblewrap) was configured";
  return { offered: false, reason: `bash is not available: its commands cannot be held to ${why} here (${detail})` };
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
   * Runs bash on the host; without it bash is not registered by default. Under a confining sandbox (or a deny
   * list) its commands run inside `sandbox.confinement`, and without an available one bash is not offered.
   */
  readonly runner?: ProcessRunner;
}

export interface Toolkit {
  /** The registered tools as a model sees them. */
  readonly definitions: readonly ToolDefinition[];
  /** Tools the options would have offered but that were left out, and why (say it to the user once). */
  readonly withheld: Readonly<Partial<Record<ToolName, string>>>;
  /** System-prompt guidance for the registered tools. */
  readonly guidance: string;
  /** Runs one call. Never throws: every failure is a result with `isError` and a code. */
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult>;
  /**
   * Forgets what `actor` (or every actor) has read, so each write of an existing file and each edit needs a
   * fresh read: for when files changed in a way the actor was not shown (an overlay put back to a checkpoint).
   */
  forget(actor?: unknown): void;
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
  readonly #policy: SandboxPolicy | undefined;
  readonly #tools = new Map<string, Registered>();
  // Per actor: the last write or edit the sandbox refused, the only call an escalation may retry.
  readonly #denied = new Map<unknown, { tool: string; key: string }>();
  readonly definitions: readonly ToolDefinition[];
  readonly withheld: Readonly<Partial<Record<ToolName, string>>>;
  readonly guidance: string;
  readonly #ledger: ObservationLedger | undefined;

  constructor(options: ToolkitOptions) {
    this.#fs = options.fs;
    this.#workspace = options.workspace ? absolute(options.workspace, "workspace") : options.fs.cwd;
    this.#sandbox = options.sandbox;
    const sandbox = options.sandbox;
    this.#policy = sandbox && sandboxPolicy({ ...sandbox, workspace: sandbox.workspaceRoot ?? this.#workspace });
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    for (const [key, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`limits.${key} must be a positive integer, got ${String(value)}`);
    }
    if (limits.bashTimeoutMs > limits.bashMaxTimeoutMs) {
      throw new RangeError(`limits.bashTimeoutMs (${limits.bashTimeoutMs}) must not exceed limits.bashMaxTimeoutMs (${limits.bashMaxTimeoutMs})`);
    }
    const confining = this.#sandbox !== undefined && this.#sandbox.mode !== "full-access";
    const bash = bashOffer(sandbox);
    const withheld: Partial<Record<ToolName, string>> = {};
    if (options.runner && !bash.offered) withheld.bash = bash.reason;
    const names: readonly ToolName[] = options.tools ?? [
      "read",
      "write",
      "edit",
      ...(options.search ? (["glob", "grep"] as const) : []),
      ...(options.runner && bash.offered ? (["bash"] as const) : []),
    ];
    // A bash the sandbox does not hold would make every refusal of the file tools meaningless.
    if (!bash.offered && names.includes("bash")) throw new RangeError(bash.reason);
    this.withheld = names.includes("bash") ? {} : withheld;
    const runner = options.runner && bash.offered && bash.confined ? this.#confined(options.runner, sandbox!) : options.runner;
    const env: ToolEnv = {
      fs: options.fs,
      limits,
      ledger: (this.#ledger = options.policy === "none" ? undefined : new ObservationLedger()),
      has: (name) => (names as readonly string[]).includes(name),
      search: options.search,
      spill: options.spill,
      overCap: options.overCap ?? "sample",
      runner,
      bashSandbox: bash.offered && bash.confined ? this.#describeShell() : undefined,
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

  forget(actor?: unknown): void {
    if (actor === undefined) this.#ledger?.forget();
    else this.#ledger?.forget(actor);
  }

  async call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult> {
    try {
      const registered = this.#tools.get(name);
      if (!registered) {
        const why = this.withheld[name as ToolName];
        if (why) throw new ToolError("TOOL_UNKNOWN", `${why}; available: ${[...this.#tools.keys()].join(", ")}`);
        throw new ToolError("TOOL_UNKNOWN", `Unknown tool "${name}"; available: ${[...this.#tools.keys()].join(", ")}`);
      }
      const parsed = registered.schema.safeParse(args);
      if (!parsed.success) throw invalidArguments(name, parsed.error);
      throwIfAborted(options?.signal);
      const { sandbox_permissions, justification, ...toolArgs } = parsed.data as Record<string, unknown>;
      // Resolved per call, as the fence always was; a read needs them only when the sandbox limits reads.
      const policy = this.#policy;
      const limitsReads = policy !== undefined && (policy.readScope === "workspace" || !policy.deny.empty);
      const rules = policy && (registered.tool.mutates || limitsReads) ? await resolveSandbox(this.#fs, policy, options?.signal) : undefined;
      const call: CallContext = {
        signal: options?.signal,
        cwd: options?.cwd === undefined ? this.#workspace : absolute(options.cwd, "cwd"),
        workspace: this.#workspace,
        actor: options?.actor ?? DEFAULT_ACTOR,
        fence: undefined,
        access: rules && readAccess(this.#fs, rules),
      };
      if (!registered.tool.mutates || !rules) return await this.#run(registered.tool, toolArgs, call);
      const escalation = sandbox_permissions === undefined ? undefined : { mode: sandbox_permissions as SandboxMode, justification: String(justification) };
      return await this.#runFenced(registered.tool, toolArgs, call, escalation, rules);
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
    rules: SandboxRules,
  ): Promise<ToolResult> {
    const sandbox = this.#sandbox as SandboxOptions;
    const target = await this.#fs.resolve(String(args.path), { cwd: call.cwd, signal: call.signal });
    // A write shows the bytes it replaces (its diff), so it may reach only what may be read.
    call.access?.check(target, "write");
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
    const fence = rulesFence(this.#fs, rules, mode);
    try {
      const result = await this.#run(tool, args, { ...call, fence });
      this.#denied.delete(call.actor);
      return result;
    } catch (error) {
      if (!isFsError(error, "FS_SANDBOX_DENIED")) {
        this.#denied.delete(call.actor);
        throw error;
      }
      // The deny list holds in every mode: no wider mode would let this call through.
      if (error.details.rule === "deny") {
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

  // bash under the sandbox: each command runs inside bubblewrap, in the view the current rules give (resolved
  // again for every command, as the fence is for every write).
  #confined(runner: ProcessRunner, sandbox: SandboxOptions): ProcessRunner {
    const policy = this.#policy as SandboxPolicy;
    const program = (sandbox.confinement as ShellConfinement).program;
    return confinedRunner(runner, program, async (spec) => {
      const rules = await resolveSandbox(this.#fs, policy, spec.signal);
      if (spec.cwd !== undefined) readAccess(this.#fs, rules)?.check(await this.#fs.resolve(spec.cwd, spec.signal ? { signal: spec.signal } : undefined), "run commands in");
      return shellView(this.#fs, rules, policy.mode, spec.signal ? { signal: spec.signal } : undefined);
    });
  }

  // What a confined bash may do, in the fewest words that are exactly true.
  #describeShell(): string {
    const policy = this.#policy as SandboxPolicy;
    const list = (paths: readonly string[]) => paths.join(", ");
    const parts: string[] = [];
    if (policy.mode === "read-only") parts.push("no file can be written");
    else if (policy.mode === "workspace-write") {
      const guarded = [...new Set([".git", ...policy.protectedPaths])];
      parts.push(`files can be written only in ${list([policy.workspace, ...policy.writableRoots])} (not in ${list(guarded)})`);
    }
    if (policy.readScope === "workspace") {
      const roots = [policy.workspace, ...policy.writableRoots, ...policy.readableRoots];
      const tmp = roots.includes("/tmp") ? "" : " and a private /tmp";
      parts.push(`only ${list(roots)}, the system directories${tmp} are visible`);
    }
    if (!policy.deny.empty) parts.push(`paths matching ${list(policy.deny.patterns.map((p) => JSON.stringify(p)))} are hidden`);
    parts.push(policy.network ? "the network is reachable" : "there is no network");
    return `sandboxed: ${parts.join("; ")}.`;
  }

  #guidance(confining: boolean): string {
    const parts = [...this.#tools.values()].map((r) => r.tool.guidance);
    const policy = this.#policy;
    if (confining && [...this.#tools.values()].some((r) => r.tool.mutates)) {
      const mode = this.#sandbox!.mode;
      parts.push(
        mode === "read-only"
          ? "Writes are refused in this session (read-only sandbox)."
          : "Writes outside the workspace and temp directories are refused (workspace-write sandbox), and so are writes to .git" +
              `${policy && policy.protectedPaths.length > 0 ? ` and ${policy.protectedPaths.join(", ")}` : ""}.`,
      );
    }
    const readers = [...this.#tools.keys()].filter((name) => ["read", "glob", "grep"].includes(name));
    if (policy && readers.length > 0 && policy.readScope === "workspace") {
      parts.push(`${readers.join(", ")} see only the workspace, the writable roots${policy.readableRoots.length > 0 ? ` and ${policy.readableRoots.join(", ")}` : ""}.`);
    }
    if (policy && !policy.deny.empty) {
      parts.push(`Paths matching ${policy.deny.patterns.map((p) => JSON.stringify(p)).join(", ")} are refused to every tool.`);
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
    content: `The tool failed unexpectedly: ${message}`,
    isError: true,
    meta: {},
    error: { name: "ToolError", code: "TOOL_FAILED" },
  };
}
