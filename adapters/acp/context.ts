// The context budget: before each model request, estimate its size in tokens and, when it nears the model's
// window, replace the oldest tool outputs with a one-line note that says what was elided.
import type { ToolDefinition } from "../../core/mod.ts";
import type { ModelMessage, ModelToolCall } from "./model.ts";

/** Past this share of the window the oldest outputs go: the rest is room for the reply and estimate error. */
export const ELIDE_ABOVE = 0.8;
/** Once eliding, down to this share, so the next few requests do not each elide again (and keep a cached prefix). */
export const ELIDE_DOWN_TO = 0.6;
/** Tokens per byte before the provider has reported any usage: about four bytes per token for English and JSON. */
export const DEFAULT_TOKENS_PER_BYTE = 0.25;

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

/** The bytes a request carries: system prompt, tool schemas and every message. */
export function requestBytes(system: string, tools: readonly ToolDefinition[], messages: readonly ModelMessage[]): number {
  return bytes(system) + bytes(JSON.stringify(tools)) + messages.reduce((n, m) => n + messageBytes(m), 0);
}

function messageBytes(message: ModelMessage): number {
  if (message.role === "user") return bytes(message.text);
  if (message.role === "tool") return bytes(message.content);
  return bytes(message.text) + message.toolCalls.reduce((n, c) => n + bytes(c.name) + bytes(c.invalidArguments ?? JSON.stringify(c.arguments ?? {})), 0);
}

export interface BudgetState {
  /** Tool messages already replaced by a note; never elided twice. */
  readonly elided: WeakSet<ModelMessage>;
  /** Learned from the provider's reported input tokens against the bytes sent; starts at DEFAULT_TOKENS_PER_BYTE. */
  tokensPerByte: number;
}

/**
 * Elides the oldest tool outputs of `history` (in place) while the request would exceed ELIDE_ABOVE of
 * `window` tokens, down to ELIDE_DOWN_TO. Outputs after the last assistant message are the ones the model is
 * about to read, and are kept. Returns how many outputs were elided.
 */
export function fitContext(
  history: ModelMessage[],
  header: { readonly system: string; readonly tools: readonly ToolDefinition[] },
  window: number,
  state: BudgetState,
  describeCall: (call: ModelToolCall) => string,
): number {
  const estimate = () => Math.ceil(requestBytes(header.system, header.tools, history) * state.tokensPerByte);
  if (estimate() <= window * ELIDE_ABOVE) return 0;
  const lastAssistant = history.findLastIndex((m) => m.role === "assistant");
  const calls = new Map<string, ModelToolCall>();
  for (const m of history) if (m.role === "assistant") for (const c of m.toolCalls) calls.set(c.id, c);
  let elided = 0;
  for (let i = 0; i < lastAssistant && estimate() > window * ELIDE_DOWN_TO; i++) {
    const message = history[i]!;
    if (message.role !== "tool" || state.elided.has(message)) continue;
    const call = calls.get(message.callId);
    const what = call ? describeCall(call) : `call ${message.callId}`;
    const note = `[Elided to fit the context window: the ${bytes(message.content)}-byte output of ${what}. Run it again if you need it.]`;
    // Never longer than what it replaces: a tiny output stays as it is.
    if (bytes(note) >= bytes(message.content)) continue;
    const replacement: ModelMessage = { ...message, content: note };
    state.elided.add(replacement);
    history[i] = replacement;
    elided++;
  }
  return elided;
}
