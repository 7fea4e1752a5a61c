// The MCP server in process, driven by the v2 client (and the v1 client) over linked in-memory transports.
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport as V1InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ProtocolError } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, test } from "vitest";
import { createEngineBackend, createMemorySpillStore, createToolkit, type SearchBackend, TOOL_TRAITS, type ToolName } from "../../core/mod.ts";
import { createMemoryProvider } from "../memory/mod.ts";
import { createToolfsMcpSession, MCP_SERVER_VERSION, type McpRuntime } from "./mod.ts";
import { memoryRuntime, type Paired, pair } from "./support.ts";

const open: Paired[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((p) => p.close()));
});

async function connect(...args: Parameters<typeof pair>): Promise<Paired> {
  const paired = await pair(...args);
  open.push(paired);
  return paired;
}

function seeded(files: Record<string, string> = { "/ws/a.txt": "alpha\n" }) {
  const runtime = memoryRuntime();
  for (const [path, content] of Object.entries(files)) {
    runtime.volume.mkdirSync(path.slice(0, path.lastIndexOf("/")) || "/", { recursive: true });
    runtime.volume.writeFileSync(path, content);
  }
  return runtime;
}

function text(result: { content: unknown }): string {
  return (result.content as { type: string; text: string }[]).map((c) => c.text).join("");
}

describe("tools", () => {
  test("lists the toolkit's tools with its descriptions and schemas unchanged, plus true annotations and output schemas", async () => {
    const runtime = seeded();
    const { client } = await connect({ runtime, roots: ["/ws"] });
    const { tools } = await client.listTools();
    const fs = createMemoryProvider({ volume: runtime.volume, cwd: "/ws" });
    const kit = createToolkit({ fs, workspace: "/ws", search: createEngineBackend(fs), spill: createMemorySpillStore(), sandbox: { mode: "workspace-write" } });
    expect(tools.map((t) => t.name)).toEqual(kit.definitions.map((d) => d.name));
    for (const [i, tool] of tools.entries()) {
      const definition = kit.definitions[i]!;
      expect(tool.description).toBe(definition.description);
      expect(tool.inputSchema).toEqual(definition.inputSchema);
      const traits = TOOL_TRAITS[tool.name as ToolName];
      expect(tool.title).toBe(traits.title);
      expect(tool.annotations?.readOnlyHint).toBe(traits.readOnly);
      expect(tool.annotations?.openWorldHint).toBe(false);
      expect(tool.outputSchema?.type).toBe("object");
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(byName.read).toEqual({ title: "Read file", readOnlyHint: true, openWorldHint: false });
    expect(byName.write).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.edit).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(client.getServerVersion()).toMatchObject({ name: "toolfs", version: MCP_SERVER_VERSION });
    expect(client.getInstructions()).toContain("Workspace: /ws (relative paths start here)");
  });

  test("results carry the text and the meta as structured content that validates against the output schema", async () => {
    const { client } = await connect({ runtime: seeded(), roots: ["/ws"] });
    await client.listTools(); // the client validates structured content against the schemas it listed
    const read = await client.callTool({ name: "read", arguments: { path: "a.txt" } });
    expect(text(read)).toBe("1: alpha\n\n(End of file: 1 line.)");
    expect(read.structuredContent).toEqual({ path: "a.txt", offset: 1, lines: 1, totalLines: 1, truncated: false });
    const edit = await client.callTool({ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "beta" } });
    expect(edit.isError).toBeFalsy();
    expect(edit.structuredContent).toMatchObject({ path: "a.txt", replacements: 1, lines: [1], added: 1, removed: 1 });
    expect((edit.structuredContent as { diff: string }).diff).toContain("-alpha\n+beta");
    const glob = await client.callTool({ name: "glob", arguments: { pattern: "*" } });
    expect(glob.structuredContent).toEqual({ shape: "paths", root: ".", paths: ["a.txt"], truncated: false, total: 1 });
    const grep = await client.callTool({ name: "grep", arguments: { pattern: "beta" } });
    expect(grep.structuredContent).toEqual({ shape: "matches", files: [{ path: "a.txt", matches: [{ lineNumber: 1, line: "beta" }] }], truncated: false, total: 1 });
  });

  test("failures are tool results with isError and the code; an unknown tool is a protocol error; the server keeps serving", async () => {
    const { client } = await connect({ runtime: seeded(), roots: ["/ws"] });
    const missing = await client.callTool({ name: "read", arguments: { path: "nope.txt" } });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toEqual({ error: { name: "FsError", code: "FS_NOT_FOUND" } });
    const bad = await client.callTool({ name: "read", arguments: { path: 42 } });
    expect(bad.structuredContent).toEqual({ error: { name: "ToolError", code: "TOOL_INVALID_ARGUMENTS" } });
    expect(text(bad)).toContain("path: Invalid input: expected string");
    const unknown = await client.callTool({ name: "delete", arguments: {} }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect((unknown as ProtocolError).code).toBe(-32602);
    expect(String(unknown)).toContain('Unknown tool "delete"');
    const huge = await client.callTool({ name: "write", arguments: { path: "big.txt", content: "x".repeat(8 << 20) } });
    expect(huge.structuredContent).toMatchObject({ path: "big.txt", operation: "create", bytes: 8 << 20 });
    expect(text(await client.callTool({ name: "read", arguments: { path: "a.txt" } }))).toContain("1: alpha");
  });

  test("a write outside the roots is refused under the default sandbox, and bash is not offered", async () => {
    const runtime = seeded({ "/ws/a.txt": "a\n", "/elsewhere/b.txt": "b\n" });
    const { client } = await connect({ runtime: { ...runtime, workspace: async (roots) => ({ ...(await runtime.workspace(roots)), runner: {} as never }) }, roots: ["/ws"] });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("bash");
    const denied = await client.callTool({ name: "write", arguments: { path: "/elsewhere/c.txt", content: "x" } });
    expect(denied.structuredContent).toEqual({ error: { name: "FsError", code: "FS_SANDBOX_DENIED" } });
    expect(runtime.volume.existsSync("/elsewhere/c.txt")).toBe(false);
  });
});

