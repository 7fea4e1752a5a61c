// The Streamable HTTP handler in process, without a socket: the request body's limit (how much is read before
// a 413, and that the rest of the stream is cancelled), the bearer token, and the session table's bounds.
import { Server } from "@modelcontextprotocol/server";
import { describe, expect, test } from "vitest";
import { createMcpHttpHandler, MCP_HTTP_DEFAULTS, type McpHttpOptions } from "./mod.ts";

const URL_ = "http://127.0.0.1:8765/mcp";
const HEADERS = { Host: "127.0.0.1:8765", "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
});
const CHUNK = 64 * 1024;

function handler(options: Partial<McpHttpOptions> = {}) {
  return createMcpHttpHandler({
    session: async () => ({ server: new Server({ name: "test", version: "1.0.0" }, { capabilities: { tools: {} } }) }),
    allowedHosts: ["127.0.0.1"],
    allowedOrigins: ["127.0.0.1"],
    ...options,
  });
}

/** A body of `chunks` chunks of CHUNK bytes, pulled on demand; says how much was pulled and whether it was cancelled. */
function endlessBody(chunks: number) {
  const state = { pulled: 0, cancelled: false };
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === chunks) return controller.close();
      sent++;
      state.pulled += CHUNK;
      controller.enqueue(new Uint8Array(CHUNK).fill(0x20));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request(URL_, { method: "POST", headers: { ...HEADERS, ...headers }, body, duplex: "half" } as RequestInit);

/** Opens a session; with `open`, the response is handed back unread (its session is busy until it is read). */
async function initialize(h: ReturnType<typeof handler>, open?: (response: Response) => void): Promise<string> {
  const response = await h.fetch(post(INITIALIZE));
  expect(response.status).toBe(200);
  if (open) open(response);
  else await response.text();
  const id = response.headers.get("mcp-session-id");
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return id!;
}

/** The status of a request, its response read to the end (an unread response keeps its session busy). */
async function status(h: ReturnType<typeof handler>, request: Request): Promise<number> {
  const response = await h.fetch(request);
  await response.text();
  return response.status;
}

const listen = (h: ReturnType<typeof handler>, id: string) =>
  h.fetch(
    new Request(URL_, { method: "GET", headers: { ...HEADERS, Accept: "text/event-stream", "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25" } }),
  );

const ping = (id: string) => post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }), { "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25" });

describe("request bodies", () => {
  test("a POST without a session over the default 4 MiB gets 413 after at most 4 MiB and one chunk, and its stream is cancelled", async () => {
    const h = handler();
    // 300 MB, were it all read.
    const { stream, state } = endlessBody(4800);
    const response = await h.fetch(post(stream));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: -32000, message: expect.stringContaining(`${MCP_HTTP_DEFAULTS.maxBodyBytes} bytes`) } });
    expect(MCP_HTTP_DEFAULTS.maxBodyBytes).toBe(4 * 1024 * 1024);
    expect(state.pulled).toBeLessThanOrEqual(MCP_HTTP_DEFAULTS.maxBodyBytes + 2 * CHUNK);
    expect(state.cancelled).toBe(true);
    await h.close();
  });

  test("a POST in a session gets the same limit, configurable; the session goes on", async () => {
    const h = handler({ maxBodyBytes: 256 * 1024 });
    const id = await initialize(h);
    const { stream, state } = endlessBody(1000);
    const response = await h.fetch(post(stream, { "Mcp-Session-Id": id }));
    expect(response.status).toBe(413);
    expect(state.pulled).toBeLessThanOrEqual(256 * 1024 + 2 * CHUNK);
    expect(state.cancelled).toBe(true);
    const pong = await h.fetch(ping(id));
    expect(pong.status).toBe(200);
    expect(await pong.text()).toContain('"result":{}');
    await h.close();
  });

  test("a body within the limit is served", async () => {
    const h = handler({ maxBodyBytes: INITIALIZE.length });
    await initialize(h);
    await h.close();
  });
});

describe("the bearer token", () => {
  test("a wrong token of the same length as the right one gets 401; the right one passes", async () => {
    const h = handler({ token: "s3cret-token" });
    for (const authorization of ["Bearer s3cret-tokem", "Bearer S3cret-token", "Bearer xxxxxxxxxxxx", "Bearer s3cret-toke", "", "s3cret-token"]) {
      const response = await h.fetch(post(INITIALIZE, { Authorization: authorization }));
      expect(response.status, authorization).toBe(401);
      await response.body?.cancel();
    }
    const response = await h.fetch(post(INITIALIZE, { Authorization: "Bearer s3cret-token" }));
    expect(response.status).toBe(200);
    await response.body?.cancel();
    await h.close();
  });
});

describe("sessions", () => {
  test("a full table closes the session idle longest for a new one; 503 only when every session is busy with a call", async () => {
    const logged: string[] = [];
    const h = handler({ maxSessions: 2, log: (line) => logged.push(line) });
    const first = await initialize(h);
    const second = await initialize(h);
    // `second` is used after `first`: `first` is the one idle longest.
    expect(await status(h, ping(second))).toBe(200);
    const third = await initialize(h);
    expect(h.sessions).toBe(2);
    expect(await status(h, ping(first))).toBe(404);
    expect(await status(h, ping(second))).toBe(200);
    expect(logged.some((line) => line.includes(`session ${first} closed to make room`))).toBe(true);

    // A standalone GET stream, which every connected client holds, does not make a session busy.
    const stream = await listen(h, second);
    expect(stream.status).toBe(200);
    // Both have a POST whose answer is still being sent (left unread here, as a long call's would be): both
    // are busy.
    const calls = await Promise.all([second, third].map((id) => h.fetch(ping(id))));
    for (const c of calls) expect(c.status).toBe(200);
    expect(await status(h, post(INITIALIZE))).toBe(503);
    expect(h.sessions).toBe(2);
    // One answer is done: its session is idle again, and makes room (its stream ends with it).
    await calls[0]!.text();
    await initialize(h);
    expect(await status(h, ping(second))).toBe(404);
    expect(await calls[1]!.text()).toContain('"result":{}');
    expect(await status(h, ping(third))).toBe(200);
    await stream.body!.cancel().catch(() => {});
    await h.close();
  });

  test("a session idle past the timeout is closed; a busy one is not", async () => {
    const h = handler({ idleTimeoutMs: 1 });
    const idle = await initialize(h);
    // The initialize's answer is left unread: the session is busy until it is read.
    let initialized: Response | undefined;
    await initialize(h, (response) => (initialized = response));
    // Longer than the timeout (timers never fire early); expiry runs on the next request.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await status(h, ping(idle))).toBe(404);
    expect(h.sessions).toBe(1);
    await initialized!.text();
    await h.close();
  });

  test("bounds that are not positive whole numbers are refused", () => {
    expect(() => handler({ maxBodyBytes: 0 })).toThrow(RangeError);
    expect(() => handler({ maxSessions: 1.5 })).toThrow(RangeError);
    expect(() => handler({ idleTimeoutMs: -1 })).toThrow(RangeError);
  });
});
