// The ACP agent: sessions over a composition's toolkit, prompt turns that drive a model, and tool calls
// reported as the protocol's session updates. Runtime-neutral: the runtime's providers, search backend and
// process runner arrive through AcpRuntime, and the transport through serveAcp's streams.
import * as acp from "@agentclientprotocol/sdk";
import {
  bashOffer,
  createToolkit,
  type FileSystem,
  isAbsolutePath,
  type ProcessRunner,
  resolvePath,
  type SandboxOptions,
  type SearchBackend,
  type Toolkit,
  type ToolResult,
} from "../../core/mod.ts";
import { type Composition, type RequestHeader, requestHeader } from "./composition.ts";
import { type Model, ModelError, type ModelMessage, type ModelToolCall } from "./model.ts";

/** The version the agent reports in `agentInfo`; kept equal to package.json's by a test. */
export const AGENT_VERSION = "0.1.0";

/** What the agent needs from its runtime. */
export interface AcpRuntime {
  /** A provider whose relative paths start at the absolute directory `cwd`. */
  provider(cwd: string): FileSystem;
  readonly search: SearchBackend;
  readonly runner: ProcessRunner;
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
  /**
   * The sandbox every session's tools run under (each session's cwd is its workspace). Under a confining mode
   * or with a deny list, bash runs confined by `sandbox.confinement`, or is left out and the log says why.
   */
  readonly sandbox?: Omit<SandboxOptions, "workspaceRoot" | "approve">;
}

/** One agent app, for one connection. */
export interface AcpAgent {
  readonly app: acp.AgentApp;
  /** Cancels every running turn and resolves once their tools have stopped. */
  close(): Promise<void>;
}

interface Session {
  readonly id: string;
  readonly cwd: string;
  readonly toolkit: Toolkit;
  readonly header: RequestHeader;
  readonly history: ModelMessage[];
  /** The running prompt turn: aborting it cancels the turn and the tool call in flight. */
  turn: { readonly controller: AbortController; readonly done: Promise<unknown> } | undefined;
}

type Update = (update: acp.SessionUpdate) => Promise<void>;

const KINDS: Readonly<Record<string, acp.ToolKind>> = { bash: "execute", glob: "search", grep: "search", read: "read", write: "edit", edit: "edit" };

