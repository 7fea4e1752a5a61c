// One MCP session over the toolkit: tools/list and tools/call answered by hand on the SDK's protocol layer,
// so the model sees the toolkit's own descriptions and JSON Schemas and the toolkit (not the SDK) judges
// arguments, with coded results. Runtime-neutral: the runtime's providers arrive through McpRuntime.
import { callCommit, CHANGES_RESOURCE, CHANGES_URI, COMMIT_TOOL, type CommitApproval, readChanges } from "./overlay.ts";
import {
  type CallToolResult,
  type ElicitResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool as McpTool,
} from "@modelcontextprotocol/server";
import {
  type ApprovalOutcome,
  type ApprovalRequest,
  createToolkit,
  type FileSystem,
  type OverlayFileSystem,
  type ProcessRunner,
  resultJsonSchema,
  SANDBOX_MODES,
  type SandboxMode,
  type SearchBackend,
  type SpillStore,
  structuredResult,
  TOOL_TRAITS,
  type Toolkit,
  type ToolLimits,
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
  /** Offered (as bash) only under full-access or no sandbox. */
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
}

export interface ToolfsMcpOptions {
  readonly runtime: McpRuntime;
  /**
   * Canonical absolute workspace roots. Without them the session asks the client for its roots
   * (`roots/list`) and follows `notifications/roots/list_changed`.
   */
  readonly roots?: readonly string[];
  /** Default "workspace-write": writes only inside the roots (and temp roots). bash needs "full-access". */
  readonly sandbox?: SandboxMode;
  readonly tools?: readonly ToolName[];
  readonly limits?: Partial<ToolLimits>;
  /** Diagnostics, one line each; never written to the protocol stream. */
  readonly log?: (line: string) => void;
}

/** One session: a protocol server to connect to one transport. */
export interface ToolfsMcpSession {
  readonly server: Server;
  /** The roots the session's tools work in now (empty while none are known). */
  roots(): readonly string[];
}

/** The codes of the server's own failures, returned as tool results like the toolkit's. */
export const MCP_ERROR_CODES = ["MCP_NO_ROOTS", "MCP_COMMIT_UNAPPROVED", "MCP_COMMIT_CONFLICT"] as const;
export type McpErrorCode = (typeof MCP_ERROR_CODES)[number];

// How long a person may take to answer an escalation request before it counts as cancelled.
const APPROVAL_TIMEOUT_MS = 10 * 60_000;

/**
 * Builds one session's server. Each session is its own actor: what one client read never authorizes
 * another's write, even when both work in the same roots.
 */
