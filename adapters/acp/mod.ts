/**
 * A standalone Agent Client Protocol agent composed from the toolkit: a composition names its tools and
 * limits, a model (a real client, or the scripted driver that replays a JSON script) drives each prompt turn,
 * and tool calls reach the client as `tool_call` / `tool_call_update` session updates. Runtime-neutral: the
 * runtime's providers, search backend and process runner arrive through {@link AcpRuntime}.
 *
 * @module
 */
export { AGENT_VERSION, createAcpAgent } from "./agent.ts";
export type { AcpAgent, AcpAgentOptions, AcpRuntime } from "./agent.ts";
export { COMPOSITIONS, requestHeader } from "./composition.ts";
export type { Composition, RequestHeader } from "./composition.ts";
export { createScriptedModel, MODEL_ERROR_CODES, ModelError, parseScript } from "./model.ts";
export type { Model, ModelErrorCode, ModelMessage, ModelReply, ModelRequest, ModelToolCall, Script } from "./model.ts";
export { serveAcp } from "./serve.ts";
export type { ServeOptions } from "./serve.ts";