/** Builds the agent app; connect it to one client (`serveAcp` does that over a byte stream). */
export function createAcpAgent(options: AcpAgentOptions): AcpAgent {
  const { composition, runtime } = options;
  const log = options.log ?? (() => {});
  const maxTurnRequests = options.maxTurnRequests ?? 64;
  const sessions = new Map<string, Session>();
  // Whether bash can be offered is decided once, by the same function the toolkit uses, and said once.
  const bash = bashOffer(options.sandbox);
  const tools = bash.offered ? composition.tools : composition.tools.filter((name) => name !== "bash");
  if (!bash.offered && composition.tools.includes("bash")) log(`toolfs acp: ${bash.reason}`);

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
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      if (!isAbsolutePath(params.cwd)) {
        throw acp.RequestError.invalidParams({ cwd: params.cwd }, `cwd must be an absolute path, got ${JSON.stringify(params.cwd)}`);
      }
      const cwd = resolvePath("/", params.cwd);
      const fs = runtime.provider(cwd);
      const info = await fs.stat(await fs.resolve(cwd));
      if (info?.type !== "directory") throw acp.RequestError.invalidParams({ cwd }, `cwd ${JSON.stringify(cwd)} is not a directory`);
      if (params.mcpServers.length > 0) log(`toolfs acp: ignoring ${params.mcpServers.length} MCP server(s); this agent offers only its own tools`);
      const toolkit = createToolkit({
        fs,
        workspace: cwd,
        tools,
        limits: composition.limits,
        search: runtime.search,
        runner: runtime.runner,
        ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      });
      const id = crypto.randomUUID();
      sessions.set(id, { id, cwd, toolkit, header: requestHeader(composition, toolkit, cwd), history: [], turn: undefined });
      return { sessionId: id };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw acp.RequestError.sessionNotFound(params.sessionId);
      if (session.turn) throw acp.RequestError.invalidRequest({ sessionId: session.id }, "a prompt is already running in this session");
      const text = promptText(params.prompt);
      const model = options.model;
      if (!model) throw acp.RequestError.internalError({ code: "MODEL_UNAVAILABLE" }, "no model is configured; start the agent with --script FILE");
      const controller = new AbortController();
      const update: Update = (u) => client.notify(acp.methods.client.session.update, { sessionId: session.id, update: u });
      const done = runTurn(session, text, model, update, AbortSignal.any([controller.signal, signal]), maxTurnRequests);
      session.turn = { controller, done };
      try {
        return { stopReason: await done };
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

/** Runs one prompt turn to its stop reason: model steps and their tool calls, until no tool is called. */
async function runTurn(session: Session, text: string, model: Model, update: Update, signal: AbortSignal, maxRequests: number): Promise<acp.StopReason> {
  session.history.push({ role: "user", text });
  for (let step = 0; step < maxRequests; step++) {
    if (signal.aborted) return "cancelled";
    let reply;
    try {
      reply = await model.next({ ...session.header, messages: session.history, signal });
    } catch (error) {
      if (signal.aborted) return "cancelled";
      throw error;
    }
    if (signal.aborted) return "cancelled";
    session.history.push({ role: "assistant", text: reply.text, toolCalls: reply.toolCalls });
    if (reply.text !== "") await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: reply.text } });
    if (reply.toolCalls.length === 0) return reply.stopReason ?? "end_turn";
    for (const call of reply.toolCalls) {
      // Every call the model asked for gets a result in the history, also those a cancel kept from running.
      if (signal.aborted) session.history.push({ role: "tool", callId: call.id, content: "Not run: the turn was cancelled.", isError: true });
      else session.history.push(await runToolCall(session, call, update, signal));
    }
  }
  return signal.aborted ? "cancelled" : "max_turn_requests";
}

async function runToolCall(session: Session, call: ModelToolCall, update: Update, signal: AbortSignal): Promise<ModelMessage> {
  const args = (typeof call.arguments === "object" && call.arguments !== null ? call.arguments : {}) as Record<string, unknown>;
  const path = typeof args.path === "string" ? args.path : undefined;
  // The arguments are complete and nothing awaits approval, so the call is running from the start: never pending.
  await update({
    sessionUpdate: "tool_call",
    toolCallId: call.id,
    title: title(call.name, args),
    kind: KINDS[call.name] ?? "other",
    status: "in_progress",
    rawInput: call.arguments,
    ...(path === undefined ? {} : { locations: [{ path: resolvePath(session.cwd, path) }] }),
  });
  const result = await session.toolkit.call(call.name, call.arguments, { signal, cwd: session.cwd, actor: session });
  await update({
    sessionUpdate: "tool_call_update",
    toolCallId: call.id,
    status: result.isError ? "failed" : "completed",
    content: [{ type: "content", content: { type: "text", text: result.content } }],
    rawOutput: rawOutput(result),
  });
  return { role: "tool", callId: call.id, content: result.content, isError: result.isError };
}

function rawOutput(result: ToolResult): Record<string, unknown> {
  return { isError: result.isError, meta: result.meta, ...(result.error ? { error: result.error } : {}) };
}

function title(name: string, args: Record<string, unknown>): string {
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  const where = text("path") === undefined ? "" : ` in ${text("path")}`;
  if (name === "bash") {
    const command = (text("command") ?? "").split("\n")[0]!;
    return command.length > 80 ? `${command.slice(0, 79)}…` : command || "bash";
  }
  if (name === "glob" || name === "grep") {
    const include = text("include") === undefined ? "" : ` (${text("include")})`;
    return `${name} ${JSON.stringify(text("pattern") ?? "")}${where}${include}`;
  }
  return `${name}${where}`;
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
