// The ACP agent: its protocol handlers (initialize, session/new, session/prompt, session/cancel) over a
// composition's toolkit; the prompt turn and its tool calls are in turn.ts. Runtime-neutral: the runtime's
// providers, search backend and process runner arrive through AcpRuntime, the transport through serveAcp.
import * as acp from "@agentclientprotocol/sdk";
import {
  accessWords,
  approvalText,
  type ApprovalOutcome,
  type ApprovalRequest,
  createOverlayProvider,
  createOverlaySearchBackend,
  createToolkit,
  type DefinedTool,
  type FileSystem,
  isAbsolutePath,
  type ProcessRunner,
  resolvePath,
  type SandboxOptions,
  type SearchBackend,
  type SpillStore,
  type ToolName,
} from "../../core/mod.ts";
import { type Composition, requestHeader, sessionTools } from "./composition.ts";
import { DEFAULT_TOKENS_PER_BYTE } from "./context.ts";
import { type Model, ModelError } from "./model.ts";
import { beginTurn, commandOf, OVERLAY_COMMANDS, runCommand } from "./overlay.ts";
import type { PermissionMode } from "./permissions.ts";
import { runTurn, type Session, textContent, type Turn, type Update } from "./turn.ts";

/** The version the agent reports in `agentInfo`; kept equal to package.json's by a test. */
export const AGENT_VERSION = "0.1.0";

/** What the agent needs from its runtime. */
export interface AcpRuntime {
  /** A provider whose relative paths start at the absolute directory `cwd`. */
  provider(cwd: string): FileSystem;
  readonly search: SearchBackend;
  readonly runner: ProcessRunner;
  /** The user's home directory, for path arguments starting with `~`; without it they are refused. */
  readonly home?: string;
}

export interface AcpAgentOptions {
  readonly composition: Composition;
  /** Without one, every prompt fails with a JSON-RPC error that says so. */
  readonly model: Model | undefined;
  readonly runtime: AcpRuntime;
  /** Diagnostics, one line each; never written to the protocol stream. */
  readonly log?: (line: string) => void;
  /** Model requests one prompt may make before it stops with `max_turn_requests`; default 64. */
  readonly maxTurnRequests?: number;
  /** Which write, edit and bash calls are put to the user first; default `ask` (all of them). */
  readonly permissionMode?: PermissionMode;
  /** Variables bash inherits besides the default allow-list (ToolkitOptions.bashEnv). */
  readonly bashEnv?: readonly string[];
  /**
   * Where every session's over-cap glob and grep keep their complete results (ToolkitOptions.spill); a store
   * with URIs (createFsSpillStore) adds a resource_link to the tool call's content. Without one, none is kept.
   */
  readonly spill?: SpillStore;
  /**
   * The sandbox every session's tools run under (each session's cwd is its workspace). Without one, writes may
   * go anywhere the process may write. Under a confining mode, a deny list or the workspace read scope, bash
   * runs confined by `sandbox.confinement`, or is not offered (see bashUnder); a refused write may be retried
   * with wider access the user approves.
   */
  readonly sandbox?: Omit<SandboxOptions, "workspaceRoot" | "approve">;
  /**
   * Each session works on an overlay of its cwd: writes stay in memory, apart from the real files, until the
   * user types /commit; /changes shows them as a patch, /undo takes back the last prompt turn (files and
   * conversation). bash is not offered, since its commands would change the real files.
   */
  readonly overlay?: boolean;
}

/** One agent app, for one connection. */
export interface AcpAgent {
  readonly app: acp.AgentApp;
  /** Cancels every running turn and resolves once their tools have stopped. */
  close(): Promise<void>;
}

