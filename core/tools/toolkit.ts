import { z } from "zod";
import { boundMessage, quoteInput } from "../errors/mod.ts";
import { FsError, isFsError, throwIfAborted } from "../fs/errors.ts";
import { KeyedLock } from "../fs/lock.ts";
import { isAbsolutePath, resolvePath } from "../fs/paths.ts";
import type { FileSystem, FsFence, FsTarget } from "../fs/types.ts";
import { readAccess } from "../policy/access.ts";
import { ObservationLedger } from "../policy/ledger.ts";
import {
  accessWords,
  isWiderMode,
  type ReadScope,
  resolveSandbox,
  rulesFence,
  type SandboxMode,
  type SandboxPolicy,
  sandboxPolicy,
  type SandboxRule,
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
import { type ApprovalOutcome, type ApprovalRequest } from "./approval.ts";
import { DEFAULT_BASH_ENV } from "./bash.ts";
import { BUILTIN_TOOLS, type ToolName } from "./builtins.ts";
import type { DefinedTool } from "./define.ts";
import { type NamedRoot, WorkspaceRoots } from "./roots.ts";
import { type CallContext, DEFAULT_LIMITS, inputJsonSchema, type Tool, type ToolEnv, type ToolLimits } from "./tool.ts";
import { type ToolCallOptions, type ToolDefinition, ToolError, type ToolResult } from "./types.ts";

export type { ToolName } from "./builtins.ts";

export interface SandboxOptions {
  readonly mode: SandboxMode;
  /** Writable in workspace-write mode; defaults to the toolkit's workspace (its first root; later roots are writable too). */
  readonly workspaceRoot?: string;
  /** Further writable roots, such as the system's temp directories; the guidance names them. */
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
  /** What `~` stands for in deny patterns; defaults to the toolkit's `home`. */
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
   * offered under read-only or workspace-write, nor with a deny list or the workspace read scope. Under the
   * workspace read scope or a deny list, glob and grep on ripgrep run inside it too; without it they run on
   * the engine (docs/notes/0016-confined-search.md).
   */
  readonly confinement?: ShellConfinement;
  /**
   * Asked when the model retries a denied write with a wider mode. Without it, the model is not offered
   * escalation at all: write and edit get no `sandbox_permissions` field and refusals no retry hint.
   */
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
  /**
   * Registered tools, in order: built-in ones by name, a host's own as `defineTool` made them. Defaults to
   * every built-in tool the options make possible.
   */
  readonly tools?: readonly (ToolName | DefinedTool)[];
  /**
   * Absolute directory relative paths start from and paths are shown relative to; defaults to the provider's
   * cwd. Or several workspace roots, the first being that directory: each is writable and readable as the
   * workspace is, and a path inside a later root is shown, and may be given, as the root's name and the path
   * inside it (`lib/src/a.ts`); see WorkspaceRoots in core/tools/roots.ts for the rule.
   */
  readonly workspace?: string | readonly string[];
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
   * list) its commands run inside `sandbox.confinement`, and without an available one bash is not offered. A
   * runner that cannot stop the background jobs of a command (its `treeStopGap` says why) leaves bash registered
   * but refusing every command, saying why.
   */
  readonly runner?: ProcessRunner;
  /**
   * Environment variables bash commands inherit besides {@link DEFAULT_BASH_ENV}: names, or prefixes ending in
   * `*` (`NODE_*`); `["*"]` passes the whole environment. Nothing else of the host's environment (API keys,
   * tokens) reaches a command, confined or not.
   */
  readonly bashEnv?: readonly string[];
  /**
   * The user's home directory (absolute). A path argument `~` or `~/…` starts there, as in a shell; without
   * it such a path is refused (TOOL_INVALID_ARGUMENTS) rather than looked up as a name in the working
   * directory. A file literally named `~` is reached as `./~`. Also what `~` means in `sandbox.deny`.
   */
  readonly home?: string;
}

