/**
 * A standalone Agent Client Protocol agent composed from the toolkit: a composition names its tools and
 * limits, a model (an OpenAI-compatible or Anthropic driver, or the scripted driver that replays a JSON
 * script) drives each prompt turn, and tool calls reach the client as `tool_call` / `tool_call_update` session
 * updates, writes, edits and commands after a `session/request_permission`. Runtime-neutral: the runtime's
 * providers, search backend and process runner arrive through {@link AcpRuntime}, and the drivers use fetch.
 *
 * @module
 */
export { AGENT_VERSION, createAcpAgent } from "./agent.ts";
export type { AcpAgent, AcpAgentOptions, AcpRuntime } from "./agent.ts";
export { ANTHROPIC_BASE_URL, ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_VERSION, createAnthropicModel } from "./anthropic.ts";
export { bashUnder, COMPOSITIONS, requestHeader, sessionTools } from "./composition.ts";
export type { Composition, RequestHeader } from "./composition.ts";
export { DEFAULT_TOKENS_PER_BYTE, ELIDE_ABOVE, ELIDE_DOWN_TO } from "./context.ts";
export { createModel, parseModelSpec, PROVIDERS } from "./drivers.ts";
export type { ModelSpecOptions, Provider, ProviderName } from "./drivers.ts";
export { retryAfterMs } from "./http.ts";
export type { HttpDriverOptions, RetryOptions } from "./http.ts";
export { createScriptedModel, MODEL_ERROR_CODES, ModelError, parseScript, toolResultText } from "./model.ts";
export type { Model, ModelErrorCode, ModelMessage, ModelReply, ModelRequest, ModelToolCall, ModelUsage, Script } from "./model.ts";
export { createOpenAIModel, OPENAI_BASE_URL } from "./openai.ts";
export { PERMISSION_MODES } from "./permissions.ts";
export type { PermissionMode } from "./permissions.ts";
export { serveAcp } from "./serve.ts";
export type { ServeOptions } from "./serve.ts";
