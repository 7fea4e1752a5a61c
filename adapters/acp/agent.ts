// The ACP agent: sessions over a composition's toolkit, prompt turns that drive a model, and tool calls
// reported as the protocol's session updates. Runtime-neutral: the runtime's providers, search backend and
// process runner arrive through AcpRuntime, and the transport through serveAcp's streams.
import * as acp from "@agentclientprotocol/sdk";
import {
  accessWords,
  approvalText,
  type ApprovalOutcome,
  type ApprovalRequest,
  createOverlayProvider,
  createOverlaySearchBackend,
  createToolkit,
  builtinTool,
  type ContentPart,
  decodeText,
  type DefinedTool,
  type FileSystem,
  isAbsolutePath,
  pathTitle,
  type ProcessRunner,
  resolvePath,
  resultText,
  type SandboxOptions,
  type SearchBackend,
  type Toolkit,
  type ToolName,
  type ToolResult,
} from "../../core/mod.ts";
import { type Composition, type RequestHeader, requestHeader, sessionTools } from "./composition.ts";
import { type BudgetState, DEFAULT_TOKENS_PER_BYTE, fitContext, requestBytes } from "./context.ts";
import { type Model, ModelError, type ModelMessage, type ModelToolCall } from "./model.ts";
import { beginTurn, commandOf, OVERLAY_COMMANDS, type OverlayState, runCommand } from "./overlay.ts";
import { asks, decide, type Decision, type PermissionKind, type PermissionMode, permissionOptions, refusalText } from "./permissions.ts";

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

interface Session extends BudgetState {
  readonly id: string;
  readonly cwd: string;
  readonly fs: FileSystem;
  readonly toolkit: Toolkit;
  readonly header: RequestHeader;
  readonly history: ModelMessage[];
  /** Answers the user gave with "always", per kind of call. */
  readonly remembered: Map<PermissionKind, "allow" | "reject">;
  /** The running prompt turn: aborting it cancels the turn and the tool call in flight. */
  turn: { readonly controller: AbortController; readonly done: Promise<unknown> } | undefined;
  /** The client of the running turn and its tool call, for escalation requests raised inside the toolkit. */
  asking: { readonly client: acp.AgentContext; readonly callId: string } | undefined;
  /** Set when the session works on an overlay (AcpAgentOptions.overlay). */
  readonly overlay: OverlayState | undefined;
}

type Update = (update: acp.SessionUpdate) => Promise<void>;

interface Turn {
  readonly session: Session;
  readonly model: Model;
  readonly update: Update;
  readonly client: acp.AgentContext;
  readonly signal: AbortSignal;
  readonly mode: PermissionMode;
  readonly log: (line: string) => void;
}

/** Token counts of one prompt turn, summed over its model requests. */
interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cachedReadTokens: number;
  /** The last request's input plus output: what the conversation now fills of the window. */
  inContext: number;
  reported: boolean;
}

// Files larger than this are not loaded to show a diff; the tool's own result text stands in.
const DIFF_MAX_BYTES = 1024 * 1024;

/** Builds the agent app; connect it to one client (`serveAcp` does that over a byte stream). */
export function createAcpAgent(options: AcpAgentOptions): AcpAgent {
  const { composition, runtime } = options;
  const log = options.log ?? (() => {});
  const maxTurnRequests = options.maxTurnRequests ?? 64;
  const mode = options.permissionMode ?? "ask";
  const sessions = new Map<string, Session>();
  const offered = withOverlay(sessionTools(composition, options.sandbox), options.overlay === true);
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
            .notify(acp.methods.client.session.update, { sessionId: id, update: { sessionUpdate: "available_commands_update", availableCommands: OVERLAY_COMMANDS } })
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
          await client.notify(acp.methods.client.session.update, { sessionId: session.id, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: reply } } });
          return { stopReason: "end_turn" };
        } finally {
          session.turn = undefined;
        }
      }
      const model = options.model;
      if (!model) {
        throw acp.RequestError.internalError({ code: "MODEL_UNAVAILABLE" }, "no model is configured; start the agent with --model PROVIDER:MODEL or --script FILE");
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
  return { tools: offered.tools.filter((t) => t !== "bash"), notes: [...offered.notes, "bash is not offered: its commands would change the real files, which this session keeps apart until the user commits.", kept] };
}