describe("paths", () => {
  test("~ is the runtime's home directory; without one it is refused, not reported missing", async () => {
    const runtime = seeded({ "/ws/a.txt": "a\n", "/home/me/.profile": "export A=1\n" });
    const { client } = await connect({ runtime: { ...runtime, home: "/home/me" }, roots: ["/ws"] });
    expect(text(await client.callTool({ name: "read", arguments: { path: "~/.profile" } }))).toContain("1: export A=1");
    const homeless = await connect({ runtime, roots: ["/ws"] });
    const refused = await homeless.client.callTool({ name: "read", arguments: { path: "~/.profile" } });
    expect(refused.structuredContent).toEqual({ error: { name: "ToolError", code: "TOOL_INVALID_ARGUMENTS" } });
    expect(text(refused)).toContain("home directory is not known");
  });
});

describe("roots", () => {
  test("several roots are each writable; relative paths start in the first", async () => {
    const runtime = seeded({ "/one/a.txt": "1\n", "/two/b.txt": "2\n" });
    const { client } = await connect({ runtime, roots: ["/one", "/two"] });
    expect((await client.callTool({ name: "write", arguments: { path: "new.txt", content: "n" } })).isError).toBeFalsy();
    expect((await client.callTool({ name: "write", arguments: { path: "/two/new.txt", content: "m" } })).isError).toBeFalsy();
    expect(runtime.volume.readFileSync("/one/new.txt", "utf8")).toBe("n");
    expect(runtime.volume.readFileSync("/two/new.txt", "utf8")).toBe("m");
    expect((await client.callTool({ name: "write", arguments: { path: "/three.txt", content: "x" } })).structuredContent).toMatchObject({
      error: { code: "FS_SANDBOX_DENIED" },
    });
  });

  test("without --root, the client's roots are asked for and followed when they change", async () => {
    const runtime = seeded({ "/first/a.txt": "first\n", "/second/a.txt": "second\n" });
    let roots = [{ uri: "file:///first" }, { uri: "file:///missing" }, { uri: "file://otherhost/first" }];
    const { client, session } = await connect({ runtime }, { capabilities: { roots: { listChanged: true } } }, (c) =>
      c.setRequestHandler("roots/list", async () => ({ roots })),
    );
    // A call arrives after the initialized notification, so it waits for the roots that notification asked for.
    expect(text(await client.callTool({ name: "read", arguments: { path: "a.txt" } }))).toContain("1: first");
    expect(session.roots()).toEqual(["/first"]);
    roots = [{ uri: "file:///second" }];
    await client.sendRootsListChanged();
    expect(text(await client.callTool({ name: "read", arguments: { path: "a.txt" } }))).toContain("1: second");
    expect(session.roots()).toEqual(["/second"]);
  });

  test("a client without roots and a server without --root get a coded result, not a crash", async () => {
    const { client } = await connect({ runtime: seeded() });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: "read", arguments: { path: "a.txt" } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ error: { name: "McpError", code: "MCP_NO_ROOTS" } });
    expect(text(result)).toContain("started without --root and the client does not share its roots");
  });
});

