// One MCP session over the toolkit: tools/list and tools/call answered by hand on the SDK's protocol layer,
// so the model sees the toolkit's own descriptions and JSON Schemas and the toolkit (not the SDK) judges
// arguments, with coded results. Runtime-neutral: the runtime's providers arrive through McpRuntime.
import { type CallToolResult, ProtocolError, ProtocolErrorCode, Server, type Tool as McpTool } from "@modelcontextprotocol/server";
import { canElicit, elicitApproval, elicitCommit } from "./elicitation.ts";
import { callCommit, CHANGES_RESOURCE, CHANGES_URI, COMMIT_TOOL, readChanges } from "./overlay.ts";
import { mcpPart, servedResources, SpillLinks } from "./spill-links.ts";
import {
  type ApprovalOutcome,
  type ApprovalRequest,
  bashOffer,
  createToolkit,
  type FileSystem,
  type OverlayFileSystem,
  type ProcessRunner,
  READ_SCOPES,
  type ReadScope,
  resultJsonSchema,
  SANDBOX_MODES,
  type SandboxMode,
  type SandboxOptions,
  sandboxPolicy,
  type SearchBackend,
  type ShellConfinement,
  type SpillStore,
  structuredResult,
  type Toolkit,
  type ToolLimits,
  type DefinedTool,
  type ToolName,
} from "../../core/mod.ts";

/** The version reported in `serverInfo`; kept equal to package.json's by a test. */
export const MCP_SERVER_VERSION = "0.1.0";

/** The tools' world for a set of roots: a provider and what runs beside it. */
export interface McpWorkspace {
  /** Its cwd is the first root. */
  readonly fs: FileSystem;
  readonly search?: SearchBackend | undefined;
  readonly spill?: SpillStore | undefined;
  /**
   * Runs bash. Under a sandbox that bash must be held to (every mode but full-access, and any mode with a deny
   * list or the workspace read scope) it is offered only confined by the runtime's `confinement`.
   */
  readonly runner?: ProcessRunner | undefined;
  /**
   * Set when `fs` is this overlay: its patch is offered as the resource toolfs://overlay/changes.patch and a
   * `commit` tool applies it once the user approves (through elicitation).
   */
  readonly overlay?: OverlayFileSystem | undefined;
}

/** What the server needs from its runtime. */
export interface McpRuntime {
  /**
   * The workspace over canonical root directories (the first is where relative paths start); called with no
   * roots to learn which tools exist before a client has named any. Sessions with the same roots may share
   * one workspace, and must when its provider holds state (a memory volume).
   */
  workspace(roots: readonly string[]): Promise<McpWorkspace>;
  /** The canonical absolute path of an existing directory, or undefined. */
  realDirectory(path: string): Promise<string | undefined>;
  /** Writable beside the roots under workspace-write: the system's temp directories. */
  readonly tempRoots?: readonly string[];
  /** The user's home directory, for path arguments starting with `~` and `~` in deny patterns. */
  readonly home?: string;
  /**
   * How bash can be confined by the operating system (detectBubblewrap over the runtime's runner); asked only
   * when bash would need it. A runtime serving many sessions should detect once and answer from then on.
   */
  confinement?(): Promise<ShellConfinement>;
}

