// The MCP server in process over the Node runtime of `toolfs mcp` (a real directory, ripgrep, the process
// runner, bubblewrap), driven by the v2 client: the sandbox options as they reach bash and the file tools.
import { mkdtempSync, promises as fsp, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, onTestFinished, test } from "vitest";
import { detectBubblewrap } from "../../core/mod.ts";
import { outsideTemp } from "../../test/outside.ts";
import { nodeMcpHost } from "../cli/mcp.node.ts";
import { createNodeProcessRunner } from "../node/mod.ts";
import type { ToolfsMcpOptions } from "./mod.ts";
import { pair } from "./support.ts";

const runner = createNodeProcessRunner();
const confinement = await detectBubblewrap(runner);
let ws: string;
beforeEach(async () => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-mcp-node-")));
  await fsp.writeFile(join(ws, "notes.txt"), "first line\n");
  await fsp.writeFile(join(ws, ".env"), "TOKEN=hunter2\n");
});
afterEach(async () => {
  await fsp.rm(ws, { recursive: true, force: true });
});

async function connect(options: Omit<ToolfsMcpOptions, "runtime">) {
  const temp = realpathSync(tmpdir());
  const host = nodeMcpHost({
    runner,
    tempRoots: [...new Set([temp, "/tmp"])],
    spillDirectory: join(temp, "toolfs-spill"),
    realDirectory: async (path) => realpathSync(path),
    confinement: () => detectBubblewrap(runner),
  });
  const paired = await pair({ runtime: host.runtime("node"), ...options });
  onTestFinished(() => paired.close());
  return paired;
}

const text = (result: { content: unknown }) => (result.content as { text: string }[]).map((c) => c.text).join("");
const code = (result: { structuredContent?: unknown }) => (result.structuredContent as { error?: { code: string } } | undefined)?.error?.code;

test("under the default workspace-write, bash is offered where bubblewrap works and its commands are confined", async (context) => {
  const { client, session } = await connect({ roots: [ws] });
  const names = (await client.listTools()).tools.map((t) => t.name);
  if (!confinement.available) {
    expect(names).not.toContain("bash");
    expect(session.withheld.bash).toContain(confinement.reason);
    return context.skip(confinement.reason ?? "bubblewrap is not available");
  }
  expect(names).toContain("bash");
  const marker = `/etc/toolfs-mcp-node-${process.pid}`;
  const result = await client.callTool({ name: "bash", arguments: { command: `touch ${marker}; echo kept > kept.txt; cat kept.txt` } });
  expect(text(result)).toContain(`touch: cannot touch '${marker}': Read-only file system`);
  expect(readFileSync(join(ws, "kept.txt"), "utf8")).toBe("kept\n");
});

test("a denied file is refused by read, glob and grep, and bash cannot read it", async () => {
  const { client } = await connect({ roots: [ws], deny: [".env"] });
  expect(code(await client.callTool({ name: "read", arguments: { path: ".env" } }))).toBe("FS_SANDBOX_DENIED");
  expect(text(await client.callTool({ name: "glob", arguments: { pattern: "*" } }))).toBe("notes.txt");
  expect(JSON.stringify(await client.callTool({ name: "grep", arguments: { pattern: "TOKEN", include: "*" } }))).not.toContain("hunter2");
  if (confinement.available) {
    const bash = await client.callTool({ name: "bash", arguments: { command: "cat .env; cat notes.txt" } });
    expect(text(bash)).not.toContain("hunter2");
    expect(text(bash)).toContain("first line");
  }
});

test("the read scope refuses a path outside the roots to read, glob, grep and bash", async (context) => {
  const elsewhere = outsideTemp("toolfs-mcp-node-outside-");
  if (!("path" in elsewhere)) return context.skip(elsewhere.reason);
  onTestFinished(elsewhere.dispose);
  await fsp.writeFile(join(elsewhere.path, "private.txt"), "private\n");
  const { client } = await connect({ roots: [ws] });
  expect(code(await client.callTool({ name: "read", arguments: { path: join(elsewhere.path, "private.txt") } }))).toBe("FS_SANDBOX_DENIED");
  expect(code(await client.callTool({ name: "glob", arguments: { pattern: "*", path: elsewhere.path } }))).toBe("FS_SANDBOX_DENIED");
  expect(code(await client.callTool({ name: "grep", arguments: { pattern: "private", path: elsewhere.path } }))).toBe("FS_SANDBOX_DENIED");
  if (confinement.available) {
    const bash = await client.callTool({ name: "bash", arguments: { command: `cat ${elsewhere.path}/private.txt` } });
    expect(text(bash)).toContain("No such file or directory");
  }
  const open = await connect({ roots: [ws], readScope: "anywhere" });
  expect(text(await open.client.callTool({ name: "read", arguments: { path: join(elsewhere.path, "private.txt") } }))).toContain("1: private");
});
