/**
 * An MCP server over the toolkit: the toolkit's tools with their own descriptions and schemas, annotations
 * and structured results; workspace roots from the host or from the client; one actor per session;
 * cancellation; sandbox escalation approved through elicitation; served over any transport of the MCP
 * TypeScript SDK (stdio), or over Streamable HTTP with sessions through {@link createMcpHttpHandler}.
 *
 * @module
 */
export { createToolfsMcpSession, filePath, MCP_ERROR_CODES, MCP_SERVER_VERSION } from "./server.ts";
export type { McpErrorCode, McpRuntime, McpWorkspace, ToolfsMcpOptions, ToolfsMcpSession } from "./server.ts";
export { createMcpHttpHandler, MCP_HTTP_DEFAULTS } from "./http.ts";
export { MCP_STDIO_MAX_MESSAGE_BYTES, serveMcpStdio } from "./stdio.ts";
export type { McpStdioOptions } from "./stdio.ts";
export type { McpHttpHandler, McpHttpOptions } from "./http.ts";
