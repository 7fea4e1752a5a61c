// `toolfs mcp --http`: Streamable HTTP with sessions on loopback, as the built bin serves it. Many sessions at
// once, each its own actor; DNS-rebinding protection; the bearer token; malformed and unknown-session requests.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, promises as fsp, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "node:http";
import { createInterface } from "node:readline";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { root } from "../../test/acp-driver.ts";
import { outsideTemp } from "../../test/outside.ts";

const cli = join(root, "dist/cli.js");
let ws: string;
let server: ChildProcess | undefined;

beforeEach(async () => {
  ws = realpathSync(await fsp.mkdtemp(join(tmpdir(), "toolfs-mcp-http-")));
  await fsp.writeFile(join(ws, "counter.txt"), "count: 0\n");
  await fsp.writeFile(join(ws, "shared.txt"), "shared\n");
});
afterEach(async () => {
  if (server && server.exitCode === null) {
    const closed = new Promise((resolve) => server!.once("close", resolve));
    server.kill("SIGTERM");
    await closed;
  }
  server = undefined;
  await fsp.rm(ws, { recursive: true, force: true });
});

/** Starts the server on a free loopback port; resolves to its URL once it says it is listening. */
async function start(env: Record<string, string> = {}, ...extra: string[]): Promise<URL> {
  server = spawn(process.execPath, [cli, "mcp", "--root", ws, "--http", "127.0.0.1:0", ...extra], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: server.stderr! });
  for await (const line of lines) {
    const url = /listening on (\S+)/.exec(line)?.[1];
    if (url) return new URL(url);
  }
  throw new Error("the server ended before it listened");
}

async function client(
  url: URL,
  headers: Record<string, string> = {},
  configure?: (c: Client) => void,
  options?: ConstructorParameters<typeof Client>[1],
): Promise<Client> {
  const c = new Client({ name: "http-test", version: "1.0.0" }, options);
  configure?.(c);
  await c.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return c;
}

function code(result: { structuredContent?: unknown }): string | undefined {
  return (result.structuredContent as { error?: { code: string } } | undefined)?.error?.code;
}