export interface ToolfsMcpOptions {
  readonly runtime: McpRuntime;
  /**
   * Canonical absolute workspace roots. Without them the session asks the client for its roots
   * (`roots/list`) and follows `notifications/roots/list_changed`.
   */
  readonly roots?: readonly string[];
  /**
   * Default "workspace-write": writes only inside the roots (and temp roots); bash is offered confined by the
   * runtime's confinement, or not at all.
   */
  readonly sandbox?: SandboxMode;
  /**
   * "workspace" (the default, except under full-access): read, glob, grep and bash see only the roots, the temp
   * roots and `readableRoots`, as the reference MCP filesystem server confines reads to its allowed
   * directories. "anywhere" (the default under full-access): the whole disk, except the deny list.
   */
  readonly readScope?: ReadScope;
  /** Absolute directories readable besides the roots under the "workspace" read scope. */
  readonly readableRoots?: readonly string[];
  /** Paths no tool may read or write and bash cannot see (SandboxOptions.deny); `~` is the runtime's home. */
  readonly deny?: readonly string[];
  /** Read-only inside the roots besides `.git` (SandboxOptions.protectedPaths). */
  readonly protectedPaths?: readonly string[];
  /** Whether a confined bash may use the network; default false (true under full-access). */
  readonly network?: boolean;
  /** Variables bash inherits besides the default allow-list (ToolkitOptions.bashEnv); the token is never among them unless named. */
  readonly bashEnv?: readonly string[];
  readonly tools?: readonly (ToolName | DefinedTool)[];
  readonly limits?: Partial<ToolLimits>;
  /** Diagnostics, one line each; never written to the protocol stream. */
  readonly log?: (line: string) => void;
}

/** One session: a protocol server to connect to one transport. */
export interface ToolfsMcpSession {
  readonly server: Server;
  /** The roots the session's tools work in now (empty while none are known). */
  roots(): readonly string[];
  /** Tools the options would offer but that are left out, and why: tell the user (the tool list says nothing). */
  readonly withheld: Readonly<Partial<Record<ToolName, string>>>;
}

/** The codes of the server's own failures, returned as tool results like the toolkit's. */
export const MCP_ERROR_CODES = ["MCP_NO_ROOTS", "MCP_COMMIT_UNAPPROVED", "MCP_COMMIT_CONFLICT"] as const;
export type McpErrorCode = (typeof MCP_ERROR_CODES)[number];

/**
 * Builds one session's server. Each session is its own actor: what one client read never authorizes
 * another's write, even when both work in the same roots.
 */
