// Streamable HTTP with sessions, as a web-standard fetch handler: one SDK transport and one server per
// session, routed by Mcp-Session-Id. Host and Origin are checked before anything else (DNS rebinding), then
// the bearer token when one is configured, then the body's size. Runtime-neutral: Node binds it to node:http,
// Deno to Deno.serve. Bounds and their alternatives: docs/notes/0008.
import { createHash, timingSafeEqual } from "node:crypto";
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  hostHeaderValidationResponse,
  isInitializeRequest,
  originValidationResponse,
  readRequestBody,
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
  /**
   * Open sessions allowed at once. Default 256. An `initialize` when they are all open closes the one idle
   * longest; it gets 503 only when every session is busy (a POST of its own still being answered).
   */
  readonly maxSessions?: number;
  /** A session with no POST being answered for this many milliseconds is closed. Default 30 minutes. */
  readonly idleTimeoutMs?: number;
  /**
   * The largest request body read, in bytes; a larger one gets 413 once at most this much and one chunk more
   * has been read, and the rest of its stream is cancelled. Default 4 MiB (the SDK's own default).
   */
  readonly maxBodyBytes?: number;
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
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** POSTs of this session whose response has not ended (a call answered over SSE, until its answer is sent). */
  active: number;
  /** When the session last stopped being busy (or opened). */
  idleSince: number;
}

/** The defaults of {@link McpHttpOptions}. */
export const MCP_HTTP_DEFAULTS: { readonly maxSessions: number; readonly idleTimeoutMs: number; readonly maxBodyBytes: number } = {
  maxSessions: 256,
  idleTimeoutMs: 30 * 60 * 1000,
  maxBodyBytes: DEFAULT_MAX_REQUEST_BODY_SIZE,
};