/** Runs one prompt turn to its stop reason: model steps and their tool calls, until no tool is called. */
async function runTurn(turn: Turn, text: string, maxRequests: number): Promise<{ stopReason: acp.StopReason; usage: TurnUsage }> {
  const { session, model, update, signal } = turn;
  const usage: TurnUsage = { inputTokens: 0, outputTokens: 0, cachedReadTokens: 0, inContext: 0, reported: false };
  const end = (stopReason: acp.StopReason) => ({ stopReason, usage });
  session.history.push({ role: "user", text });
  for (let step = 0; step < maxRequests; step++) {
    if (signal.aborted) return end("cancelled");
    if (model.contextWindow !== undefined) {
      const elided = fitContext(session.history, session.header, model.contextWindow, session, (call) => describeCall(session.toolkit, call));
      if (elided > 0) turn.log(`toolfs acp: elided ${elided} old tool output(s) to fit the ${model.contextWindow}-token context window`);
    }
    const sent = requestBytes(session.header.system, session.header.tools, session.history);
    let streamed = false;
    let reply;
    try {
      reply = await model.next({
        ...session.header,
        messages: session.history,
        signal,
        onText: async (delta) => {
          streamed = true;
          await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: delta } });
        },
        onThought: (delta) => update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: delta } }),
      });
    } catch (error) {
      if (signal.aborted) return end("cancelled");
      throw error;
    }
    if (signal.aborted) return end("cancelled");
    if (reply.usage) {
      usage.reported = true;
      usage.inputTokens += reply.usage.inputTokens;
      usage.outputTokens += reply.usage.outputTokens;
      usage.cachedReadTokens += reply.usage.cachedInputTokens ?? 0;
      usage.inContext = reply.usage.inputTokens + reply.usage.outputTokens;
      // The provider's count calibrates the estimate the budget uses for the next request.
      if (reply.usage.inputTokens > 0 && sent > 0) session.tokensPerByte = reply.usage.inputTokens / sent;
    }
    session.history.push({ role: "assistant", text: reply.text, toolCalls: reply.toolCalls });
    if (reply.text !== "" && !streamed) await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: reply.text } });
    if (reply.toolCalls.length === 0) return end(reply.stopReason ?? "end_turn");
    for (const call of reply.toolCalls) {
      // Every call the model asked for gets a result in the history, also those a cancel kept from running.
      if (signal.aborted) session.history.push({ role: "tool", callId: call.id, content: "Not run: the turn was cancelled.", isError: true, code: "TOOL_ABORTED" });
      else session.history.push(await runToolCall(turn, call));
    }
  }
  return end(signal.aborted ? "cancelled" : "max_turn_requests");
}

/** A file's text before a write or edit, to show the change as a diff. */
type Snapshot = { readonly state: "absent" } | { readonly state: "text"; readonly text: string } | { readonly state: "unknown" };