export interface Toolkit {
  /** The registered tools as a model sees them. */
  readonly definitions: readonly ToolDefinition[];
  /** Tools the options would have offered but that were left out, and why (say it to the user once). */
  readonly withheld: Readonly<Partial<Record<ToolName, string>>>;
  /** System-prompt guidance for the registered tools. */
  readonly guidance: string;
  /** A registered tool: its traits, result schema, kind and permission, for surfaces that publish them. */
  tool(name: string): DefinedTool | undefined;
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
  readonly entry: DefinedTool;
  readonly tool: Tool<Record<string, unknown>>;
  readonly schema: z.ZodType<Record<string, unknown>>;
  readonly definition: ToolDefinition;
}

interface Escalation {
  readonly mode: SandboxMode;
  readonly justification: string;
}

/** A refused write or edit, as the sandbox judged it: what an escalation of its retry is asked about. */
interface Denial {
  readonly tool: string;
  /** The canonical target the call resolved. */
  readonly key: string;
  /** The canonical destination the fence refused (the target, or where it had moved by publication). */
  readonly destination: string;
  readonly rule: SandboxRule;
  readonly reason: string;
}

class ToolkitImpl implements Toolkit {
  readonly #fs: FileSystem;
  readonly #workspace: string;
  readonly #roots: WorkspaceRoots;
  readonly #home: string | undefined;
  readonly #sandbox: SandboxOptions | undefined;
  readonly #policy: SandboxPolicy | undefined;
  // Per actor, the calls on one file in arrival order (see #inOrder). Entries live while calls are queued.
  readonly #order = new Map<unknown, KeyedLock>();
  readonly #tools = new Map<string, Registered>();
  // Per actor: the last write or edit the sandbox refused, the only call an escalation may retry.
  readonly #denied = new Map<unknown, Denial>();
  readonly definitions: readonly ToolDefinition[];
  readonly withheld: Readonly<Partial<Record<ToolName, string>>>;
  readonly guidance: string;
  readonly #ledger: ObservationLedger | undefined;
  readonly #spillDirectory: string | undefined;

  constructor(options: ToolkitOptions) {
    this.#fs = options.fs;
    this.#roots = workspaceRoots(options.workspace, options.fs.cwd);
    this.#workspace = this.#roots.first;
    const home = options.home ?? options.sandbox?.home;
    this.#home = home === undefined ? undefined : absolute(home, "home");
    this.#sandbox = options.sandbox;
    this.#spillDirectory = options.spill?.directory;
    const sandbox = options.sandbox;
    // Every root is fenced as the workspace is: writable under workspace-write, readable under the workspace scope.
    const others = this.#roots.named.map((root) => root.path);
    this.#policy =
      sandbox &&
      sandboxPolicy({
        ...sandbox,
        workspace: sandbox.workspaceRoot ?? this.#workspace,
        writableRoots: [...others, ...(sandbox.writableRoots ?? [])],
        ...(this.#home === undefined ? {} : { home: sandbox.home ?? this.#home }),
      });
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
    const entries: readonly DefinedTool[] = (options.tools ?? [
      "read",
      "write",
      "edit",
      ...(options.search ? (["glob", "grep"] as const) : []),
      ...(options.runner && bash.offered ? (["bash"] as const) : []),
    ]).map(registration);
    const names = entries.map((entry) => entry.name);
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice !== undefined) throw new RangeError(`tools: ${JSON.stringify(twice)} is registered twice`);
    // A bash the sandbox does not hold would make every refusal of the file tools meaningless.
    if (!bash.offered && names.includes("bash")) throw new RangeError(bash.reason);
    this.withheld = names.includes("bash") ? {} : withheld;
    const runner = options.runner && bash.offered && bash.confined ? this.#confined(options.runner, sandbox!) : options.runner;
    const env: ToolEnv = {
      fs: options.fs,
      roots: this.#roots,
      limits,
      ledger: (this.#ledger = options.policy === "none" ? undefined : new ObservationLedger()),
      // Advice names only tools that can act: glob and grep need a backend, and bash a runner that can stop
      // the background jobs of a command (otherwise it refuses every command).
      has: (name) => entries.some((entry) => entry.name === name && usable(entry, options.search, runner)),
      search: options.search,
      spill: options.spill,
      overCap: options.overCap ?? "sample",
      runner,
      bashEnv: bashEnv(options.bashEnv),
      bashSandbox: bash.offered && bash.confined ? this.#describeShell() : undefined,
    };
    for (const entry of entries) {
      const name = entry.name;
      const tool = entry.create(env);
      const schema = tool.mutates && confining && this.#sandbox!.approve ? withEscalation(tool.schema, this.#sandbox!.mode) : tool.schema;
      this.#tools.set(name, {
        entry,
        tool,
        schema,
        definition: { name, description: tool.description, inputSchema: inputJsonSchema(schema) },
      });
    }
    this.definitions = [...this.#tools.values()].map((r) => r.definition);
    this.guidance = this.#guidance(confining, options.search !== undefined);
  }

