// One prompt turn of the ACP agent: model requests and their tool calls, reported as session updates (the
// call announced, put to the user when its permission kind asks, run, and its result or diff shown).
import * as acp from "@agentclientprotocol/sdk";
import {
  builtinTool,
  type ContentPart,
  type DefinedTool,
  type FileSystem,
  pathTitle,
  resolvePath,
  resultText,
  type Toolkit,
  type ToolResult,
} from "../../core/mod.ts";
import { carriedPatch, changedFiles, filesContent, namedPaths, patchContent, type Snapshot, snapshot, snapshots } from "./changes.ts";
import type { RequestHeader } from "./composition.ts";
import { type BudgetState, fitContext, requestBytes } from "./context.ts";
import type { Model, ModelMessage, ModelToolCall } from "./model.ts";
import type { OverlayState } from "./overlay.ts";
import { asks, decide, type Decision, type PermissionKind, type PermissionMode, permissionOptions, refusalText } from "./permissions.ts";

export interface Session extends BudgetState {
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

export type Update = (update: acp.SessionUpdate) => Promise<void>;

export interface Turn {
  readonly session: Session;
  readonly model: Model;
  readonly update: Update;
  readonly client: acp.AgentContext;
  readonly signal: AbortSignal;
  readonly mode: PermissionMode;
  readonly log: (line: string) => void;
}

/** Token counts of one prompt turn, summed over its model requests. */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cachedReadTokens: number;
  /** The last request's input plus output: what the conversation now fills of the window. */
  inContext: number;
  reported: boolean;
}

/** Runs one prompt turn to its stop reason: model steps and their tool calls, until no tool is called. */
export async function runTurn(turn: Turn, text: string, maxRequests: number): Promise<{ stopReason: acp.StopReason; usage: TurnUsage }> {
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
      if (signal.aborted)
        session.history.push({ role: "tool", callId: call.id, content: "Not run: the turn was cancelled.", isError: true, code: "TOOL_ABORTED" });
      else session.history.push(await runToolCall(turn, call));
    }
  }
  return end(signal.aborted ? "cancelled" : "max_turn_requests");
}

export async function runToolCall(turn: Turn, call: ModelToolCall): Promise<ModelMessage> {
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
  const kind = tool && call.invalidArguments === undefined ? tool.permission : undefined;
  // A call that changes files (any tool asked about as an edit): every file it names, the patch it carries,
  // and their text now, to show the change before and after it runs.
  const changes = kind === "edit" && !tool!.traits.readOnly;
  const touched = changes ? await Promise.all(namedPaths(args).map((p) => canonical(session.fs, resolvePath(session.cwd, p), signal))) : [];
  for (const other of touched) if (other !== absolute && !locations.some((l) => l.path === other)) locations.push({ path: other });
  // In the order the fields have always gone on the wire, which the pinned transcripts show.
  const announce = (status: acp.ToolCallStatus, content?: readonly acp.ToolCallContent[]): acp.ToolCall => ({
    toolCallId: call.id,
    title: `${named ? named.title(args) : pathTitle(call.name, args)}${leads}`,
    kind: named?.kind ?? "other",
    status,
    rawInput: call.invalidArguments ?? call.arguments,
    ...(locations.length === 0 ? {} : { locations }),
    ...(content && content.length > 0 ? { content: [...content] } : {}),
  });
  const diffs = absolute !== undefined && tool?.preview !== undefined;
  const watched = changes ? await snapshots(session.fs, touched, signal) : undefined;
  const before: Snapshot | undefined = diffs ? (watched?.get(absolute) ?? (await snapshot(session.fs, absolute, signal))) : undefined;

  // A kind the user allowed "always" runs like one the mode never asks about: in progress from the start.
  if (kind !== undefined && asks(turn.mode, kind) && session.remembered.get(kind) !== "allow") {
    const diff = before && absolute && tool ? proposedDiff(tool, args, absolute, before) : undefined;
    const patch = changes ? carriedPatch(args) : undefined;
    // The user approves what they see: the foreseen diff, else the patch as the model sent it.
    const preview = diff ? [diff] : patch !== undefined ? [patchContent(patch)] : undefined;
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
  const files = !result.isError && watched ? changedFiles(result.meta) : undefined;
  if (files && watched) {
    // A result that lists its files (a patch, a delete, a move): one diff per file.
    const shown = await filesContent(session.fs, session.cwd, files, watched, (p) => canonical(session.fs, p, signal), signal);
    content = [...shown.content, ...(result.parts ?? []).map(acpPart)];
    if (shown.locations.length > 0) finalLocations = shown.locations;
  } else if (!result.isError && before && absolute) {
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
export async function permission(turn: Turn, call: ModelToolCall, kind: PermissionKind, toolCall: acp.ToolCall): Promise<Decision> {
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
export async function runAs<T>(session: Session, client: acp.AgentContext, callId: string, run: () => Promise<T>): Promise<T> {
  session.asking = { client, callId };
  try {
    return await run();
  } finally {
    session.asking = undefined;
  }
}

/** The change a call would make (the tool's preview), shown with the permission request; undefined when it cannot be foreseen. */
export function proposedDiff(tool: DefinedTool, args: Record<string, unknown>, path: string, before: Snapshot): acp.ToolCallContent | undefined {
  if (before.state === "unknown") return undefined;
  const oldText = before.state === "text" ? before.text : null;
  const newText = tool.preview?.(oldText, args, path);
  if (newText === undefined) return undefined;
  // A removal is a diff to nothing; ACP's newText is a string, so `_meta` says the file goes.
  return newText === null ? { type: "diff", path, oldText, newText: "", _meta: { toolfs: { operation: "delete" } } } : { type: "diff", path, oldText, newText };
}

export function invalidArguments(call: ModelToolCall): ToolResult {
  const shown = call.invalidArguments!.length > 200 ? `${call.invalidArguments!.slice(0, 200)}…` : call.invalidArguments!;
  return {
    content: `Invalid arguments for ${call.name}: not a JSON object (${JSON.stringify(shown)}). Send the arguments as one JSON object.`,
    isError: true,
    meta: {},
    error: { name: "ToolError", code: "TOOL_INVALID_ARGUMENTS" },
  };
}

// ACP content blocks carry images and resource links as they are; every client must take resource links.
export function acpPart(part: ContentPart): acp.ToolCallContent {
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

export function textContent(text: string): acp.ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

export function rawOutput(result: ToolResult): Record<string, unknown> {
  return { isError: result.isError, meta: result.meta, ...(result.error ? { error: result.error } : {}) };
}

/** A call in a few words, for elision notes. */
export function describeCall(toolkit: Toolkit, call: ModelToolCall): string {
  const args = (typeof call.arguments === "object" && call.arguments !== null ? call.arguments : {}) as Record<string, unknown>;
  const tool = toolkit.tool(call.name) ?? builtinTool(call.name);
  return tool ? tool.title(args, true) : pathTitle(call.name, args);
}

/** The canonical path `path` leads to (symlinks followed); `path` itself when it cannot be resolved. */
export async function canonical(fs: FileSystem, path: string, signal: AbortSignal): Promise<string> {
  try {
    return (await fs.resolve(path, { signal })).key;
  } catch {
    return path;
  }
}
