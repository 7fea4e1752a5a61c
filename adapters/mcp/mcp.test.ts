// The MCP server in process, driven by the v2 client (and the v1 client) over linked in-memory transports.
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport as V1InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ProtocolError } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, test } from "vitest";
import {
  createEngineBackend,
  createMemorySpillStore,
  createToolkit,
  type FileSystem,
  type FsReadStream,
  type ProcessRunner,
  fromWholeResults,
  type SearchBackend,
  type ShellConfinement,
  TOOL_TRAITS,
  type ToolName,
} from "../../core/mod.ts";
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
    expect(grep.structuredContent).toEqual({
      shape: "matches",
      files: [{ path: "a.txt", matches: [{ lineNumber: 1, line: "beta" }] }],
      truncated: false,
      total: 1,
    });
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
    const { client } = await connect({
      runtime: { ...runtime, workspace: async (roots) => ({ ...(await runtime.workspace(roots)), runner: {} as never }) },
      roots: ["/ws"],
    });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("bash");
    const denied = await client.callTool({ name: "write", arguments: { path: "/elsewhere/c.txt", content: "x" } });
    expect(denied.structuredContent).toEqual({ error: { name: "FsError", code: "FS_SANDBOX_DENIED" } });
    expect(runtime.volume.existsSync("/elsewhere/c.txt")).toBe(false);
  });
});

describe("paths", () => {
  test("~ is the runtime's home directory; without one it is refused, not reported missing", async () => {
    const runtime = seeded({ "/ws/a.txt": "a\n", "/home/me/.profile": "export A=1\n" });
    const { client } = await connect({ runtime: { ...runtime, home: "/home/me" }, roots: ["/ws"], readScope: "anywhere" });
    expect(text(await client.callTool({ name: "read", arguments: { path: "~/.profile" } }))).toContain("1: export A=1");
    // Under the default read scope, the home directory is outside what the tools may read.
    const scoped = await connect({ runtime: { ...runtime, home: "/home/me" }, roots: ["/ws"] });
    const outside = await scoped.client.callTool({ name: "read", arguments: { path: "~/.profile" } });
    expect(outside.structuredContent).toEqual({ error: { name: "FsError", code: "FS_SANDBOX_DENIED" } });
    expect(text(outside)).toContain('Cannot read "/home/me/.profile": it is outside the readable roots (/ws)');
    const homeless = await connect({ runtime, roots: ["/ws"] });
    const refused = await homeless.client.callTool({ name: "read", arguments: { path: "~/.profile" } });
    expect(refused.structuredContent).toEqual({ error: { name: "ToolError", code: "TOOL_INVALID_ARGUMENTS" } });
    expect(text(refused)).toContain("home directory is not known");
  });
});