  tool(name: string): DefinedTool | undefined {
    return this.#tools.get(name)?.entry;
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
        throw new ToolError("TOOL_UNKNOWN", `Unknown tool ${quoteInput(name)}; available: ${[...this.#tools.keys()].join(", ")}`);
      }
      const parsed = registered.schema.safeParse(args);
      if (!parsed.success) throw invalidArguments(name, parsed.error);
      throwIfAborted(options?.signal);
      const { sandbox_permissions, justification, ...toolArgs } = parsed.data as Record<string, unknown>;
      // A root's name first: `~old/x` in a root named "~old" is that root's, not another user's home.
      if (typeof toolArgs.path === "string") toolArgs.path = this.#expandHome(this.#roots.resolve(toolArgs.path));
      const tool = registered.tool;
      const signal = options?.signal;
      const cwd = options?.cwd === undefined ? this.#workspace : absolute(options.cwd, "cwd");
      const actor = options?.actor ?? DEFAULT_ACTOR;
      const escalation = sandbox_permissions === undefined ? undefined : { mode: sandbox_permissions as SandboxMode, justification: String(justification) };
      const dispatch = async (target: FsTarget | undefined): Promise<ToolResult> => {
        // Resolved per call, as the fence always was; a read needs them only when the sandbox limits reads.
        const policy = this.#policy;
        const limitsReads = policy !== undefined && (policy.readScope === "workspace" || !policy.deny.empty);
        const rules = policy && (tool.mutates || limitsReads) ? await this.#rules(policy, signal) : undefined;
        const call: CallContext = {
          signal,
          cwd,
          roots: this.#roots,
          actor,
          fence: undefined,
          access: rules && readAccess(this.#fs, rules, this.#sandbox?.confinement),
          ...(target ? { target } : {}),
        };
        if (!tool.mutates || !rules) return await this.#run(tool, toolArgs, call);
        return await this.#runFenced(tool, toolArgs, call, escalation, rules);
      };
      if (!tool.sequenced) return await dispatch(undefined);
      // Nothing has waited yet, so the queue is entered in the order the calls arrived.
      return await this.#inOrder(String(toolArgs.path), { cwd, actor, signal }, dispatch);
    } catch (error) {
      return failure(error, this.#roots);
    }
  }