export async function createToolfsMcpSession(options: ToolfsMcpOptions): Promise<ToolfsMcpSession> {
  const mode = options.sandbox ?? "workspace-write";
  if (!SANDBOX_MODES.includes(mode)) throw new RangeError(`sandbox must be one of ${SANDBOX_MODES.join(", ")}`);
  // Full access reads anywhere too: a write is refused where reads are (it shows the bytes it replaces).
  const readScope = options.readScope ?? (mode === "full-access" ? "anywhere" : "workspace");
  if (!READ_SCOPES.includes(readScope)) throw new RangeError(`readScope must be one of ${READ_SCOPES.join(", ")}`);
  const runtime = options.runtime;
  const rules: Omit<SandboxOptions, "approve"> = {
    mode,
    readScope,
    writableRoots: runtime.tempRoots ?? [],
    ...(options.readableRoots ? { readableRoots: options.readableRoots } : {}),
    ...(options.deny ? { deny: options.deny } : {}),
    ...(options.protectedPaths ? { protectedPaths: options.protectedPaths } : {}),
    ...(options.network === undefined ? {} : { network: options.network }),
    ...(runtime.home === undefined ? {} : { home: runtime.home }),
  };
  // Bad paths and patterns fail here, before a client connects, not on its first call.
  sandboxPolicy({ ...rules, workspace: "/" });
  const log = options.log ?? (() => {});
  const actor = Symbol("toolfs MCP session");
  const start = await runtime.workspace(options.roots ?? []);
  // Asked only when bash would run confined or not at all: core's bashOffer decides, with what is known.
  const confinement = start.runner && runtime.confinement && !bashOffer(rules).offered ? await runtime.confinement() : undefined;
  const sandbox: Omit<SandboxOptions, "approve"> = { ...rules, ...(confinement ? { confinement } : {}) };
  const make = (workspace: McpWorkspace, roots: readonly string[], approve: Approver | undefined) => build(options, sandbox, workspace, roots, approve);
  // What a session offers before it knows its roots. Without roots, bash is left out: its description would
  // name the roots it may write in, and no call can run anyway.
  const template = make(start, options.roots ?? [], undefined);
  const withheld = template.withheld;
  const rootless = options.roots && options.roots.length > 0 ? template : make({ ...start, runner: undefined }, [], undefined);
  const overlaid = start.overlay !== undefined;
  // A store that can read its spills back serves the links glob and grep put in their results.
  const linksSpills = start.spill?.read !== undefined;
  const server = new Server(
    { name: "toolfs", title: "toolfs", version: MCP_SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: true }, ...(overlaid || linksSpills ? { resources: {} } : {}) },
      instructions: instructions(rootless, options.roots, overlaid),
    },
  );

  let current:
    | {
        readonly roots: readonly string[];
        readonly toolkit: Toolkit;
        readonly tools: McpTool[];
        readonly overlay?: OverlayFileSystem | undefined;
        readonly spill?: SpillStore | undefined;
      }
    | undefined;
  // Besides the overlay's patch, the only resources served: the spill links this session's results gave.
  const links = new SpillLinks();
  let applying: Promise<void> = Promise.resolve();
  const rootlessTools = listing(rootless, overlaid);
  // The listing a client was last given; a change of roots that changes it is announced.
  let listed: string | undefined;
  const tools = () => current?.tools ?? rootlessTools;
  const approve = (request: ApprovalRequest): Promise<ApprovalOutcome> => elicitApproval(server, request, log);
  const apply = async (roots: readonly string[]): Promise<void> => {
    if (roots.length === 0) current = undefined;
    else {
      const workspace = await runtime.workspace(roots);
      const toolkit = make(workspace, roots, canElicit(server) ? approve : undefined);
      current = { roots, toolkit, tools: listing(toolkit, overlaid), overlay: workspace.overlay, spill: workspace.spill };
    }
    // Descriptions name the roots (and which tools can run); a client that listed the old ones is told.
    if (listed !== undefined && listed !== JSON.stringify(tools())) {
      await server.sendToolListChanged().catch((error: unknown) => log(`toolfs mcp: tools/list_changed failed: ${(error as Error).message}`));
    }
  };

  const fetchClientRoots = async (): Promise<void> => {
    let given: { uri: string }[];
    try {
      given = (await server.listRoots()).roots;
    } catch (error) {
      log(`toolfs mcp: roots/list failed: ${(error as Error).message}`);
      given = [];
    }
    const roots: string[] = [];
    for (const { uri } of given) {
      const path = filePath(uri);
      const real = path === undefined ? undefined : await runtime.realDirectory(path);
      if (real === undefined) log(`toolfs mcp: ignoring root ${uri}: not an existing local directory`);
      else if (!roots.includes(real)) roots.push(real);
    }
    await apply(roots);
  };

  server.oninitialized = () => {
    if (options.roots) {
      applying = apply(options.roots);
    } else if (server.getClientCapabilities()?.roots) {
      applying = fetchClientRoots();
    }
  };
  if (!options.roots) {
    server.setNotificationHandler("notifications/roots/list_changed", () => {
      // Chained, so the roots the client announced last are the ones that stay.
      applying = applying.then(fetchClientRoots);
    });
  }

  server.setRequestHandler("tools/list", async () => {
    // Roots asked for at initialization come first: the descriptions depend on them.
    await applying;
    const now = tools();
    listed = JSON.stringify(now);
    return { tools: now };
  });
  if (overlaid || linksSpills) {
    server.setRequestHandler("resources/list", () => ({
      resources: [...(overlaid ? [CHANGES_RESOURCE] : []), ...links.resources()],
    }));
    server.setRequestHandler("resources/read", async (request, ctx) => {
      const uri = request.params.uri;
      if (overlaid && uri === CHANGES_URI) {
        await applying;
        if (!current?.overlay) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "No workspace is open yet, so there are no changes");
        return readChanges(current.overlay);
      }
      return links.read(uri, servedResources(overlaid ? CHANGES_URI : undefined, linksSpills), ctx.mcpReq.signal);
    });
  }
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args } = request.params;
    await applying;
    const offered = tools();
    const tool = offered.find((t) => t.name === name);
    if (!tool) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${name}"; available: ${offered.map((t) => t.name).join(", ")}`);
    }
    let answer: CallToolResult;
    if (!current) {
      answer = noRoots(Boolean(server.getClientCapabilities()?.roots));
    } else if (name === COMMIT_TOOL.name && current.overlay) {
      answer = await callCommit(
        current.overlay,
        (args ?? {}) as Record<string, unknown>,
        (message) => elicitCommit(server, message, ctx.mcpReq.signal, log),
        ctx.mcpReq.signal,
      );
    } else {
      // Roots that change mid-call do not move a call already running.
      const result = await current.toolkit.call(name, args ?? {}, { signal: ctx.mcpReq.signal, actor });
      links.record(result, current.spill);
      answer = {
        content: [{ type: "text", text: result.content }, ...(result.parts ?? []).map(mcpPart)],
        structuredContent: structuredResult(result),
        ...(result.isError ? { isError: true } : {}),
      };
    }
    return server.projectCallToolResult(answer, tool.outputSchema);
  });

  return {
    server,
    roots: () => current?.roots ?? [],
    withheld,
  };
}

