// Streamable HTTP with sessions, as a web-standard fetch handler: one SDK transport and one server per
// session, routed by Mcp-Session-Id. Host and Origin are checked before anything else (DNS rebinding), then
// the bearer token when one is configured. Runtime-neutral: Node binds it to node:http, Deno to Deno.serve.
import {
  hostHeaderValidationResponse,
  isInitializeRequest,
  originValidationResponse,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

export interface McpHttpOptions {
  /** Builds the server of one new session (called on each `initialize`). */
  readonly session: () => Promise<{ readonly server: Server }>;
  /** Host names (no port) the Host header may carry; the loopback names for a loopback bind. */
  readonly allowedHosts: readonly string[];
  /** Host names an Origin header may carry, when a request has one (browsers send it). */
  readonly allowedOrigins: readonly string[];
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  readonly token?: string | undefined;
  /** Open sessions allowed at once; an `initialize` beyond it gets 503. Default 256. */
  readonly maxSessions?: number;
  /** The endpoint's path; default "/mcp". */
  readonly path?: string;
  readonly log?: (line: string) => void;
}

export interface McpHttpHandler {
  fetch(request: Request): Promise<Response>;
  /** Sessions open now. */
  readonly sessions: number;
  /** Closes every session; later requests get 503. */
  close(): Promise<void>;
}

interface Open {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
}

/** A fetch handler serving MCP sessions over Streamable HTTP. */
export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const sessions = new Map<string, Open>();
  const path = options.path ?? "/mcp";
  const maxSessions = options.maxSessions ?? 256;
  const log = options.log ?? (() => {});
  const token = options.token === undefined || options.token === "" ? undefined : new TextEncoder().encode(`Bearer ${options.token}`);
  let closed = false;

  const handle = async (request: Request): Promise<Response> => {
    if (closed) return rpcError(503, -32000, "The server is shutting down");
    const refused = hostHeaderValidationResponse(request, [...options.allowedHosts]) ?? originValidationResponse(request, [...options.allowedOrigins]);
    if (refused) return refused;
    if (token && !sameBytes(new TextEncoder().encode(request.headers.get("authorization") ?? ""), token)) {
      return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Unauthorized: send Authorization: Bearer <token>" }, id: null }), {
        status: 401,
        headers: { "Content-Type": "application/json", "WWW-Authenticate": 'Bearer realm="toolfs"' },
      });
    }
    if (new URL(request.url).pathname !== path) return rpcError(404, -32000, `Not found: the MCP endpoint is ${path}`);

    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const open = sessions.get(id);
      // 404 tells a client to start a new session (the transport spec's rule for unknown ids).
      if (!open) return rpcError(404, -32001, "Session not found");
      return open.transport.handleRequest(request);
    }
    if (request.method !== "POST") return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header required");
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return rpcError(400, -32700, "Parse error: the body is not JSON");
    }
    if (!isInitializeRequest(body)) return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header required");
    if (sessions.size >= maxSessions) return rpcError(503, -32000, `Too many open sessions (${maxSessions}); close one first`);
    const { server } = await options.session();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, server });
        log(`toolfs mcp: session ${sessionId} opened (${sessions.size} open)`);
      },
    });
    transport.onclose = () => {
      const sessionId = transport.sessionId;
      if (sessionId !== undefined && sessions.delete(sessionId)) log(`toolfs mcp: session ${sessionId} closed (${sessions.size} open)`);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  };

  return {
    fetch: async (request) => {
      try {
        return await handle(request);
      } catch (error) {
        log(`toolfs mcp: request failed: ${(error as Error).stack ?? String(error)}`);
        return rpcError(500, -32603, "Internal error");
      }
    },
    get sessions() {
      return sessions.size;
    },
    async close() {
      closed = true;
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(({ server }) => server.close()));
    },
  };
}

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

// Compares every byte whatever the first difference, so the time taken does not reveal the token.
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ (b[i] as number);
  return diff === 0;
}