/** Builds the agent app; connect it to one client (`serveAcp` does that over a byte stream). */
export function createAcpAgent(options: AcpAgentOptions): AcpAgent {
  const { composition, runtime } = options;
  const log = options.log ?? (() => {});
  const maxTurnRequests = options.maxTurnRequests ?? 64;
  const mode = options.permissionMode ?? "ask";
  const sessions = new Map<string, Session>();
  const offered = withOverlay(sessionTools(composition, options.sandbox, options.model), options.overlay === true);
  for (const note of offered.notes) log(`toolfs acp: ${note}`);

  const close = async (): Promise<void> => {
    const running = [...sessions.values()].flatMap((s) => (s.turn ? [s.turn] : []));
    for (const turn of running) turn.controller.abort();
    await Promise.allSettled(running.map((turn) => turn.done));
  };

  const app = acp
    .agent({ name: "toolfs" })
    .onConnect((connection) => connection.signal.addEventListener("abort", () => void close(), { once: true }))
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
        mcpCapabilities: { http: false, sse: false },
      },
      agentInfo: { name: "toolfs", title: `toolfs (${composition.name})`, version: AGENT_VERSION },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      if (!isAbsolutePath(params.cwd)) {
        throw acp.RequestError.invalidParams({ cwd: params.cwd }, `cwd must be an absolute path, got ${JSON.stringify(params.cwd)}`);
      }
      const cwd = resolvePath("/", params.cwd);
      const base = runtime.provider(cwd);
      const overlay = options.overlay ? createOverlayProvider({ base }) : undefined;
      const fs = overlay ?? base;
      const info = await fs.stat(await fs.resolve(cwd));
      if (info?.type !== "directory") throw acp.RequestError.invalidParams({ cwd }, `cwd ${JSON.stringify(cwd)} is not a directory`);
      if (params.mcpServers.length > 0) log(`toolfs acp: ignoring ${params.mcpServers.length} MCP server(s); this agent offers only its own tools`);
      const id = crypto.randomUUID();
      const approve = (request: ApprovalRequest) => approveEscalation(request, sessions.get(id), log);
      const toolkit = createToolkit({
        fs,
        workspace: cwd,
        tools: offered.tools,
        limits: composition.limits,
        search: overlay ? createOverlaySearchBackend(overlay, runtime.search) : runtime.search,
        ...(overlay ? {} : { runner: runtime.runner }),
        ...(options.spill ? { spill: options.spill } : {}),
        ...(options.bashEnv ? { bashEnv: options.bashEnv } : {}),
        ...(runtime.home === undefined ? {} : { home: runtime.home }),
        ...(options.sandbox ? { sandbox: { ...options.sandbox, writableRoots: options.sandbox.writableRoots ?? [], approve } } : {}),
      });
      sessions.set(id, {
        id,
        cwd,
        fs,
        toolkit,
        header: requestHeader(composition, toolkit, cwd, offered.notes),
        history: [],
        remembered: new Map(),
        elided: new WeakSet(),
        tokensPerByte: DEFAULT_TOKENS_PER_BYTE,
        turn: undefined,
        asking: undefined,
        overlay: overlay && { fs: overlay, turns: [] },
      });
      if (overlay) {
        // After the response, so the client knows the session the commands belong to.
        setTimeout(() => {
          void client
            .notify(acp.methods.client.session.update, {
              sessionId: id,
              update: { sessionUpdate: "available_commands_update", availableCommands: OVERLAY_COMMANDS },
            })
            .catch(() => undefined);
        }, 0);
      }
      return { sessionId: id };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw acp.RequestError.sessionNotFound(params.sessionId);
      if (session.turn) throw acp.RequestError.invalidRequest({ sessionId: session.id }, "a prompt is already running in this session");
      const text = promptText(params.prompt);
      const command = session.overlay && commandOf(text);
      if (session.overlay && command) {
        const controller = new AbortController();
        const done = runCommand(command, session.overlay, session.history, () => session.toolkit.forget(session), AbortSignal.any([controller.signal, signal]));
        session.turn = { controller, done };
        try {
          const reply = await done;
          await client.notify(acp.methods.client.session.update, {
            sessionId: session.id,
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: reply } },
          });
          return { stopReason: "end_turn" };
        } finally {
          session.turn = undefined;
        }
      }
      const model = options.model;
      if (!model) {
        throw acp.RequestError.internalError(
          { code: "MODEL_UNAVAILABLE" },
          "no model is configured; start the agent with --model PROVIDER:MODEL or --script FILE",
        );
      }
      const controller = new AbortController();
      const update: Update = (u) => client.notify(acp.methods.client.session.update, { sessionId: session.id, update: u });
      const turn: Turn = { session, model, update, client, signal: AbortSignal.any([controller.signal, signal]), mode, log };
      if (session.overlay) beginTurn(session.overlay, session.history);
      const done = runTurn(turn, text, maxTurnRequests);
      session.turn = { controller, done };
      try {
        const { stopReason, usage } = await done;
        if (!usage.reported) return { stopReason };
        if (model.contextWindow !== undefined) await update({ sessionUpdate: "usage_update", used: usage.inContext, size: model.contextWindow });
        const { inputTokens, outputTokens, cachedReadTokens } = usage;
        // PromptResponse.usage is an unstable ACP field; clients that do not know it ignore it.
        return { stopReason, usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, cachedReadTokens } } as acp.PromptResponse;
      } catch (error) {
        if (!(error instanceof ModelError)) throw error;
        log(`toolfs acp: ${error.code}: ${error.message}`);
        throw acp.RequestError.internalError({ code: error.code }, error.message);
      } finally {
        session.turn = undefined;
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      // The SDK does not abort the prompt request's own signal on session/cancel; the turn's controller does.
      sessions.get(params.sessionId)?.turn?.controller.abort();
    });
  return { app, close };
}