describe("sessions", () => {
  test("each session is its own actor: one client's read never authorizes another's write", async () => {
    const runtime = seeded();
    const a = await connect({ runtime, roots: ["/ws"] });
    const b = await connect({ runtime, roots: ["/ws"] });
    await a.client.callTool({ name: "read", arguments: { path: "a.txt" } });
    const refused = await b.client.callTool({ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "B" } });
    expect(refused.structuredContent).toEqual({ error: { name: "FsError", code: "FS_NOT_OBSERVED" } });
    const overwrite = await b.client.callTool({ name: "write", arguments: { path: "a.txt", content: "B" } });
    expect(overwrite.structuredContent).toEqual({ error: { name: "FsError", code: "FS_NOT_OBSERVED" } });
    expect((await a.client.callTool({ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "A" } })).isError).toBeFalsy();
    expect(runtime.volume.readFileSync("/ws/a.txt", "utf8")).toBe("A\n");
  });

  test("notifications/cancelled aborts the running call", async () => {
    const runtime = seeded();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let aborted = false;
    const blocking: SearchBackend = {
      name: "blocking",
      files: (request) =>
        new Promise((_resolve, reject) => {
          started();
          request.signal?.addEventListener("abort", () => {
            aborted = true;
            reject(request.signal!.reason);
          });
        }),
      grep: () => Promise.reject(new Error("unused")),
    };
    const slow: McpRuntime = { ...runtime, workspace: async (roots) => ({ ...(await runtime.workspace(roots)), search: blocking }) };
    const { client } = await connect({ runtime: slow, roots: ["/ws"] });
    const controller = new AbortController();
    const call = client.callTool({ name: "glob", arguments: { pattern: "*" } }, { signal: controller.signal }).catch((error: unknown) => error);
    await running;
    controller.abort("user pressed stop");
    expect(String(await call)).toContain("user pressed stop");
    await expect.poll(() => aborted).toBe(true);
    expect(text(await client.callTool({ name: "read", arguments: { path: "a.txt" } }))).toContain("alpha");
  });
});

describe("escalation through elicitation", () => {
  const outside = { path: "/elsewhere/new.txt", content: "x" };
  const retry = { ...outside, sandbox_permissions: "full-access", justification: "The user asked for this file there." };

  async function escalate(answer: "allow" | "refuse" | "decline" | "cancel" | undefined) {
    const runtime = seeded({ "/ws/a.txt": "a\n", "/elsewhere/keep.txt": "k\n" });
    const asked: string[] = [];
    const capabilities = answer === undefined ? {} : { elicitation: { form: {} } };
    const { client } = await connect({ runtime, roots: ["/ws"] }, { capabilities }, (c) => {
      if (answer === undefined) return;
      c.setRequestHandler("elicitation/create", async (request) => {
        asked.push(request.params.message);
        if (answer === "decline" || answer === "cancel") return { action: answer };
        return { action: "accept", content: { allow: answer === "allow" } };
      });
    });
    const denied = await client.callTool({ name: "write", arguments: outside });
    expect(denied.structuredContent).toEqual({ error: { name: "FsError", code: "FS_SANDBOX_DENIED" } });
    // A client that cannot be asked is not offered escalation at all: no hint, no fields.
    if (answer === undefined) expect(text(denied)).not.toContain("sandbox_permissions");
    else expect(text(denied)).toContain("retry this exact call once with sandbox_permissions");
    const result = await client.callTool({ name: "write", arguments: retry });
    return { result, asked, runtime };
  }

  test("an approved retry writes once, after the client's user was asked", async () => {
    const { result, asked, runtime } = await escalate("allow");
    expect(result.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("full access to write /elsewhere/new.txt");
    expect(asked[0]).toContain("The user asked for this file there.");
    expect(runtime.volume.readFileSync("/elsewhere/new.txt", "utf8")).toBe("x");
  });

  test.for([
    ["refuse", "TOOL_ESCALATION_REJECTED"],
    ["decline", "TOOL_ESCALATION_REJECTED"],
    ["cancel", "TOOL_ESCALATION_CANCELLED"],
    [undefined, "TOOL_INVALID_ARGUMENTS"],
  ] as const)("answer %s gives %s and writes nothing", async ([answer, code]) => {
    const { result, asked, runtime } = await escalate(answer);
    expect(result.structuredContent).toEqual({ error: { name: "ToolError", code } });
    expect(asked).toHaveLength(answer === undefined ? 0 : 1);
    expect(runtime.volume.existsSync("/elsewhere/new.txt")).toBe(false);
  });
});

test("a v1 client (@modelcontextprotocol/sdk 1.x) lists and calls the tools and validates their structured content", async () => {
  const runtime = seeded();
  const session = await createToolfsMcpSession({ runtime, roots: ["/ws"] });
  const [clientSide, serverSide] = V1InMemoryTransport.createLinkedPair();
  await session.server.connect(serverSide as never);
  const client = new V1Client({ name: "v1", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["read", "write", "edit", "glob", "grep"]);
    const read = await client.callTool({ name: "read", arguments: { path: "a.txt" } });
    expect(read.structuredContent).toMatchObject({ path: "a.txt", totalLines: 1 });
    const edit = await client.callTool({ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "gamma" } });
    expect(edit.isError).toBeFalsy();
    const failed = await client.callTool({ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "x" } });
    expect(failed.structuredContent).toEqual({ error: { name: "FsError", code: "FS_EDIT_NOT_FOUND" } });
  } finally {
    await client.close();
    await session.server.close();
  }
});