type Approver = (request: ApprovalRequest) => Promise<ApprovalOutcome>;

function build(
  options: ToolfsMcpOptions,
  sandbox: Omit<SandboxOptions, "approve">,
  workspace: McpWorkspace,
  roots: readonly string[],
  approve: Approver | undefined,
): Toolkit {
  return createToolkit({
    fs: workspace.fs,
    // Every root is fenced as the first is; paths in the others are shown as name/path (core/tools/roots.ts).
    ...(roots.length === 0 ? {} : { workspace: roots }),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(workspace.search ? { search: workspace.search } : {}),
    ...(workspace.spill ? { spill: workspace.spill } : {}),
    ...(options.runtime.home === undefined ? {} : { home: options.runtime.home }),
    // Always the runner: the toolkit offers bash only where the sandbox can hold it (bashOffer).
    ...(workspace.runner ? { runner: workspace.runner } : {}),
    ...(options.bashEnv ? { bashEnv: options.bashEnv } : {}),
    sandbox: { ...sandbox, ...(approve ? { approve } : {}) },
  });
}

function instructions(toolkit: Toolkit, roots: readonly string[] | undefined, overlaid: boolean): string {
  const kept = overlaid ? "\nWrites are kept apart from the real files until commit applies them, with the user's approval." : "";
  // With several roots the guidance itself says where each is and how its paths are written.
  if (roots?.length !== 1) return `${toolkit.guidance}${kept}`;
  return `${toolkit.guidance}${kept}\nWorkspace: ${roots[0]} (relative paths start here).`;
}

function listing(toolkit: Toolkit, overlaid: boolean): McpTool[] {
  const tools = toolkit.definitions.map((definition): McpTool => {
    const tool = toolkit.tool(definition.name)!;
    const traits = tool.traits;
    return {
      name: definition.name,
      title: traits.title,
      description: definition.description,
      inputSchema: definition.inputSchema as McpTool["inputSchema"],
      outputSchema: resultJsonSchema(tool) as McpTool["outputSchema"],
      annotations: {
        title: traits.title,
        readOnlyHint: traits.readOnly,
        // The spec reads destructive and idempotent hints only when readOnlyHint is false.
        ...(traits.readOnly ? {} : { destructiveHint: traits.destructive, idempotentHint: traits.idempotent }),
        openWorldHint: traits.openWorld,
      },
    };
  });
  return overlaid ? [...tools, COMMIT_TOOL] : tools;
}

function noRoots(clientHasRoots: boolean): CallToolResult {
  const why = clientHasRoots
    ? "the client listed no local directory as a root"
    : "the server was started without --root and the client does not share its roots";
  const code: McpErrorCode = "MCP_NO_ROOTS";
  return {
    content: [{ type: "text", text: `No workspace is open: ${why}. Nothing can be read or written until one is; tell the user.` }],
    structuredContent: { error: { name: "McpError", code } },
    isError: true,
  };
}

/** The local path of a `file:` URI, or undefined for any other URI. */
export function filePath(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== "file:" || (url.host !== "" && url.host !== "localhost")) return undefined;
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
}