async function runToolCall(turn: Turn, call: ModelToolCall): Promise<ModelMessage> {
  const { session, update, signal } = turn;
  const args = (typeof call.arguments === "object" && call.arguments !== null ? call.arguments : {}) as Record<string, unknown>;
  const tool = session.toolkit.tool(call.name);
  // A call to a tool the session does not offer is still shown as what it names; it fails as unknown.
  const named = tool ?? builtinTool(call.name);
  const path = typeof args.path === "string" ? args.path : undefined;
  // The file the call would touch, through any symlink: what the user is asked about and shown.
  const absolute = path === undefined ? undefined : await canonical(session.fs, resolvePath(session.cwd, path), signal);
  const locations: acp.ToolCallLocation[] = absolute === undefined ? [] : [{ path: absolute }];
  const leads = absolute !== undefined && absolute !== resolvePath(session.cwd, path!) ? `, which leads to ${absolute}` : "";
  // In the order the fields have always gone on the wire, which the pinned transcripts show.
  const announce = (status: acp.ToolCallStatus, content?: acp.ToolCallContent): acp.ToolCall => ({
    toolCallId: call.id,
    title: `${named ? named.title(args) : pathTitle(call.name, args)}${leads}`,
    kind: named?.kind ?? "other",
    status,
    rawInput: call.invalidArguments ?? call.arguments,
    ...(absolute === undefined ? {} : { locations }),
    ...(content ? { content: [content] } : {}),
  });
  const kind = tool && call.invalidArguments === undefined ? tool.permission : undefined;
  const diffs = absolute !== undefined && tool?.preview !== undefined;
  const before: Snapshot | undefined = diffs ? await snapshot(session.fs, absolute, signal) : undefined;

  // A kind the user allowed "always" runs like one the mode never asks about: in progress from the start.
  if (kind !== undefined && asks(turn.mode, kind) && session.remembered.get(kind) !== "allow") {
    const preview = before && absolute && tool ? proposedDiff(tool, args, absolute, before) : undefined;
    await update({ sessionUpdate: "tool_call", ...announce("pending", preview) });
    const decision = await permission(turn, call, kind, announce("pending", preview));
    if (!decision.run) {
      if (signal.aborted) return { role: "tool", callId: call.id, content: "Not run: the turn was cancelled.", isError: true, code: "TOOL_ABORTED" };
      const content = refusalText(call.name, kind, decision.code, decision.standing === true);
      const raw = { isError: true, meta: {}, error: { name: "PermissionError", code: decision.code } };
      await update({ sessionUpdate: "tool_call_update", toolCallId: call.id, status: "failed", content: [textContent(content)], rawOutput: raw });
      return { role: "tool", callId: call.id, content, isError: true, code: decision.code };
    }
    await update({ sessionUpdate: "tool_call_update", toolCallId: call.id, status: "in_progress" });
  } else {
    // The arguments are complete and nothing awaits approval, so the call is running from the start: never pending.
    await update({ sessionUpdate: "tool_call", ...announce("in_progress") });
  }

  const result: ToolResult =
    call.invalidArguments === undefined
      ? await runAs(session, turn.client, call.id, () => session.toolkit.call(call.name, call.arguments, { signal, cwd: session.cwd, actor: session }))
      : invalidArguments(call);
  let content: acp.ToolCallContent[] = [textContent(result.content), ...(result.parts ?? []).map(acpPart)];
  let finalLocations: acp.ToolCallLocation[] | undefined;
  if (!result.isError && before && absolute) {
    const after = await snapshot(session.fs, absolute, signal);
    if (after.state === "text" && before.state !== "unknown") {
      content = [{ type: "diff", path: absolute, oldText: before.state === "text" ? before.text : null, newText: after.text }];
    }
    const lines = result.meta.lines;
    // A tool that reports the changed lines (edit) points the client at the first.
    if (Array.isArray(lines) && typeof lines[0] === "number") finalLocations = [{ path: absolute, line: lines[0] }];
  }
  await update({
    sessionUpdate: "tool_call_update",
    toolCallId: call.id,
    status: result.isError ? "failed" : "completed",
    content,
    ...(finalLocations ? { locations: finalLocations } : {}),
    rawOutput: rawOutput(result),
  });
  // The model drivers take text: parts reach the model described in words.
  return { role: "tool", callId: call.id, content: resultText(result), isError: result.isError, ...(result.error ? { code: result.error.code } : {}) };
}