type SessionTools = { readonly tools: readonly (ToolName | DefinedTool)[]; readonly notes: readonly string[] };

/** The tools and notes of a session, less bash on an overlay (its commands would write past it). */
function withOverlay(offered: SessionTools, overlay: boolean): SessionTools {
  if (!overlay) return offered;
  const kept = "Writes are kept apart from the real files until the user commits them; the user can also undo your last turn.";
  if (!offered.tools.includes("bash")) return { tools: offered.tools, notes: [...offered.notes, kept] };
  return {
    tools: offered.tools.filter((t) => t !== "bash"),
    notes: [...offered.notes, "bash is not offered: its commands would change the real files, which this session keeps apart until the user commits.", kept],
  };
}

/** A sandbox escalation (a refused write retried with wider access) put to the user as a permission request. */
async function approveEscalation(request: ApprovalRequest, session: Session | undefined, log: (line: string) => void): Promise<ApprovalOutcome> {
  const asking = session?.asking;
  if (!session || !asking) return "rejected";
  const text = approvalText(request);
  try {
    const response = await asking.client.request(
      acp.methods.client.session.requestPermission,
      {
        sessionId: session.id,
        toolCall: {
          toolCallId: asking.callId,
          title: text.title,
          kind: "edit",
          status: "pending",
          content: [textContent(text.lines.join("\n"))],
          locations: [{ path: request.destination }],
        },
        options: [
          { optionId: "allow_once", name: `Allow ${accessWords(request.mode)} once`, kind: "allow_once" },
          { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        ],
      },
      request.signal ? { cancellationSignal: request.signal, stopWaitingOnCancel: true } : {},
    );
    if (response.outcome.outcome !== "selected") return "cancelled";
    return response.outcome.optionId === "allow_once" ? "allowed-once" : "rejected";
  } catch (error) {
    if (request.signal?.aborted) return "cancelled";
    log(`toolfs acp: could not ask about wider sandbox access: ${(error as Error).message}`);
    return "rejected";
  }
}

/** The prompt as text for the model; content the agent did not advertise is refused. */
function promptText(blocks: readonly acp.ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "resource_link") parts.push(`[${block.name}](${block.uri})`);
    else throw acp.RequestError.invalidParams({ type: block.type }, `${block.type} content is not supported: this agent takes text and resource links`);
  }
  return parts.join("\n\n");
}
