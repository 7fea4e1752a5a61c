// The MCP server in process under Deno, driven by the v2 client over linked in-memory transports.
import assert from "node:assert/strict";
import { memoryRuntime, pair } from "./support.ts";

function seeded() {
  const runtime = memoryRuntime();
  runtime.volume.mkdirSync("/ws", { recursive: true });
  runtime.volume.writeFileSync("/ws/a.txt", "alpha\n");
  return runtime;
}

Deno.test("mcp (deno): lists the tools and reads and edits with structured results", async () => {
  const { client, close } = await pair({ runtime: seeded(), roots: ["/ws"] });
  try {
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ["read", "write", "edit", "glob", "grep"],
    );
    const read = await client.callTool({ name: "read", arguments: { path: "a.txt" } });
    assert.deepEqual(read.structuredContent, { path: "a.txt", offset: 1, lines: 1, totalLines: 1, truncated: false });
    const edit = await client.callTool({ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "beta" } });
    assert.equal(edit.isError, undefined);
    const missing = await client.callTool({ name: "read", arguments: { path: "nope.txt" } });
    assert.deepEqual(missing.structuredContent, { error: { name: "FsError", code: "FS_NOT_FOUND" } });
  } finally {
    await close();
  }
});

Deno.test("mcp (deno): the client's roots, and one actor per session", async () => {
  const runtime = seeded();
  const a = await pair({ runtime }, { capabilities: { roots: {} } }, (c) =>
    c.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///ws" }] })),
  );
  const b = await pair({ runtime, roots: ["/ws"] });
  try {
    const read = await a.client.callTool({ name: "read", arguments: { path: "a.txt" } });
    assert.match(String((read.content as { text: string }[])[0]!.text), /1: alpha/);
    const refused = await b.client.callTool({ name: "write", arguments: { path: "a.txt", content: "b" } });
    assert.deepEqual(refused.structuredContent, { error: { name: "FsError", code: "FS_NOT_OBSERVED" } });
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("mcp (deno): reads stay in the roots by default; a second root's paths are its name and the path inside it", async () => {
  const runtime = seeded();
  runtime.volume.mkdirSync("/lib/src", { recursive: true });
  runtime.volume.writeFileSync("/lib/src/a.txt", "in lib\n");
  runtime.volume.mkdirSync("/elsewhere", { recursive: true });
  runtime.volume.writeFileSync("/elsewhere/b.txt", "outside\n");
  const { client, close } = await pair({ runtime, roots: ["/ws", "/lib"] });
  try {
    const read = await client.callTool({ name: "read", arguments: { path: "lib/src/a.txt" } });
    assert.deepEqual(read.structuredContent, { path: "lib/src/a.txt", offset: 1, lines: 1, totalLines: 1, truncated: false });
    const outside = await client.callTool({ name: "read", arguments: { path: "/elsewhere/b.txt" } });
    assert.deepEqual(outside.structuredContent, { error: { name: "FsError", code: "FS_SANDBOX_DENIED" } });
    const glob = await client.callTool({ name: "glob", arguments: { pattern: "*", path: "lib" } });
    assert.deepEqual((glob.structuredContent as { paths: string[] }).paths, ["lib/src/a.txt"]);
  } finally {
    await close();
  }
});