/** Asks the client about one call, or answers from what the user said "always" to earlier in the session. */
async function permission(turn: Turn, call: ModelToolCall, kind: PermissionKind, toolCall: acp.ToolCall): Promise<Decision> {
  const { session, signal } = turn;
  if (session.remembered.get(kind) === "reject") return { run: false, code: "PERMISSION_REJECTED", standing: true };
  let decision: Decision;
  try {
    const response = await turn.client.request(
      acp.methods.client.session.requestPermission,
      { sessionId: session.id, toolCall, options: permissionOptions(kind) },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
    decision = decide(response);
  } catch (error) {
    if (signal.aborted) return { run: false, code: "PERMISSION_CANCELLED" };
    turn.log(`toolfs acp: could not ask permission for ${call.name}: ${(error as Error).message}`);
    return { run: false, code: "PERMISSION_UNAVAILABLE" };
  }
  if (decision.remember) session.remembered.set(kind, decision.remember);
  return decision;
}

/** Runs a toolkit call with the client and call id at hand, for an escalation the sandbox may raise. */
async function runAs<T>(session: Session, client: acp.AgentContext, callId: string, run: () => Promise<T>): Promise<T> {
  session.asking = { client, callId };
  try {
    return await run();
  } finally {
    session.asking = undefined;
  }
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

async function snapshot(fs: FileSystem, path: string, signal: AbortSignal): Promise<Snapshot> {
  try {
    const target = await fs.resolve(path, { signal });
    const info = await fs.stat(target, { signal });
    if (info === undefined) return { state: "absent" };
    if (info.type !== "file") return { state: "unknown" };
    const { bytes } = await fs.readBytes(target, { maxBytes: DIFF_MAX_BYTES, signal });
    return { state: "text", text: decodeText(bytes).text };
  } catch {
    // Too large, not text, unreadable: the result's own text describes the change instead.
    return { state: "unknown" };
  }
}

/** The change a call would make (the tool's preview), shown with the permission request; undefined when it cannot be foreseen. */
function proposedDiff(tool: DefinedTool, args: Record<string, unknown>, path: string, before: Snapshot): acp.ToolCallContent | undefined {
  if (before.state === "unknown") return undefined;
  const oldText = before.state === "text" ? before.text : null;
  const newText = tool.preview?.(oldText, args, path);
  return newText === undefined ? undefined : { type: "diff", path, oldText, newText };
}

function invalidArguments(call: ModelToolCall): ToolResult {
  const shown = call.invalidArguments!.length > 200 ? `${call.invalidArguments!.slice(0, 200)}…` : call.invalidArguments!;
  return {
    content: `Invalid arguments for ${call.name}: not a JSON object (${JSON.stringify(shown)}). Send the arguments as one JSON object.`,
    isError: true,
    meta: {},
    error: { name: "ToolError", code: "TOOL_INVALID_ARGUMENTS" },
  };
}

// ACP content blocks carry images and resource links as they are; every client must take resource links.
function acpPart(part: ContentPart): acp.ToolCallContent {
  if (part.type === "image") return { type: "content", content: { type: "image", data: part.data, mimeType: part.mediaType } };
  return {
    type: "content",
    content: {
      type: "resource_link",
      uri: part.uri,
      name: part.name,
      ...(part.mediaType === undefined ? {} : { mimeType: part.mediaType }),
      ...(part.description === undefined ? {} : { description: part.description }),
    },
  };
}

function textContent(text: string): acp.ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

function rawOutput(result: ToolResult): Record<string, unknown> {
  return { isError: result.isError, meta: result.meta, ...(result.error ? { error: result.error } : {}) };
}

/** A call in a few words, for elision notes. */
function describeCall(toolkit: Toolkit, call: ModelToolCall): string {
  const args = (typeof call.arguments === "object" && call.arguments !== null ? call.arguments : {}) as Record<string, unknown>;
  const tool = toolkit.tool(call.name) ?? builtinTool(call.name);
  return tool ? tool.title(args, true) : pathTitle(call.name, args);
}

/** The canonical path `path` leads to (symlinks followed); `path` itself when it cannot be resolved. */
async function canonical(fs: FileSystem, path: string, signal: AbortSignal): Promise<string> {
  try {
    return (await fs.resolve(path, { signal })).key;
  } catch {
    return path;
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