describe("roots", () => {
  test("several roots are each writable; relative paths start in the first; another root's paths are name/path", async () => {
    const runtime = seeded({ "/one/a.txt": "1\n", "/two/b.txt": "2\n" });
    const { client } = await connect({ runtime, roots: ["/one", "/two"] });
    expect((await client.callTool({ name: "write", arguments: { path: "new.txt", content: "n" } })).isError).toBeFalsy();
    const absolute = await client.callTool({ name: "write", arguments: { path: "/two/new.txt", content: "m" } });
    expect(absolute.structuredContent).toMatchObject({ path: "two/new.txt", operation: "create" });
    expect(runtime.volume.readFileSync("/one/new.txt", "utf8")).toBe("n");
    expect(runtime.volume.readFileSync("/two/new.txt", "utf8")).toBe("m");
    expect((await client.callTool({ name: "read", arguments: { path: "two/b.txt" } })).structuredContent).toMatchObject({ path: "two/b.txt", totalLines: 1 });
    const glob = await client.callTool({ name: "glob", arguments: { pattern: "*.txt", path: "two" } });
    expect(glob.structuredContent).toMatchObject({ root: "two", paths: expect.arrayContaining(["two/b.txt", "two/new.txt"]) });
    expect((await client.callTool({ name: "write", arguments: { path: "/three.txt", content: "x" } })).structuredContent).toMatchObject({
      error: { code: "FS_SANDBOX_DENIED" },
    });
    expect(client.getInstructions()).toContain("Workspace roots: /one, where relative paths start; two (/two).");
    const read = (await client.listTools()).tools.find((t) => t.name === "read")!;
    expect(JSON.stringify(read.inputSchema)).toContain("a path in another root starts with its name (two)");
  });

  test("client roots with one folder name: named apart in their order, and a file at the same place in each stays apart", async () => {
    const runtime = seeded({ "/app/src/a.ts": "app\n", "/x/lib/src/a.ts": "first lib\n", "/y/lib/src/a.ts": "second lib\n" });
    const roots = [{ uri: "file:///app" }, { uri: "file:///x/lib" }, { uri: "file:///y/lib" }];
    const { client } = await connect({ runtime }, { capabilities: { roots: {} } }, (c) => c.setRequestHandler("roots/list", async () => ({ roots })));
    for (const [path, content] of [
      ["src/a.ts", "app"],
      ["lib/src/a.ts", "first lib"],
      ["lib-2/src/a.ts", "second lib"],
    ] as const) {
      const read = await client.callTool({ name: "read", arguments: { path } });
      expect(text(read)).toContain(`1: ${content}`);
      expect(read.structuredContent).toMatchObject({ path });
    }
    const grep = await client.callTool({ name: "grep", arguments: { pattern: "lib", path: "lib-2" } });
    expect(grep.structuredContent).toMatchObject({ files: [{ path: "lib-2/src/a.ts" }] });
    const edit = await client.callTool({ name: "edit", arguments: { path: "lib-2/src/a.ts", old_string: "second", new_string: "2nd" } });
    expect(text(edit)).toContain("Edited lib-2/src/a.ts");
    expect(runtime.volume.readFileSync("/y/lib/src/a.ts", "utf8")).toBe("2nd lib\n");
    expect(runtime.volume.readFileSync("/x/lib/src/a.ts", "utf8")).toBe("first lib\n");
    expect(text(await client.callTool({ name: "read", arguments: { path: "lib-2/src/b.ts" } }))).toContain('Cannot read "lib-2/src/b.ts": no such file');
  });

  test("when the client's roots change the tool descriptions, it is told (notifications/tools/list_changed)", async () => {
    const runtime = seeded({ "/first/a.txt": "first\n", "/second/b.txt": "second\n" });
    let roots = [{ uri: "file:///first" }];
    let changed = 0;
    const { client } = await connect({ runtime }, { capabilities: { roots: { listChanged: true } } }, (c) => {
      c.setRequestHandler("roots/list", async () => ({ roots }));
      c.setNotificationHandler("notifications/tools/list_changed", () => void changed++);
    });
    const before = await client.listTools();
    expect(JSON.stringify(before.tools)).not.toContain("another root");
    roots = [{ uri: "file:///first" }, { uri: "file:///second" }];
    await client.sendRootsListChanged();
    // A call waits for the roots announced before it; by then the notification has been sent.
    expect(text(await client.callTool({ name: "read", arguments: { path: "second/b.txt" } }))).toContain("1: second");
    expect(changed).toBe(1);
    expect(JSON.stringify((await client.listTools()).tools)).toContain("a path in another root starts with its name (second)");
    // The same roots again change nothing the client sees: no notification.
    await client.sendRootsListChanged();
    await client.callTool({ name: "read", arguments: { path: "a.txt" } });
    expect(changed).toBe(1);
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

describe("sandbox options", () => {
  const idle: ProcessRunner = { run: async () => ({ exitCode: 0, signal: null, forced: false }) };
  // A runtime whose workspaces have a runner, with a confinement answer counted as it is asked for.
  function withRunner(runtime: McpRuntime, confinement: ShellConfinement | undefined) {
    const asked = { count: 0 };
    const wrapped: McpRuntime = {
      ...runtime,
      workspace: async (roots) => ({ ...(await runtime.workspace(roots)), runner: idle }),
      ...(confinement ? { confinement: async () => (asked.count++, confinement) } : {}),
    };
    return { runtime: wrapped, asked };
  }
  const available: ShellConfinement = { kind: "bubblewrap", available: true, program: "bwrap" };
  const missing: ShellConfinement = { kind: "bubblewrap", available: false, program: "bwrap", reason: "bubblewrap (bwrap) is not installed" };

  test("the default read scope is the roots: read, glob and grep refuse a path outside them; anywhere reads it", async () => {
    const runtime = seeded({ "/ws/a.txt": "a\n", "/elsewhere/b.txt": "secret b\n" });
    const { client } = await connect({ runtime, roots: ["/ws"] });
    for (const [tool, args] of [
      ["read", { path: "/elsewhere/b.txt" }],
      ["glob", { pattern: "*", path: "/elsewhere" }],
      ["grep", { pattern: "secret", path: "/elsewhere" }],
      ["read", { path: "../elsewhere/b.txt" }],
    ] as const) {
      const result = await client.callTool({ name: tool, arguments: args });
      expect(result.structuredContent, `${tool} ${JSON.stringify(args)}`).toEqual({ error: { name: "FsError", code: "FS_SANDBOX_DENIED" } });
      expect(text(result)).toContain("outside the readable roots (/ws)");
    }
    expect(client.getInstructions()).toContain("read, glob, grep see only the workspace, the writable roots.");
    const open = await connect({ runtime, roots: ["/ws"], readScope: "anywhere" });
    expect(text(await open.client.callTool({ name: "read", arguments: { path: "/elsewhere/b.txt" } }))).toContain("1: secret b");
  });

  test("a denied file is refused by read, glob and grep, and said so in the instructions", async () => {
    const runtime = seeded({ "/ws/a.txt": "a\n", "/ws/.env": "TOKEN=secret\n", "/ws/app/.env": "TOKEN=secret\n" });
    const { client } = await connect({ runtime, roots: ["/ws"], deny: [".env"] });
    for (const path of [".env", "app/.env", "/ws/app/.env"]) {
      expect((await client.callTool({ name: "read", arguments: { path } })).structuredContent).toEqual({
        error: { name: "FsError", code: "FS_SANDBOX_DENIED" },
      });
    }
    expect((await client.callTool({ name: "glob", arguments: { pattern: "*" } })).structuredContent).toMatchObject({ paths: ["a.txt"], total: 1 });
    const grep = await client.callTool({ name: "grep", arguments: { pattern: "TOKEN" } });
    expect(JSON.stringify(grep)).not.toContain("secret");
    expect(grep.structuredContent).toMatchObject({ total: 0 });
    expect(client.getInstructions()).toContain('Paths matching ".env" are refused to every tool.');
  });

  test("bash is offered confined where the runtime can confine it, asked once; withheld with the reason where it cannot", async () => {
    const confined = withRunner(seeded(), available);
    const a = await connect({ runtime: confined.runtime, roots: ["/ws"] });
    const bash = (await a.client.listTools()).tools.find((t) => t.name === "bash");
    expect(bash?.description).toContain(
      "Commands run sandboxed: files can be written only in /ws (not in .git); only /ws, the system directories and a private /tmp are visible; there is no network.",
    );
    expect(a.session.withheld).toEqual({});
    expect(confined.asked.count).toBe(1);

    const unconfinable = withRunner(seeded(), missing);
    const b = await connect({ runtime: unconfinable.runtime, roots: ["/ws"] });
    expect((await b.client.listTools()).tools.map((t) => t.name)).toEqual(["read", "write", "edit", "glob", "grep"]);
    expect(b.session.withheld.bash).toBe(
      "bash is not available: its commands cannot be held to the workspace-write sandbox here (bubblewrap (bwrap) is not installed)",
    );
    expect(b.client.getInstructions()).not.toContain("bash");
    const call = await b.client.callTool({ name: "bash", arguments: { command: "ls" } }).catch((error: unknown) => error);
    expect(String(call)).toContain('Unknown tool "bash"');

    // Nothing to hold bash to under full access (which reads anywhere unless told otherwise): it runs as it is,
    // and confinement is not even asked for.
    const open = withRunner(seeded({ "/ws/a.txt": "a\n", "/elsewhere/b.txt": "b\n" }), available);
    const c = await connect({ runtime: open.runtime, roots: ["/ws"], sandbox: "full-access" });
    expect(text(await c.client.callTool({ name: "read", arguments: { path: "/elsewhere/b.txt" } }))).toContain("1: b");
    expect((await c.client.listTools()).tools.find((t) => t.name === "bash")?.description).not.toContain("sandboxed");
    expect(open.asked.count).toBe(0);
    // A deny list under full-access hides paths from bash too: confined again.
    const hidden = withRunner(seeded(), missing);
    const d = await connect({ runtime: hidden.runtime, roots: ["/ws"], sandbox: "full-access", deny: [".env"] });
    expect(d.session.withheld.bash).toContain("cannot be held to the deny list here");
    const scoped = withRunner(seeded(), missing);
    const e = await connect({ runtime: scoped.runtime, roots: ["/ws"], sandbox: "full-access", readScope: "workspace" });
    expect(e.session.withheld.bash).toContain("cannot be held to the workspace read scope here");
  });

  test("bad sandbox options are refused before any client connects", async () => {
    await expect(createToolfsMcpSession({ runtime: seeded(), roots: ["/ws"], deny: ["a{b"] })).rejects.toThrow(RangeError);
    await expect(createToolfsMcpSession({ runtime: seeded(), roots: ["/ws"], deny: ["~/.ssh"] })).rejects.toThrow(/no home directory/);
    await expect(createToolfsMcpSession({ runtime: seeded(), roots: ["/ws"], readScope: "home" as never })).rejects.toThrow(RangeError);
  });

  test("under the default read scope, a write outside the roots is refused outright; one to .git in a root can be escalated", async () => {
    const runtime = seeded({ "/ws/a.txt": "a\n", "/ws/.git/config": "[core]\n" });
    const asked: string[] = [];
    const { client } = await connect({ runtime, roots: ["/ws"] }, { capabilities: { elicitation: { form: {} } } }, (c) =>
      c.setRequestHandler("elicitation/create", async (request) => (asked.push(request.params.message), { action: "accept", content: { allow: true } })),
    );
    const outside = await client.callTool({ name: "write", arguments: { path: "/elsewhere/new.txt", content: "x" } });
    expect(text(outside)).toContain("outside the readable roots");
    expect(text(outside)).not.toContain("sandbox_permissions");
    const retried = await client.callTool({
      name: "write",
      arguments: { path: "/elsewhere/new.txt", content: "x", sandbox_permissions: "full-access", justification: "Asked for." },
    });
    expect(retried.structuredContent).toEqual({ error: { name: "FsError", code: "FS_SANDBOX_DENIED" } });
    const hook = { path: ".git/hooks/pre-commit", content: "#!/bin/sh\n" };
    expect(text(await client.callTool({ name: "write", arguments: hook }))).toContain("retry this exact call once with sandbox_permissions");
    const approved = await client.callTool({
      name: "write",
      arguments: { ...hook, sandbox_permissions: "full-access", justification: "The user wants this hook." },
    });
    expect(approved.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(runtime.volume.existsSync("/elsewhere/new.txt")).toBe(false);
    expect(runtime.volume.readFileSync("/ws/.git/hooks/pre-commit", "utf8")).toBe("#!/bin/sh\n");
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
    const blocking: SearchBackend = fromWholeResults({
      name: "blocking",
      // It reads nothing, so it keeps the workspace read scope; without a guard the sandbox would search with
      // the engine instead (note 0016).
      readableGuard: "pinned",
      files: (request) =>
        new Promise((_resolve, reject) => {
          started();
          request.signal?.addEventListener("abort", () => {
            aborted = true;
            reject(request.signal!.reason);
          });
        }),
      grep: () => Promise.reject(new Error("unused")),
    });
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

test("notifications/cancelled stops a large read mid-way: the provider reads nothing after the cancel arrives", async () => {
  const line = "0123456789abcde\n";
  const lines = 1 << 19; // 8 MiB: eight of read's 1 MiB chunks
  const runtime = seeded({ "/ws/big.txt": line.repeat(lines) });
  const counts = { before: 0, after: 0 };
  let streams = 0;
  let reading!: () => void;
  const secondChunk = new Promise<void>((resolve) => (reading = resolve));
  // The provider as it is, except that its first read stream counts the bytes it hands out, and stops after
  // the second chunk until the call's signal says it was cancelled.
  const instrument = (fs: FileSystem): FileSystem =>
    new Proxy(fs, {
      get(target, property) {
        if (property === "readStream") {
          return async (file: Parameters<FileSystem["readStream"]>[0], options: Parameters<FileSystem["readStream"]>[1]): Promise<FsReadStream> => {
            const inner = await target.readStream(file, options);
            const signal = options?.signal;
            if (!signal) throw new Error("the read was given no signal to stop it");
            // Only the first read is watched; the one after the cancel reads as usual.
            if (++streams > 1) return inner;
            return {
              info: inner.info,
              close: () => inner.close(),
              async *[Symbol.asyncIterator]() {
                let chunks = 0;
                for await (const chunk of inner) {
                  counts[signal.aborted ? "after" : "before"] += chunk.length;
                  if (++chunks === 2) {
                    reading();
                    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
                  }
                  yield chunk;
                }
              },
            };
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const slow: McpRuntime = {
    ...runtime,
    workspace: async (roots) => ({ ...(await runtime.workspace(roots)), fs: instrument((await runtime.workspace(roots)).fs) }),
  };
  const { client } = await connect({ runtime: slow, roots: ["/ws"] });
  const controller = new AbortController();
  // The last line: read must count every line feed of the file to reach it.
  const call = client.callTool({ name: "read", arguments: { path: "big.txt", offset: lines } }, { signal: controller.signal }).catch((error: unknown) => error);
  await secondChunk;
  controller.abort("user pressed stop");
  expect(String(await call)).toContain("user pressed stop");
  // The server's signal fired (the stream resumed), and the provider's next read refused to start.
  await expect.poll(() => counts.before).toBe(2 << 20);
  expect(counts.after).toBe(0);
  expect(text(await client.callTool({ name: "read", arguments: { path: "big.txt", limit: 1 } }))).toContain("1: 0123456789abcde");
});

describe("escalation through elicitation", () => {
  const outside = { path: "/elsewhere/new.txt", content: "x" };
  const retry = { ...outside, sandbox_permissions: "full-access", justification: "The user asked for this file there." };

  async function escalate(answer: "allow" | "refuse" | "decline" | "cancel" | undefined) {
    const runtime = seeded({ "/ws/a.txt": "a\n", "/elsewhere/keep.txt": "k\n" });
    const asked: string[] = [];
    const capabilities = answer === undefined ? {} : { elicitation: { form: {} } };
    // Outside the read scope no escalation is offered (see below): the escalations here are of writes alone.
    const { client } = await connect({ runtime, roots: ["/ws"], readScope: "anywhere" }, { capabilities }, (c) => {
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

  test("through a symlink, the user is asked about the file that would change, and the field says it too", async () => {
    const runtime = seeded({ "/ws/a.txt": "a\n", "/elsewhere/secret.txt": "old\n" });
    runtime.volume.symlinkSync("/elsewhere/secret.txt", "/ws/notes.txt");
    const asked: { message: string; description: unknown }[] = [];
    const { client } = await connect({ runtime, roots: ["/ws"], readScope: "anywhere" }, { capabilities: { elicitation: { form: {} } } }, (c) =>
      c.setRequestHandler("elicitation/create", async (request) => {
        const params = request.params as unknown as { message: string; requestedSchema: { properties: { allow: { description: unknown } } } };
        asked.push({ message: params.message, description: params.requestedSchema.properties.allow.description });
        return { action: "accept", content: { allow: true } };
      }),
    );
    await client.callTool({ name: "read", arguments: { path: "notes.txt" } });
    expect(text(await client.callTool({ name: "write", arguments: { path: "notes.txt", content: "x" } }))).toContain('resolves to "/elsewhere/secret.txt"');
    const approved = await client.callTool({
      name: "write",
      arguments: { path: "notes.txt", content: "x", sandbox_permissions: "full-access", justification: "Asked." },
    });
    expect(approved.isError).toBeFalsy();
    expect(asked).toEqual([
      {
        message:
          "The model asks for full access to write /elsewhere/secret.txt (given as notes.txt), for this call only.\n" +
          "Refused under workspace-write access because it is outside the writable roots (/ws).\nThe model's reason: Asked.",
        description: "full access to write /elsewhere/secret.txt (given as notes.txt)",
      },
    ]);
    expect(runtime.volume.readFileSync("/elsewhere/secret.txt", "utf8")).toBe("x");
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
