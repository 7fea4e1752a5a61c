// The Anthropic Messages API, streamed: text and tool_use content blocks, usage from message_start and
// message_delta, and the error events the stream may carry.
import { endpoint, eventJson, type HttpDriverOptions, parseArguments, postForStream, sseEvents } from "./http.ts";
import {
  type Model,
  ModelError,
  type ModelErrorCode,
  type ModelMessage,
  type ModelReply,
  type ModelRequest,
  type ModelToolCall,
  toolResultText,
} from "./model.ts";

export const ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1";
export const ANTHROPIC_VERSION = "2023-06-01";
/** The API requires a reply limit; this one leaves room for a long edit. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;
const PROVIDER = "Anthropic";

/** A model behind the Messages API (`{baseUrl}/messages`). */
export function createAnthropicModel(options: HttpDriverOptions): Model {
  const url = endpoint(options.baseUrl ?? ANTHROPIC_BASE_URL, "messages");
  return {
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    async next(request) {
      const response = await postForStream(
        {
          url,
          headers: { "anthropic-version": ANTHROPIC_VERSION, ...(options.apiKey === undefined ? {} : { "x-api-key": options.apiKey }) },
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

type Block = Record<string, unknown>;
type WireMessage = { role: "user" | "assistant"; content: Block[] };

export function requestBody(options: HttpDriverOptions, request: Pick<ModelRequest, "system" | "tools" | "messages">): Record<string, unknown> {
  return {
    model: options.model,
    max_tokens: options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    system: request.system,
    messages: wireMessages(request.messages),
    ...(request.tools.length === 0 ? {} : { tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })) }),
    stream: true,
  };
}

/**
 * The conversation as the API takes it: roles alternate, so neighbours with the same role merge (tool
 * results and the next prompt after a cancelled turn become one user message, results first as required).
 */
function wireMessages(messages: readonly ModelMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages) {
    const [role, blocks] = wireBlocks(message);
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
}

function wireBlocks(message: ModelMessage): ["user" | "assistant", Block[]] {
  if (message.role === "user") return ["user", message.text === "" ? [] : [{ type: "text", text: message.text }]];
  if (message.role === "tool") {
    return ["user", [{ type: "tool_result", tool_use_id: message.callId, content: toolResultText(message), ...(message.isError ? { is_error: true } : {}) }]];
  }
  const blocks: Block[] = message.text === "" ? [] : [{ type: "text", text: message.text }];
  // A call whose arguments were not JSON is replayed with empty input: the API takes objects only.
  for (const call of message.toolCalls)
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.invalidArguments === undefined ? call.arguments : {} });
  return ["assistant", blocks];
}

interface OpenBlock {
  readonly type: string;
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  json: string;
}

async function readStream(response: Response, request: ModelRequest): Promise<ModelReply> {
  let text = "";
  const open = new Map<number, OpenBlock>();
  const toolCalls: ModelToolCall[] = [];
  let input = 0;
  let cached: number | undefined;
  let output = 0;
  let stop: string | undefined;
  let stopped = false;
  for await (const event of sseEvents(response, request.signal, PROVIDER)) {
    const data = eventJson(event, PROVIDER);
    switch (data.type) {
      case "message_start": {
        const usage = isObject(data.message) && isObject(data.message.usage) ? data.message.usage : {};
        // Cached and cache-written tokens are billed apart from input_tokens but fill the window all the same.
        cached = typeof usage.cache_read_input_tokens === "number" ? usage.cache_read_input_tokens : undefined;
        input = count(usage.input_tokens) + count(usage.cache_read_input_tokens) + count(usage.cache_creation_input_tokens);
        output = count(usage.output_tokens);
        break;
      }
      case "content_block_start": {
        const block = isObject(data.content_block) ? data.content_block : {};
        open.set(count(data.index), {
          type: String(block.type),
          id: typeof block.id === "string" ? block.id : "",
          name: typeof block.name === "string" ? block.name : "",
          input: block.input,
          json: "",
        });
        break;
      }
      case "content_block_delta": {
        const delta = isObject(data.delta) ? data.delta : {};
        if (delta.type === "text_delta" && typeof delta.text === "string") {
          text += delta.text;
          await request.onText?.(delta.text);
        } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
          const block = open.get(count(data.index));
          if (block) block.json += delta.partial_json;
        } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
          await request.onThought?.(delta.thinking);
        }
        break;
      }
      case "content_block_stop": {
        const block = open.get(count(data.index));
        open.delete(count(data.index));
        if (block?.type !== "tool_use") break;
        if (block.id === "" || block.name === "") throw new ModelError("MODEL_STREAM_INVALID", `${PROVIDER} streamed a tool_use block without an id or a name`);
        // Input arrives only as input_json_delta; a call without arguments may send none.
        const args = block.json === "" ? { arguments: isObject(block.input) ? block.input : {} } : parseArguments(block.json);
        toolCalls.push({ id: block.id, name: block.name, ...args });
        break;
      }
      case "message_delta": {
        const delta = isObject(data.delta) ? data.delta : {};
        if (typeof delta.stop_reason === "string") stop = delta.stop_reason;
        // message_delta's usage is cumulative: the latest figure is the total.
        if (isObject(data.usage) && typeof data.usage.output_tokens === "number") output = data.usage.output_tokens;
        break;
      }
      case "message_stop":
        stopped = true;
        break;
      case "error":
        throw streamError(data.error);
      default:
        // ping, and event types added after this driver was written, which the API's versioning policy allows.
        break;
    }
    if (stopped) break;
  }
  if (!stopped) throw new ModelError("MODEL_STREAM_INVALID", `The ${PROVIDER} stream ended before message_stop`);
  const stopReason = stop === "max_tokens" ? "max_tokens" : stop === "refusal" ? "refusal" : undefined;
  const usage = { inputTokens: input, outputTokens: output, ...(cached === undefined ? {} : { cachedInputTokens: cached }) };
  return { text, toolCalls, ...(stopReason ? { stopReason } : {}), usage };
}

function streamError(error: unknown): ModelError {
  const type = isObject(error) && typeof error.type === "string" ? error.type : "error";
  const message = isObject(error) && typeof error.message === "string" ? error.message : JSON.stringify(error);
  const code: ModelErrorCode =
    type === "overloaded_error" || type === "api_error" ? "MODEL_SERVER_ERROR" : type === "rate_limit_error" ? "MODEL_RATE_LIMITED" : "MODEL_STREAM_INVALID";
  return new ModelError(code, `${PROVIDER} reported ${type} mid-stream: ${message}`);
}

/** `{type: "error", error: {type, message}}` as `type: message`. */
export function errorMessage(body: string): string | undefined {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    if (isObject(json.error)) {
      const { type, message } = json.error;
      return `${typeof type === "string" ? `${type}: ` : ""}${typeof message === "string" ? message : JSON.stringify(json.error)}`;
    }
  } catch {
    // Not JSON: the caller shows the text itself.
  }
  return undefined;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
