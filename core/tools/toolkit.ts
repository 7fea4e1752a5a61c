import type { z } from "zod";
import { boundMessage, quoteInput } from "../errors/mod.ts";
import { isFsError, throwIfAborted } from "../fs/errors.ts";
import { KeyedLock } from "../fs/lock.ts";
import { isAbsolutePath, resolvePath } from "../fs/paths.ts";
import type { FileSystem, FsTarget } from "../fs/types.ts";
import { readAccess } from "../policy/access.ts";
import { ObservationLedger } from "../policy/ledger.ts";
import { resolveSandbox, type SandboxMode, type SandboxPolicy, sandboxPolicy, type SandboxRules } from "../policy/sandbox.ts";
import { shellView } from "../policy/shell.ts";
import { confinedRunner, type ShellConfinement } from "../process/bubblewrap.ts";
import { isProcessError } from "../process/errors.ts";
import type { ProcessRunner } from "../process/types.ts";
import { isSearchError } from "../search/errors.ts";
import { isPatchError } from "../text/patch/errors.ts";
import type { SearchBackend } from "../search/backend.ts";
import { DEFAULT_BASH_ENV } from "./bash.ts";
import { BUILTIN_TOOLS, type ToolName } from "./builtins.ts";
import type { DefinedTool } from "./define.ts";
import { Escalations, withEscalation } from "./escalation.ts";
import { describeShell, toolkitGuidance } from "./guidance.ts";
import { bashOffer, type SandboxOptions, type Toolkit, type ToolkitOptions } from "./options.ts";
import { WorkspaceRoots } from "./roots.ts";
import { type CallContext, DEFAULT_LIMITS, inputJsonSchema, type Tool, type ToolEnv } from "./tool.ts";
import { type ToolCallOptions, type ToolDefinition, ToolError, type ToolResult } from "./types.ts";

export type { ToolName } from "./builtins.ts";
export { bashOffer } from "./options.ts";
export type { BashOffer, SandboxOptions, Toolkit, ToolkitOptions } from "./options.ts";

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
  readonly #escalations: Escalations | undefined;
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
    const entries: readonly DefinedTool[] = (
      options.tools ?? [
        "read",
        "write",
        "edit",
        ...(options.search ? (["glob", "grep"] as const) : []),
        ...(options.runner && bash.offered ? (["bash"] as const) : []),
      ]
    ).map(registration);
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
      pdf: options.pdf,
      bashSandbox: bash.offered && bash.confined ? describeShell(this.#policy!) : undefined,
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
    this.#escalations = sandbox && new Escalations(options.fs, sandbox, this.#roots);
    const guidance = { tools: [...this.#tools.values()], policy: this.#policy, sandbox, roots: this.#roots, fs: options.fs, workspace: this.#workspace };
    this.guidance = toolkitGuidance(guidance, confining, options.search !== undefined);
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
      for (const key of registered.tool.paths ?? ["path"]) {
        if (typeof toolArgs[key] === "string") toolArgs[key] = this.#expandHome(this.#roots.resolve(toolArgs[key]));
      }
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
        return await this.#escalations!.run(tool, toolArgs, call, escalation, rules, (t, a, c) => this.#run(t, a, c));
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
      if (spec.cwd !== undefined)
        readAccess(this.#fs, rules)?.check(await this.#fs.resolve(spec.cwd, spec.signal ? { signal: spec.signal } : undefined), "run commands in");
      return shellView(this.#fs, rules, policy.mode, spec.signal ? { signal: spec.signal } : undefined);
    });
  }
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

function absolute(path: string, what: string): string {
  if (typeof path !== "string" || !isAbsolutePath(path))
    throw new ToolError("TOOL_INVALID_ARGUMENTS", `${what} must be an absolute path, got ${JSON.stringify(path)}`);
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
    if (typeof tool !== "object" || tool === null || typeof tool.create !== "function")
      throw new RangeError(`tools: ${String(tool)} is neither a tool name nor a defineTool result`);
    return tool;
  }
  if (!Object.hasOwn(BUILTIN_TOOLS, tool))
    throw new RangeError(`tools: unknown tool ${JSON.stringify(tool)}; the built-in ones are ${Object.keys(BUILTIN_TOOLS).join(", ")}`);
  return BUILTIN_TOOLS[tool];
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
  if (isFsError(error) || isSearchError(error) || isProcessError(error) || isPatchError(error) || error instanceof ToolError) {
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