/** A fetch handler serving MCP sessions over Streamable HTTP. */
export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const sessions = new Map<string, Open>();
  const path = options.path ?? "/mcp";
  const maxSessions = positive("maxSessions", options.maxSessions ?? MCP_HTTP_DEFAULTS.maxSessions);
  const idleTimeoutMs = positive("idleTimeoutMs", options.idleTimeoutMs ?? MCP_HTTP_DEFAULTS.idleTimeoutMs);
  const maxBodyBytes = positive("maxBodyBytes", options.maxBodyBytes ?? MCP_HTTP_DEFAULTS.maxBodyBytes);
  const log = options.log ?? (() => {});
  // Digests, so the comparison is of equal lengths and constant-time whatever the header's length.
  const token = options.token === undefined || options.token === "" ? undefined : digest(`Bearer ${options.token}`);
  // Initializes under way: counted against maxSessions before their session is in the table.
  let opening = 0;
  let closed = false;

  const close = (open: Open, why: string) => {
    if (sessions.get(open.id) !== open) return;
    sessions.delete(open.id);
    log(`toolfs mcp: session ${open.id} ${why} (${sessions.size} open)`);
    void open.server.close().catch(() => {});
  };
  const expire = () => {
    const now = Date.now();
    for (const open of sessions.values()) {
      if (open.active === 0 && now - open.idleSince >= idleTimeoutMs) close(open, `closed after ${Math.round((now - open.idleSince) / 1000)} s idle`);
    }
  };
  // Expiry also runs on every request, so it does not wait for the timer; the timer frees idle sessions'
  // memory when no request comes. It does not keep the process alive.
  const timer = setInterval(expire, Math.max(1000, Math.min(idleTimeoutMs, 60_000)));
  unrefTimer(timer);

  // Marks the session busy; the returned function, called once, marks that request done.
  const busy = (open: Open): (() => void) => {
    open.active++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      open.active--;
      if (open.active === 0) open.idleSince = Date.now();
    };
  };
  // The response, with `release` called when its body ends, however it ends (an SSE stream may stay open).
  const untilEnd = (response: Response, release: () => void): Response => {
    if (!response.body) {
      release();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            release();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          release();
          controller.error(error);
        }
      },
      cancel(reason) {
        release();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  const handle = async (request: Request): Promise<Response> => {
    if (closed) return rpcError(503, -32000, "The server is shutting down");
    const refused = hostHeaderValidationResponse(request, [...options.allowedHosts]) ?? originValidationResponse(request, [...options.allowedOrigins]);
    if (refused) return refused;
    if (token && !timingSafeEqual(digest(request.headers.get("authorization") ?? ""), token)) {
      return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Unauthorized: send Authorization: Bearer <token>" }, id: null }), {
        status: 401,
        headers: { "Content-Type": "application/json", "WWW-Authenticate": 'Bearer realm="toolfs"' },
      });
    }
    if (new URL(request.url).pathname !== path) return rpcError(404, -32000, `Not found: the MCP endpoint is ${path}`);
    expire();

    // Every body is read here, within the limit, before the SDK sees it: the SDK's own limit applies only
    // when it reads the body itself, and a body it is not given to read (the initialize below) had none.
    let text: string | undefined;
    if (request.body !== null) {
      let read: Awaited<ReturnType<typeof readRequestBody>>;
      try {
        read = await readRequestBody(request, maxBodyBytes);
      } catch {
        return rpcError(400, -32700, "Parse error: the body could not be read");
      }
      if (read.tooLarge) {
        // The rest is not read: a client sending more gets its stream cut.
        await request.body.cancel().catch(() => {});
        log(`toolfs mcp: refused a request body over ${maxBodyBytes} bytes`);
        return rpcError(413, -32000, `Payload Too Large: a request body must not exceed ${maxBodyBytes} bytes`);
      }
      text = read.text;
    }

    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const open = sessions.get(id);
      // 404 tells a client to start a new session (the transport spec's rule for unknown ids).
      if (!open) return rpcError(404, -32001, "Session not found");
      const forwarded = text === undefined ? request : new Request(request, { body: text });
      // A client's standalone GET stream does not make its session busy: held open by every connected client,
      // it would let idle clients keep their sessions forever. A POST (a call) does until its answer is sent.
      if (request.method !== "POST") return open.transport.handleRequest(forwarded);
      const release = busy(open);
      try {
        return untilEnd(await open.transport.handleRequest(forwarded), release);
      } catch (error) {
        release();
        throw error;
      }
    }
    if (request.method !== "POST") return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header required");
    let body: unknown;
    try {
      body = JSON.parse(text ?? "");
    } catch {
      return rpcError(400, -32700, "Parse error: the body is not JSON");
    }
    if (!isInitializeRequest(body)) return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header required");
    if (sessions.size + opening >= maxSessions && !evictIdlest()) {
      return rpcError(503, -32000, `Too many busy sessions (${maxSessions}); try again when one is done`);
    }
    opening++;
    try {
      const { server } = await options.session();
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        maxRequestBodySize: maxBodyBytes,
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { id: sessionId, transport, server, active: 0, idleSince: Date.now() });
          log(`toolfs mcp: session ${sessionId} opened (${sessions.size} open)`);
        },
      });
      transport.onclose = () => {
        const sessionId = transport.sessionId;
        if (sessionId !== undefined && sessions.delete(sessionId)) log(`toolfs mcp: session ${sessionId} closed (${sessions.size} open)`);
      };
      await server.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: body });
      const open = transport.sessionId === undefined ? undefined : sessions.get(transport.sessionId);
      return open ? untilEnd(response, busy(open)) : response;
    } finally {
      opening--;
    }
  };

  // The session idle longest, closed to make room; false when every session is busy.
  const evictIdlest = (): boolean => {
    let idlest: Open | undefined;
    for (const open of sessions.values()) {
      if (open.active === 0 && (idlest === undefined || open.idleSince < idlest.idleSince)) idlest = open;
    }
    if (!idlest) return false;
    close(idlest, "closed to make room for a new one (the table was full; it was the one idle longest)");
    return true;
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
      clearInterval(timer);
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

function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive whole number, got ${String(value)}`);
  return value;
}

// Node's timers have unref; Deno's are numbers, unref'd through Deno.unrefTimer.
function unrefTimer(timer: unknown): void {
  if (typeof timer === "object" && timer !== null && "unref" in timer) (timer as { unref(): void }).unref();
  else if (typeof timer === "number") (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno?.unrefTimer(timer);
}