  /**
   * Runs one actor's calls on one file one at a time, in arrival order, so each is judged against the ledger
   * state the previous one left: a model that reads a file and sends three edits at once gets all three
   * applied, where concurrent calls would each compare the version it read with the version its sibling
   * just wrote and fail as stale. Other actors' calls (and outside changes) are not queued here, so they still
   * meet the version guard. The queue is keyed first by the path as spelled, which is known without waiting
   * and so keeps arrival order, then by the canonical key, so that aliases of one file queue together too.
   * The target resolved for the second key is the one the tool uses: a call resolves its path once.
   */
  async #inOrder<T>(
    path: string,
    call: { readonly cwd: string; readonly actor: unknown; readonly signal: AbortSignal | undefined },
    work: (target: FsTarget) => Promise<T>,
  ): Promise<T> {
    let lock = this.#order.get(call.actor);
    if (!lock) this.#order.set(call.actor, (lock = new KeyedLock()));
    const queue = lock;
    try {
      return await queue.run(`path:${resolvePath(call.cwd, path)}`, async () => {
        const target = await this.#fs.resolve(path, { cwd: call.cwd, signal: call.signal });
        return await queue.run(`key:${target.key}`, () => work(target));
      });
    } finally {
      if (queue.size === 0 && this.#order.get(call.actor) === queue) this.#order.delete(call.actor);
    }
  }

  // `~` and `~/…` start at the home directory, as a shell and other agents' tools read them. `~name/…` (another
  // user's home) cannot be known here and is refused; a bare `~name` without a slash is an ordinary file name.
  #expandHome(path: string): string {
    if (path !== "~" && !path.startsWith("~/")) {
      if (/^~[^/]+\//.test(path)) {
        throw new ToolError(
          "TOOL_INVALID_ARGUMENTS",
          `path ${JSON.stringify(path)}: only ~ and ~/ are expanded (to your home directory); give another user's files as an absolute path, or write ./${path} for a directory named that way`,
        );
      }
      return path;
    }
    if (this.#home === undefined) {
      throw new ToolError(
        "TOOL_INVALID_ARGUMENTS",
        `path ${JSON.stringify(path)} starts with ~, but the home directory is not known in this session; give an absolute path, or ./${path} if ~ is a name in the working directory`,
      );
    }
    return path === "~" ? this.#home : `${this.#home}${path.slice(1)}`;
  }

  async #run(tool: Tool<Record<string, unknown>>, args: Record<string, unknown>, call: CallContext): Promise<ToolResult> {
    const { content, meta, parts } = await tool.run(args, call);
    return parts && parts.length > 0 ? { content, parts, isError: false, meta } : { content, isError: false, meta };
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
    const target = call.target ?? (await this.#fs.resolve(String(args.path), { cwd: call.cwd, signal: call.signal }));
    // A write shows the bytes it replaces (its diff), so it may reach only what may be read.
    call.access?.check(target, "write");
    let mode = sandbox.mode;
    let fence = rulesFence(this.#fs, rules, mode);
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
      mode = await this.#approve(tool.name, target, denied, escalation, call);
      fence = approvedFence(mode, rulesFence(this.#fs, rules, mode), fence, denied.destination);
    }
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
      const details = error.details;
      this.#denied.set(call.actor, {
        tool: tool.name,
        key: target.key,
        destination: typeof details.destination === "string" ? details.destination : target.key,
        rule: details.rule as SandboxRule,
        reason: typeof details.reason === "string" ? details.reason : error.message,
      });
      const wider = widerModes(mode);
      const choices = wider.length === 1 ? `"${wider[0]}"` : `${wider.map((m) => `"${m}"`).join(" or ")} (the narrowest that suffices)`;
      // Only when someone can answer: telling the model "the user will be asked" with no approver is false.
      const hint =
        wider.length === 0 || escalation || !sandbox.approve
          ? ""
          : `\n[escalation] If this write is necessary, retry this exact call once with sandbox_permissions set to ${choices} ` +
            "and a one-sentence justification; the user will be asked.";
      throw new FsError("FS_SANDBOX_DENIED", `${error.message}${hint}`, { cause: error, details: error.details });
    }
  }

  async #approve(tool: string, target: FsTarget, denied: Denial, escalation: Escalation, call: CallContext): Promise<SandboxMode> {
    const approve = this.#sandbox?.approve;
    if (!approve) {
      throw new ToolError("TOOL_ESCALATION_UNAVAILABLE", "No one can approve wider sandbox permissions here; nothing was changed");
    }
    const request: ApprovalRequest = {
      tool,
      path: this.#roots.show(target.displayPath),
      destination: denied.destination,
      rule: denied.rule,
      reason: denied.reason,
      from: this.#sandbox!.mode,
      mode: escalation.mode,
      justification: escalation.justification,
      actor: call.actor,
      signal: call.signal,
    };
    const outcome = await approve(request);
    if (outcome === "allowed-once") return escalation.mode;
    if (outcome === "cancelled") {
      throw new ToolError("TOOL_ESCALATION_CANCELLED", "The approval request was cancelled; nothing was changed");
    }
    throw new ToolError("TOOL_ESCALATION_REJECTED", `The user declined ${accessWords(escalation.mode)} for this call; nothing was changed. Do not retry it`);
  }

  // bash under the sandbox: each command runs inside bubblewrap, in the view the current rules give (resolved
  // again for every command, as the fence is for every write).
  // The policy's rules, with the spill folder protected besides: a command (or a write) that could replace it
  // with a symlink would send the next spill wherever it points, and one that rewrote a spill would feed the
  // model forged "complete results". Not a policy path, so the guidance does not name a host's temp folder.
  async #rules(policy: SandboxPolicy, signal: AbortSignal | undefined): Promise<SandboxRules> {
    const rules = await resolveSandbox(this.#fs, policy, signal);
    if (this.#spillDirectory === undefined) return rules;
    const spill = await this.#fs.resolve(this.#spillDirectory, signal ? { signal } : undefined);
    return { ...rules, protected: [...rules.protected, spill] };
  }

  #confined(runner: ProcessRunner, sandbox: SandboxOptions): ProcessRunner {
    const policy = this.#policy as SandboxPolicy;
    const program = (sandbox.confinement as ShellConfinement).program;
    return confinedRunner(runner, program, async (spec) => {
      const rules = await this.#rules(policy, spec.signal);
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

  #guidance(confining: boolean, searching: boolean): string {
    // A listed glob or grep without a backend fails every call; its guidance says so instead of how it works.
    const parts = [...this.#tools.values()]
      .map((r) => (r.entry.needs === "search" && !searching ? `${r.tool.name} cannot run in this session: no search backend was configured.` : r.tool.guidance))
      .filter((guidance) => guidance !== "");
    const policy = this.#policy;
    if (confining && [...this.#tools.values()].some((r) => r.tool.mutates)) {
      const sandbox = this.#sandbox!;
      // The roots as the fence resolves them (against the provider's cwd): the workspace root (the workspace
      // unless set apart) and whatever further roots the host passed, which need not be temp directories.
      const others = this.#roots.named.map((root) => root.path);
      const roots = [sandbox.workspaceRoot ?? this.#workspace, ...others, ...(sandbox.writableRoots ?? [])].map((root) => {
        const path = resolvePath(this.#fs.cwd, root);
        return path === this.#workspace ? "the workspace" : this.#roots.show(path);
      });
      const guarded = [...new Set([".git", ...(policy?.protectedPaths ?? [])])];
      const where =
        sandbox.mode === "read-only" ? "refuses every write" : `refuses writes outside ${listed([...new Set(roots)])}, and to ${listed(guarded)}`;
      // A path outside the read scope, or on the deny list, is refused before any mode is considered.
      const unreadable = policy !== undefined && (policy.readScope === "workspace" || !policy.deny.empty) ? ", except for a path no tool may read" : "";
      const unless = sandbox.approve ? `; a refusal says how to ask the user to allow one call${unreadable}` : "";
      parts.push(`The ${sandbox.mode} sandbox ${where}${unless}.`);
    }
    if (this.#roots.several) parts.unshift(rootsGuidance(this.#roots));
    // The tools that look at files (read, glob, grep, and a host's read-only ones).
    const readers = [...this.#tools.values()]
      .filter(({ entry }) => entry.traits.readOnly && !entry.traits.openWorld && (entry.kind === "read" || entry.kind === "search"))
      .map(({ entry }) => entry.name);
    if (policy && readers.length > 0 && policy.readScope === "workspace") {
      parts.push(`${readers.join(", ")} see only the workspace, the writable roots${policy.readableRoots.length > 0 ? ` and ${policy.readableRoots.join(", ")}` : ""}.`);
    }
    if (policy && !policy.deny.empty) {
      parts.push(`Paths matching ${policy.deny.patterns.map((p) => JSON.stringify(p)).join(", ")} are refused to every tool.`);
    }
    return parts.join("\n");
  }
}

/**
 * The fence of an approved call: the wider mode holds for the destination the user was shown, and for no
 * other. A path that resolves elsewhere by the time of the write (a symlink repointed after the approval) is
 * judged under the standing mode, and refused saying what was approved.
 */
function approvedFence(mode: SandboxMode, wider: FsFence, standing: FsFence, approved: string): FsFence {
  return async (destination) => {
    if (destination.key === approved) return await wider(destination);
    try {
      await standing(destination);
    } catch (error) {
      if (!isFsError(error, "FS_SANDBOX_DENIED")) throw error;
      const message = `${error.message}; the user approved ${accessWords(mode)} for "${approved}" only, and the path now leads elsewhere`;
      throw new FsError("FS_SANDBOX_DENIED", message, { cause: error, details: error.details });
    }
  };
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

// The toolkit's roots from its `workspace` option: normalized, repeats dropped, the provider's cwd by default.
function workspaceRoots(workspace: string | readonly string[] | undefined, cwd: string): WorkspaceRoots {
  if (workspace === undefined) return new WorkspaceRoots([cwd]);
  if (typeof workspace === "string") return new WorkspaceRoots([absolute(workspace, "workspace")]);
  if (!Array.isArray(workspace) || workspace.length === 0) {
    throw new ToolError("TOOL_INVALID_ARGUMENTS", `workspace must be an absolute path or a non-empty list of them, got ${JSON.stringify(workspace)}`);
  }
  const roots = [...new Set(workspace.map((root) => absolute(root, "workspace")))];
  return new WorkspaceRoots(roots as [string, ...string[]]);
}

// Said only when there are several roots: where each is, and how its paths are written and shown.
function rootsGuidance(roots: WorkspaceRoots): string {
  const [example] = roots.named as [NamedRoot, ...NamedRoot[]];
  const others = roots.named.map((root) => `; ${root.name} (${root.path})`).join("");
  const inside = `${example.path === "/" ? "" : example.path}/a.txt`;
  return (
    `Workspace roots: ${roots.first}, where relative paths start${others}. A path that starts with a root's name is in ` +
    `that root (${example.name}/a.txt is ${inside}), and results show paths there that way; ./ before a folder of ` +
    `${roots.first} with such a name keeps it in ${roots.first}.`
  );
}

function absolute(path: string, what: string): string {
  if (typeof path !== "string" || !isAbsolutePath(path)) throw new ToolError("TOOL_INVALID_ARGUMENTS", `${what} must be an absolute path, got ${JSON.stringify(path)}`);
  return resolvePath("/", path);
}

function usable(entry: DefinedTool, search: SearchBackend | undefined, runner: ProcessRunner | undefined): boolean {
  if (entry.needs === "search") return search !== undefined;
  if (entry.needs === "runner") return runner !== undefined && runner.treeStopGap?.() === undefined;
  return true;
}

// A built-in tool by name, or a host's as defineTool made it.
function registration(tool: ToolName | DefinedTool): DefinedTool {
  if (typeof tool !== "string") {
    if (typeof tool !== "object" || tool === null || typeof tool.create !== "function") throw new RangeError(`tools: ${String(tool)} is neither a tool name nor a defineTool result`);
    return tool;
  }
  if (!Object.hasOwn(BUILTIN_TOOLS, tool)) throw new RangeError(`tools: unknown tool ${JSON.stringify(tool)}; the built-in ones are ${Object.keys(BUILTIN_TOOLS).join(", ")}`);
  return BUILTIN_TOOLS[tool];
}

// "a", "a and b", "a, b and c".
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * The message with each quoted absolute path its details name shown as success messages show paths (relative
 * to the root it is in). Messages come from layers that know no workspace (the provider, the process runner);
 * the details say which quoted strings are paths, so nothing else is rewritten.
 */
function relativeMessage(message: string, details: Record<string, unknown>, roots: WorkspaceRoots): string {
  const paths = Object.values(details).filter((value): value is string => typeof value === "string" && isAbsolutePath(value));
  paths.sort((a, b) => b.length - a.length);
  let out = message;
  for (const path of paths) {
    const shown = roots.show(path);
    if (shown !== path) out = out.replaceAll(`"${path}"`, `"${shown}"`);
  }
  return out;
}

function failure(error: unknown, roots: WorkspaceRoots): ToolResult {
  if (isFsError(error) || isSearchError(error) || isProcessError(error) || error instanceof ToolError) {
    const content = relativeMessage(error.message, error.details as Record<string, unknown>, roots);
    return { content, isError: true, meta: {}, error: { name: error.name, code: error.code } };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    content: boundMessage(`The tool failed unexpectedly: ${message}`),
    isError: true,
    meta: {},
    error: { name: "ToolError", code: "TOOL_FAILED" },
  };
}

function bashEnv(extra: readonly string[] = []): readonly string[] {
  for (const pattern of extra) {
    if (typeof pattern !== "string" || !/^[^=*\0]*\*?$/.test(pattern) || pattern === "") {
      throw new RangeError(`bashEnv: ${JSON.stringify(pattern)} is not a variable name or a prefix ending in *`);
    }
  }
  return [...DEFAULT_BASH_ENV, ...extra];
}
