// An AI SDK `LanguageModel` as the ACP agent's `Model`: one `streamText` step per request, with the toolkit's
// tools declared but not executed (the agent runs them, after its permission requests), so every AI SDK
// provider drives `createAcpAgent` without a driver of its own. docs/notes/0007-acp-models.md says what the
// hand-written drivers give that this does not.
import { APICallError, jsonSchema, type JSONSchema7, type LanguageModel, type ModelMessage as AiMessage, RetryError, streamText, tool, type ToolSet } from "ai";
import {
  type Model,
  ModelError,
  type ModelErrorCode,
  type ModelMessage,
  type ModelReply,
  type ModelToolCall,
  type ModelUsage,
  toolResultText,
} from "../acp/model.ts";

export interface AiSdkModelOptions {
  /** The context window in tokens, when known: the agent elides old tool output to stay within it. */
  readonly contextWindow?: number;
  /** Maximum tokens in each reply; the provider's default otherwise. */
  readonly maxOutputTokens?: number;
  /** Retries of a failed request, as the AI SDK counts them; its default (2) otherwise. */
  readonly maxRetries?: number;
}

/** The ACP agent's model seam over any AI SDK language model (`openai("gpt-5")`, a gateway id, a mock). */
export function createAiSdkModel(model: LanguageModel, options: AiSdkModelOptions = {}): Model {
  return {
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    async next(request) {
      const tools: ToolSet = {};
      for (const definition of request.tools) {
        tools[definition.name] = tool({ description: definition.description, inputSchema: jsonSchema<unknown>(definition.inputSchema as JSONSchema7) });
      }
      const result = streamText({
        model,
        instructions: request.system,
        messages: aiMessages(request.messages),
        tools,
        abortSignal: request.signal,
        // Failures come through the stream as parts and are thrown from next(); nothing else reports them.
        onError: () => {},
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      });
      let text = "";
      const toolCalls: ModelToolCall[] = [];
      let finish: string | undefined;
      let usage: ModelUsage | undefined;
      for await (const part of result.fullStream) {
        switch (part.type) {
          case "text-delta":
            if (part.text === "") break;
            text += part.text;
            await request.onText?.(part.text);
            break;
          case "reasoning-delta":
            if (part.text !== "") await request.onThought?.(part.text);
            break;
          case "tool-call":
            toolCalls.push(toolCall(part));
            break;
          case "finish":
            finish = part.finishReason;
            usage = readUsage(part.totalUsage);
            break;
          case "abort":
            throw request.signal.reason ?? new ModelError("MODEL_UNAVAILABLE", "The AI SDK model call was aborted");
          case "error":
            throw modelError(part.error);
        }
      }
      const stopReason = finish === "length" ? "max_tokens" : finish === "content-filter" ? "refusal" : undefined;
      const reply: ModelReply = { text, toolCalls, ...(stopReason ? { stopReason } : {}), ...(usage ? { usage } : {}) };
      return reply;
    },
  };
}

// A call the AI SDK could not parse keeps the model's text, so the agent answers TOOL_INVALID_ARGUMENTS; one
// that parsed but does not fit the schema goes through as sent, and the toolkit judges it as from any driver.
function toolCall(part: { toolCallId: string; toolName: string; input: unknown; invalid?: boolean }): ModelToolCall {
  const base = { id: part.toolCallId, name: part.toolName };
  if (typeof part.input === "object" && part.input !== null && !Array.isArray(part.input)) return { ...base, arguments: part.input };
  const raw = typeof part.input === "string" ? part.input : (JSON.stringify(part.input) ?? "");
  if (part.invalid === true && typeof part.input === "string") {
    try {
      const parsed: unknown = JSON.parse(part.input);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return { ...base, arguments: parsed };
    } catch {
      // Not JSON: answered as invalid below.
    }
  }
  return { ...base, arguments: undefined, invalidArguments: raw };
}

function aiMessages(messages: readonly ModelMessage[]): AiMessage[] {
  // Tool results name their tool in the AI SDK's shape; the agent's name only the call.
  const names = new Map<string, string>();
  return messages.map((message): AiMessage => {
    if (message.role === "user") return { role: "user", content: message.text };
    if (message.role === "assistant") {
      for (const call of message.toolCalls) names.set(call.id, call.name);
      return {
        role: "assistant",
        content: [
          ...(message.text === "" ? [] : [{ type: "text" as const, text: message.text }]),
          ...message.toolCalls.map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.name,
            input: call.invalidArguments ?? call.arguments ?? {},
          })),
        ],
      };
    }
    return {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: message.callId,
          toolName: names.get(message.callId) ?? "unknown",
          output: { type: message.isError ? "error-text" : "text", value: toolResultText(message) },
        },
      ],
    };
  });
}

function readUsage(usage: {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  inputTokenDetails?: { cacheReadTokens: number | undefined };
}): ModelUsage | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const cached = usage.inputTokenDetails?.cacheReadTokens;
  return { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0, ...(cached === undefined ? {} : { cachedInputTokens: cached }) };
}

// The AI SDK's failures as the drivers' closed codes, so the agent reports them the same way.
function modelError(error: unknown): ModelError {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const message = last instanceof Error ? last.message : String(last);
  let code: ModelErrorCode = "MODEL_UNAVAILABLE";
  if (APICallError.isInstance(last)) {
    const status = last.statusCode;
    if (status === 401 || status === 403) code = "MODEL_AUTH_FAILED";
    else if (status === 429) code = "MODEL_RATE_LIMITED";
    else if (status !== undefined && status >= 500) code = "MODEL_SERVER_ERROR";
    else if (status !== undefined && status >= 400) code = "MODEL_REQUEST_REJECTED";
    else code = "MODEL_NETWORK_ERROR";
  }
  return new ModelError(code, `The AI SDK model failed: ${message}`, { cause: error });
}