export async function createToolfsMcpSession(options: ToolfsMcpOptions): Promise<ToolfsMcpSession> {
  const mode = options.sandbox ?? "workspace-write";
  if (!SANDBOX_MODES.includes(mode)) throw new RangeError(`sandbox must be one of ${SANDBOX_MODES.join(", ")}`);
  const log = options.log ?? (() => {});
  const actor = Symbol("toolfs MCP session");
  // The tools a session offers do not depend on its roots: list them from a workspace with none.
  const first = await options.runtime.workspace(options.roots ?? []);
  const template = build(options, mode, first, options.roots ?? [], undefined);
  const overlaid = first.overlay !== undefined;
  const tools = [...listing(template), ...(overlaid ? [COMMIT_TOOL] : [])];
  const server = new Server(
    { name: "toolfs", title: "toolfs", version: MCP_SERVER_VERSION },
    { capabilities: { tools: {}, ...(overlaid ? { resources: {} } : {}) }, instructions: instructions(template, options.roots, overlaid) },
  );

  let current: { readonly roots: readonly string[]; readonly toolkit: Toolkit; readonly overlay?: OverlayFileSystem | undefined } | undefined;
  let applying: Promise<void> = Promise.resolve();
  const approve = async (request: ApprovalRequest): Promise<ApprovalOutcome> => {
    let answer: ElicitResult;
    try {
      answer = await server.elicitInput(
        {
          mode: "form",
          message:
            `The model asks for ${request.mode} access to ${request.tool} ${request.path}, once.\n` + `Reason it gives: ${request.justification}`,
          requestedSchema: {
            type: "object",
            properties: { allow: { type: "boolean", title: "Allow this once", description: `${request.tool} ${request.path} with ${request.mode} access` } },
            required: ["allow"],
          },
        },
        { timeout: APPROVAL_TIMEOUT_MS, ...(request.signal ? { signal: request.signal } : {}) },
      );
    } catch (error) {
      log(`toolfs mcp: the approval request failed: ${(error as Error).message}`);
      return "cancelled";
    }
    if (answer.action === "accept") return answer.content?.allow === true ? "allowed-once" : "rejected";
    return answer.action === "decline" ? "rejected" : "cancelled";
  };
  const canElicit = (): boolean => {
    const elicitation = server.getClientCapabilities()?.elicitation as Record<string, unknown> | undefined;
    // A bare `elicitation: {}` predates modes and means form support.
    return elicitation !== undefined && (elicitation.form !== undefined || Object.keys(elicitation).length === 0);
  };
  const apply = async (roots: readonly string[]): Promise<void> => {
    if (roots.length === 0) {
      current = undefined;
      return;
    }
    const workspace = await options.runtime.workspace(roots);
    current = { roots, toolkit: build(options, mode, workspace, roots, canElicit() ? approve : undefined), overlay: workspace.overlay };
  };
  const approveCommit = async (message: string, signal: AbortSignal): Promise<CommitApproval> => {
    if (!canElicit()) return "unavailable";
    try {
      const answer = await server.elicitInput(
        {
          mode: "form",
          message,
          requestedSchema: {
            type: "object",
            properties: { apply: { type: "boolean", title: "Apply the changes", description: "Write them to the real files" } },
            required: ["apply"],
          },
        },
        { timeout: APPROVAL_TIMEOUT_MS, signal },
      );
      if (answer.action === "accept") return answer.content?.apply === true ? "accept" : "decline";
      return answer.action;
    } catch (error) {
      log(`toolfs mcp: the commit approval request failed: ${(error as Error).message}`);
      return "cancel";
    }
  };

  const fetchClientRoots = async (): Promise<void> => {
    let listed: { uri: string }[];
    try {
      listed = (await server.listRoots()).roots;
    } catch (error) {
      log(`toolfs mcp: roots/list failed: ${(error as Error).message}`);
      listed = [];
    }
    const roots: string[] = [];
    for (const { uri } of listed) {
      const path = filePath(uri);
      const real = path === undefined ? undefined : await options.runtime.realDirectory(path);
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

  server.setRequestHandler("tools/list", () => ({ tools }));
  if (overlaid) {
    server.setRequestHandler("resources/list", () => ({ resources: [CHANGES_RESOURCE] }));
    server.setRequestHandler("resources/read", async (request) => {
      if (request.params.uri !== CHANGES_URI) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource ${request.params.uri}`);
      await applying;
      if (!current?.overlay) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "No workspace is open yet, so there are no changes");
      return readChanges(current.overlay);
    });
  }
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const tool = tools.find((t) => t.name === name);
    if (!tool) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${name}"; available: ${tools.map((t) => t.name).join(", ")}`);
    }
    await applying;
    let answer: CallToolResult;
    if (!current) {
      answer = noRoots(Boolean(server.getClientCapabilities()?.roots));
    } else if (name === COMMIT_TOOL.name && current.overlay) {
      answer = await callCommit(current.overlay, (args ?? {}) as Record<string, unknown>, (message) => approveCommit(message, ctx.mcpReq.signal), ctx.mcpReq.signal);
    } else {
      // Roots that change mid-call do not move a call already running.
      const result = await current.toolkit.call(name, args ?? {}, { signal: ctx.mcpReq.signal, actor });
      answer = {
        content: [{ type: "text", text: result.content }],
        structuredContent: structuredResult(result),
        ...(result.isError ? { isError: true } : {}),
      };
    }
    return server.projectCallToolResult(answer, tool.outputSchema);
  });

  return {
    server,
    roots: () => current?.roots ?? [],
  };
}

function build(options: ToolfsMcpOptions, mode: SandboxMode, workspace: McpWorkspace, roots: readonly string[], approve: ((r: ApprovalRequest) => Promise<ApprovalOutcome>) | undefined): Toolkit {
  const confining = mode !== "full-access";
  const [first, ...more] = roots;
  return createToolkit({
    fs: workspace.fs,
    ...(first === undefined ? {} : { workspace: first }),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(workspace.search ? { search: workspace.search } : {}),
    ...(workspace.spill ? { spill: workspace.spill } : {}),
    // bash runs outside the fence; a confining sandbox does not offer it (the toolkit would refuse).
    ...(workspace.runner && !confining ? { runner: workspace.runner } : {}),
    sandbox: { mode, writableRoots: [...more, ...(options.runtime.tempRoots ?? [])], ...(approve ? { approve } : {}) },
  });
}

function instructions(toolkit: Toolkit, roots: readonly string[] | undefined, overlaid: boolean): string {
  const kept = overlaid ? "\nWrites are kept apart from the real files until commit applies them, with the user's approval." : "";
  if (!roots || roots.length === 0) return `${toolkit.guidance}${kept}`;
  const [first, ...more] = roots;
  const others = more.length === 0 ? "" : `; also ${more.join(", ")} (give paths there in full)`;
  return `${toolkit.guidance}${kept}\nWorkspace: ${first} (relative paths start here)${others}.`;
}

function listing(toolkit: Toolkit): McpTool[] {
  return toolkit.definitions.map((definition) => {
    const traits = TOOL_TRAITS[definition.name as ToolName];
    return {
      name: definition.name,
      title: traits.title,
      description: definition.description,
      inputSchema: definition.inputSchema as McpTool["inputSchema"],
      outputSchema: resultJsonSchema(definition.name as ToolName) as McpTool["outputSchema"],
      annotations: {
        title: traits.title,
        readOnlyHint: traits.readOnly,
        // The spec reads destructive and idempotent hints only when readOnlyHint is false.
        ...(traits.readOnly ? {} : { destructiveHint: traits.destructive, idempotentHint: traits.idempotent }),
        openWorldHint: traits.openWorld,
      },
    };
  });
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