describe("Streamable HTTP", () => {
  test("20 concurrent sessions increment one counter through read and edit: no update is lost", async () => {
    const url = await start();
    const clients = await Promise.all(Array.from({ length: 20 }, () => client(url)));
    try {
      await Promise.all(
        clients.map(async (c) => {
          for (;;) {
            const read = await c.callTool({ name: "read", arguments: { path: "counter.txt" } });
            // Under the read scope, a read is confirmed against the file it opened; another session's atomic
            // replace in between makes it "changed while it was being opened; read it again".
            if (read.isError) {
              expect(code(read)).toBe("FS_STALE_VERSION");
              continue;
            }
            const n = Number(/count: (\d+)/.exec(String((read.content as { text: string }[])[0]!.text))![1]);
            const edit = await c.callTool({ name: "edit", arguments: { path: "counter.txt", old_string: `count: ${n}`, new_string: `count: ${n + 1}` } });
            if (!edit.isError) return;
            // Another session changed it between this session's read and edit: the guard refused the edit.
            expect(["FS_STALE_VERSION", "FS_EDIT_NOT_FOUND"]).toContain(code(edit));
          }
        }),
      );
      expect(readFileSync(join(ws, "counter.txt"), "utf8")).toBe("count: 20\n");
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 120_000);

  test("one session's read does not authorize another session's write", async () => {
    const url = await start();
    const [a, b] = await Promise.all([client(url), client(url)]);
    try {
      await a.callTool({ name: "read", arguments: { path: "shared.txt" } });
      expect(code(await b.callTool({ name: "write", arguments: { path: "shared.txt", content: "b" } }))).toBe("FS_NOT_OBSERVED");
      expect(code(await b.callTool({ name: "edit", arguments: { path: "shared.txt", old_string: "shared", new_string: "b" } }))).toBe("FS_NOT_OBSERVED");
      expect((await a.callTool({ name: "write", arguments: { path: "shared.txt", content: "a\n" } })).isError).toBeFalsy();
      expect(readFileSync(join(ws, "shared.txt"), "utf8")).toBe("a\n");
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("a foreign Host or Origin is refused before anything else (DNS rebinding)", async () => {
    const url = await start();
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    // node:http, since fetch will not send a Host header of the caller's choosing (a browser's rebinding would).
    const post = (headers: Record<string, string>) =>
      new Promise<{ status: number; session: string | undefined }>((resolve, reject) => {
        const req = request(
          url,
          { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers } },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, session: res.headers["mcp-session-id"] as string | undefined });
          },
        );
        req.on("error", reject);
        req.end(initialize);
      });
    expect((await post({ Host: "evil.example" })).status).toBe(403);
    expect((await post({ Host: `evil.example:${url.port}` })).status).toBe(403);
    expect((await post({ Origin: "http://evil.example" })).status).toBe(403);
    const ok = await post({ Origin: `http://localhost:${url.port}` });
    expect(ok.status).toBe(200);
    expect(ok.session).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("malformed bodies and unknown sessions get JSON-RPC errors; the server keeps serving", async () => {
    const url = await start();
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    const garbage = await fetch(url, { method: "POST", headers, body: "{nope" });
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ error: { code: -32700 } });
    const unknown = await fetch(url, { method: "POST", headers: { ...headers, "Mcp-Session-Id": "no-such-session" }, body: "{}" });
    expect(unknown.status).toBe(404);
    const noSession = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(noSession.status).toBe(400);
    const wrongPath = await fetch(new URL("/other", url), { method: "POST", headers, body: "{}" });
    expect(wrongPath.status).toBe(404);
    const c = await client(url);
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["read", "write", "edit", "glob", "grep"]));
    await c.close();
  });

  test("a body over the limit gets 413 while it is still being sent; the server goes on serving", async () => {
    const url = await start();
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    // Chunked, without a length: the server learns the size only by reading. The client sends until it is
    // answered (at most 64 MiB, had nothing stopped the server reading).
    const answer = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = request(url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" } }, (res) => {
        answered = true;
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sent }));
      });
      req.on("error", (error) => (answered ? undefined : reject(error)));
      void (async () => {
        while (!answered && sent < 64) {
          sent++;
          if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
        }
        req.end();
      })().catch(() => {});
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32000, message: expect.stringContaining("4194304 bytes") } });
    expect(answer.sent).toBeLessThan(64);
    const c = await client(url);
    expect((await c.callTool({ name: "read", arguments: { path: "shared.txt" } })).isError).toBeFalsy();
    await c.close();
  });

  test("--max-message-bytes, --max-sessions and --idle-timeout set the handler's bounds", async () => {
    const url = await start({}, "--max-message-bytes", "2048", "--max-sessions", "1", "--idle-timeout", "3600");
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    const big = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { pad: "x".repeat(4096) } }),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { message: expect.stringContaining("2048 bytes") } });
    const first = await client(url);
    // The table holds one session: the first, idle, makes room for the second.
    const second = await client(url);
    expect((await second.callTool({ name: "read", arguments: { path: "shared.txt" } })).isError).toBeFalsy();
    await expect(first.callTool({ name: "read", arguments: { path: "shared.txt" } })).rejects.toThrow();
    await second.close();
    await first.close().catch(() => {});
  });

  test("escalation is asked through elicitation over Streamable HTTP; allowed writes once, declined writes nothing", async (context) => {
    // Outside the root and the temp directories; with reads anywhere, a write there can be escalated.
    const elsewhere = outsideTemp("toolfs-mcp-http-outside-");
    if (!("path" in elsewhere)) return context.skip(elsewhere.reason);
    const outside = elsewhere.path;
    try {
      const url = await start({}, "--read-scope", "anywhere");
      const asked: string[] = [];
      let answer: "allow" | "decline" = "allow";
      const c = await client(
        url,
        {},
        (x) =>
          x.setRequestHandler("elicitation/create", async (request) => {
            asked.push(request.params.message);
            return answer === "allow" ? { action: "accept", content: { allow: true } } : { action: "decline" };
          }),
        { capabilities: { elicitation: { form: {} } } },
      );
      try {
        const call = (name: string, extra: Record<string, unknown> = {}) =>
          c.callTool({ name: "write", arguments: { path: join(outside, name), content: `${name}\n`, ...extra } });
        const retry = { sandbox_permissions: "full-access", justification: "The user asked for this file there." };
        const refused = await call("allowed.txt");
        expect(code(refused)).toBe("FS_SANDBOX_DENIED");
        expect(String((refused.content as { text: string }[])[0]!.text)).toContain("retry this exact call once with sandbox_permissions");
        expect((await call("allowed.txt", retry)).isError).toBeFalsy();
        expect(readFileSync(join(outside, "allowed.txt"), "utf8")).toBe("allowed.txt\n");
        answer = "decline";
        expect(code(await call("declined.txt"))).toBe("FS_SANDBOX_DENIED");
        expect(code(await call("declined.txt", retry))).toBe("TOOL_ESCALATION_REJECTED");
        expect(existsSync(join(outside, "declined.txt"))).toBe(false);
        expect(asked).toHaveLength(2);
        // The request names the real destination, that it holds for this call only, and why it was refused.
        expect(asked[0]).toContain(`full access to write ${join(outside, "allowed.txt")}, for this call only.`);
        expect(asked[0]).toContain("outside the writable roots");
      } finally {
        await c.close();
      }
    } finally {
      elsewhere.dispose();
    }
  });

  test("with TOOLFS_MCP_TOKEN set, requests without the bearer token get 401", async () => {
    const url = await start({ TOOLFS_MCP_TOKEN: "s3cret-token" });
    await expect(client(url)).rejects.toThrow();
    await expect(client(url, { Authorization: "Bearer wrong" })).rejects.toThrow();
    const c = await client(url, { Authorization: "Bearer s3cret-token" });
    expect((await c.callTool({ name: "read", arguments: { path: "shared.txt" } })).isError).toBeFalsy();
    await c.close();
  });
});

test("a non-loopback --http without a token is refused at startup", async () => {
  const child = spawn(process.execPath, [cli, "mcp", "--root", tmpdir(), "--http", "0.0.0.0:0"], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, TOOLFS_MCP_TOKEN: "" },
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise((resolve) => child.once("close", resolve));
  expect(status).toBe(2);
  expect(stderr).toContain("set TOOLFS_MCP_TOKEN");
});
