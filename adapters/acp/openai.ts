// The OpenAI Chat Completions wire protocol, streamed: the protocol OpenAI, vLLM, llama.cpp's server, Ollama,
// LM Studio, OpenRouter and DeepSeek all serve under their own base URL.
import { endpoint, eventJson, type HttpDriverOptions, parseArguments, postForStream, sseEvents } from "./http.ts";
import { type Model, ModelError, type ModelMessage, type ModelReply, type ModelRequest, type ModelToolCall, type ModelUsage, toolResultText } from "./model.ts";

export const OPENAI_BASE_URL = "https://api.openai.com/v1";
const PROVIDER = "OpenAI-compatible server";
// OpenAI's models trained on apply_patch, by name (other servers of this protocol serve models that are not).
const OPENAI_PATCHING = /^(?:openai\/)?(?:gpt-[4-9]|gpt-oss|o[1-9]|codex)/i;

/** A model behind a Chat Completions endpoint (`{baseUrl}/chat/completions`). */
export function createOpenAIModel(options: HttpDriverOptions): Model {
  const url = endpoint(options.baseUrl ?? OPENAI_BASE_URL, "chat/completions");
  return {
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    ...(OPENAI_PATCHING.test(options.model) ? { applyPatch: true } : {}),
    async next(request) {
      const response = await postForStream(
        {
          url,
          headers: options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` },
          body: requestBody(options, request),
          signal: request.signal,
          provider: PROVIDER,
          errorMessage,
        },
        options,
      );
      return readStream(response, request);
    },
  };
}

/** The request body: the header as a system message and function tools, the conversation, streaming with usage. */
export function requestBody(options: HttpDriverOptions, request: Pick<ModelRequest, "system" | "tools" | "messages">): Record<string, unknown> {
  return {
    model: options.model,
    messages: [{ role: "system", content: request.system }, ...request.messages.map(wireMessage)],
    ...(request.tools.length === 0
      ? {}
      : { tools: request.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } })) }),
    stream: true,
    stream_options: { include_usage: true },
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
  };
}

function wireMessage(message: ModelMessage): Record<string, unknown> {
  if (message.role === "user") return { role: "user", content: message.text };
  if (message.role === "tool") return { role: "tool", tool_call_id: message.callId, content: toolResultText(message) };
  if (message.toolCalls.length === 0) return { role: "assistant", content: message.text };
  return {
    role: "assistant",
    content: message.text === "" ? null : message.text,
    tool_calls: message.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.invalidArguments ?? JSON.stringify(call.arguments ?? {}) },
    })),
  };
}

interface PartialCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

async function readStream(response: Response, request: ModelRequest): Promise<ModelReply> {
  let text = "";
  const calls = new Map<number, PartialCall>();
  let finish: string | undefined;
  let usage: ModelUsage | undefined;
  let done = false;
  for await (const event of sseEvents(response, request.signal, PROVIDER)) {
    if (event.data.trim() === "[DONE]") {
      done = true;
      break;
    }
    const chunk = eventJson(event, PROVIDER);
    // OpenRouter, vLLM and others report a failure that starts after the 200 as an event of its own.
    if (chunk.error !== undefined) throw new ModelError("MODEL_STREAM_INVALID", `The ${PROVIDER} reported an error mid-stream: ${errorText(chunk.error)}`);
    if (isObject(chunk.usage)) usage = readUsage(chunk.usage);
    const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as Record<string, unknown> | undefined) : undefined;
    if (!isObject(choice)) continue;
    const delta = isObject(choice.delta) ? choice.delta : {};
    // DeepSeek and vLLM name the reasoning stream reasoning_content; OpenRouter and Ollama name it reasoning.
    const thought = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : "";
    if (thought !== "") await request.onThought?.(thought);
    if (typeof delta.content === "string" && delta.content !== "") {
      text += delta.content;
      await request.onText?.(delta.content);
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const [position, raw] of delta.tool_calls.entries()) {
        if (!isObject(raw)) continue;
        const index = typeof raw.index === "number" ? raw.index : position;
        const fn = isObject(raw.function) ? raw.function : {};
        const call = calls.get(index) ?? { id: undefined, name: "", arguments: "" };
        if (typeof raw.id === "string" && raw.id !== "") call.id = raw.id;
        if (typeof fn.name === "string") call.name += fn.name;
        if (typeof fn.arguments === "string") call.arguments += fn.arguments;
        calls.set(index, call);
      }
    }
    if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
  }
  // Some servers end the body after the finishing chunk without [DONE]; a body that ends before either broke off.
  if (!done && finish === undefined) throw new ModelError("MODEL_STREAM_INVALID", `The ${PROVIDER} stream ended before the reply was finished`);
  const toolCalls: ModelToolCall[] = [];
  for (const [index, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
    if (call.name === "") throw new ModelError("MODEL_STREAM_INVALID", `The ${PROVIDER} streamed tool call ${index} without a function name`);
    toolCalls.push({ id: call.id ?? `call_${crypto.randomUUID()}`, name: call.name, ...parseArguments(call.arguments) });
  }
  const stopReason = finish === "length" ? "max_tokens" : finish === "content_filter" ? "refusal" : undefined;
  return { text, toolCalls, ...(stopReason ? { stopReason } : {}), ...(usage ? { usage } : {}) };
}

function readUsage(raw: Record<string, unknown>): ModelUsage {
  const details = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  return {
    inputTokens: count(raw.prompt_tokens),
    outputTokens: count(raw.completion_tokens),
    ...(typeof details.cached_tokens === "number" ? { cachedInputTokens: details.cached_tokens } : {}),
  };
}

/** The message of an error body: OpenAI's `{error: {message, code}}`, or the shapes compatible servers use. */
export function errorMessage(body: string): string | undefined {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    if (json.error !== undefined) return errorText(json.error);
    if (typeof json.detail === "string") return json.detail;
    if (typeof json.message === "string") return json.message;
  } catch {
    // Not JSON: the caller shows the text itself.
  }
  return undefined;
}

function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  if (!isObject(error)) return JSON.stringify(error);
  const message = typeof error.message === "string" ? error.message : JSON.stringify(error);
  const code = typeof error.code === "string" ? error.code : typeof error.type === "string" ? error.type : undefined;
  return code ? `${message} (${code})` : message;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
