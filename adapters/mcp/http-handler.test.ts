// The Streamable HTTP fetch handler in-process (http.test.ts drives the built bin over a socket): each refusal's
// status and JSON-RPC code, in the order the handler checks, the session limit, and close.
import { McpServer } from "@modelcontextprotocol/server";
import { expect, test } from "vitest";
import { createMcpHttpHandler, type McpHttpOptions } from "./http.ts";

const HOST = "127.0.0.1:8080";
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

function handler(options: Partial<McpHttpOptions> = {}) {
  const logs: string[] = [];
  const made = createMcpHttpHandler({
    session: async () => ({ server: new McpServer({ name: "t", version: "1" }).server }),
    allowedHosts: ["127.0.0.1"],
    allowedOrigins: ["127.0.0.1"],
    log: (line) => void logs.push(line),
    ...options,
  });
  return { handler: made, logs };
}

function post(body: unknown, headers: Record<string, string> = {}, url = `http://${HOST}/mcp`): Request {
  return new Request(url, {
    method: "POST",
    headers: { host: HOST, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function refusal(response: Response): Promise<[number, number | undefined, string | undefined]> {
  expect(response.headers.get("content-type")).toBe("application/json");
  const body = (await response.json()) as { error?: { code?: number; message?: string } };
  return [response.status, body.error?.code, body.error?.message];
}

test("an initialize opens a session; its id routes later requests; close ends them all", async () => {
  let serversClosed = 0;
  const { handler: h, logs } = handler({
    session: async () => {
      const { server } = new McpServer({ name: "t", version: "1" });
      const connected = server.connect.bind(server);
      server.connect = async (transport) => {
        await connected(transport);
        const onclose = server.onclose;
        server.onclose = () => (serversClosed++, onclose?.());
      };
      return { server };
    },
  });
  const first = await h.fetch(post(INIT));
  expect(first.status).toBe(200);
  const id = first.headers.get("mcp-session-id");
  expect(id).toBeTruthy();
  expect(h.sessions).toBe(1);
  expect(logs.some((line) => line.includes(`session ${id} opened (1 open)`))).toBe(true);
  const listed = await h.fetch(post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": id!, "mcp-protocol-version": "2025-06-18" }));
  expect(listed.status).toBe(200);
  await h.close();
  expect(h.sessions).toBe(0);
  expect(serversClosed, "close() closes each open session's server").toBe(1);
  expect(await refusal(await h.fetch(post(INIT)))).toEqual([503, -32000, "The server is shutting down"]);
});

test("a foreign Host or Origin is refused before the token, the path or the body are looked at", async () => {
  const { handler: h } = handler({ token: "secret" });
  const badHost = await h.fetch(post("not json", { host: "evil.example" }, "http://evil.example/elsewhere"));
  expect(badHost.status).toBe(403);
  const badOrigin = await h.fetch(post("not json", { origin: "http://evil.example" }, `http://${HOST}/elsewhere`));
  expect(badOrigin.status).toBe(403);
  // The allowed Origin passes on to the next check (the token).
  const goodOrigin = await h.fetch(post("not json", { origin: "http://127.0.0.1:8080" }, `http://${HOST}/elsewhere`));
  expect(goodOrigin.status).toBe(401);
});

test("with a token, a request without it is 401 with a WWW-Authenticate challenge, before the path is looked at", async () => {
  const { handler: h } = handler({ token: "secret" });
  const response = await h.fetch(post(INIT, {}, `http://${HOST}/elsewhere`));
  expect(response.headers.get("www-authenticate")).toBe('Bearer realm="toolfs"');
  expect(await refusal(response)).toEqual([401, -32001, "Unauthorized: send Authorization: Bearer <token>"]);
  expect((await h.fetch(post(INIT, { authorization: "Bearer secret" }))).status).toBe(200);
});

test("an empty token means none", async () => {
  const { handler: h } = handler({ token: "" });
  expect((await h.fetch(post(INIT))).status).toBe(200);
});

test("each malformed request gets its own status and JSON-RPC error, and the handler keeps serving", async () => {
  const { handler: h } = handler({ path: "/rpc" });
  expect(await refusal(await h.fetch(post(INIT)))).toEqual([404, -32000, "Not found: the MCP endpoint is /rpc"]);
  const at = `http://${HOST}/rpc`;
  expect(await refusal(await h.fetch(post(INIT, { "mcp-session-id": "nope" }, at)))).toEqual([404, -32001, "Session not found"]);
  const get = new Request(at, { method: "GET", headers: { host: HOST, accept: "text/event-stream" } });
  expect(await refusal(await h.fetch(get))).toEqual([400, -32000, "Bad Request: Mcp-Session-Id header required"]);
  expect(await refusal(await h.fetch(post("{not json", {}, at)))).toEqual([400, -32700, "Parse error: the body is not JSON"]);
  expect(await refusal(await h.fetch(post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, {}, at)))).toEqual([
    400,
    -32000,
    "Bad Request: Mcp-Session-Id header required",
  ]);
  expect((await h.fetch(post(INIT, {}, at))).status).toBe(200);
});

// The initialize answers are never read here, so both sessions still have a call in flight: none is idle to close.
test("past maxSessions, with every session busy, an initialize is 503 until a session closes", async () => {
  const { handler: h, logs } = handler({ maxSessions: 2 });
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) ids.push((await h.fetch(post(INIT))).headers.get("mcp-session-id")!);
  expect(await refusal(await h.fetch(post(INIT)))).toEqual([503, -32000, "Too many busy sessions (2); try again when one is done"]);
  const closed = await h.fetch(new Request(`http://${HOST}/mcp`, { method: "DELETE", headers: { host: HOST, "mcp-session-id": ids[0]! } }));
  expect(closed.status).toBe(200);
  expect(h.sessions).toBe(1);
  expect(logs.some((line) => line.includes(`session ${ids[0]} closed (1 open)`))).toBe(true);
  expect((await h.fetch(post(INIT))).status).toBe(200);
});

test("a session factory that throws is a 500 Internal error, logged, and the handler keeps serving", async () => {
  let fail = true;
  const { handler: h, logs } = handler({
    session: async () => {
      if (fail) throw new Error("factory broke");
      return { server: new McpServer({ name: "t", version: "1" }).server };
    },
  });
  expect(await refusal(await h.fetch(post(INIT)))).toEqual([500, -32603, "Internal error"]);
  expect(logs.some((line) => line.includes("request failed") && line.includes("factory broke"))).toBe(true);
  fail = false;
  expect((await h.fetch(post(INIT))).status).toBe(200);
});
