// `toolfs mcp` as a client starts it: a subprocess speaking MCP on stdio, under Node (the built bin) and Deno,
// driven by the v2 client, the v1 client, and the MCP Inspector's CLI mode; malformed input over the wire.
import { type ChildProcessWithoutNullStreams, execFile, spawn, spawnSync } from "node:child_process";
import { existsSync, promises as fsp, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, onTestFinished, test } from "vitest";
import { root } from "../../test/acp-driver.ts";
import { outsideHolder, outsideTemp } from "../../test/outside.ts";
import { survivors } from "../../test/process-cases.ts";
import { detectBubblewrap } from "../../core/mod.ts";
import { createNodeProcessRunner } from "../node/mod.ts";

const run = promisify(execFile);
const cli = join(root, "dist/cli.js");
const deno = join(root, "node_modules/.bin/deno");
const inspector = join(root, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

// The default sandbox (workspace-write, reads in the roots) offers bash where bubblewrap works, and only there.
const confinement = await detectBubblewrap(createNodeProcessRunner());
const TOOLS = ["read", "write", "edit", "glob", "grep", ...(confinement.available ? ["bash"] : [])];
const WITHHELD = confinement.available
  ? ""
  : `toolfs mcp: bash is not available: its commands cannot be held to the workspace-write sandbox here (${confinement.reason})\n`;

let ws: string;
let home: string;
beforeEach(async () => {
  ws = realpathSync(await fsp.mkdtemp(join(tmpdir(), "toolfs-mcp-")));
  home = await fsp.mkdtemp(join(tmpdir(), "toolfs-home-"));
  await fsp.writeFile(join(ws, "notes.txt"), "first line\n");
  await fsp.mkdir(join(ws, "src"));
  await fsp.writeFile(join(ws, "src/app.ts"), "export const retries = 3;\n");
});
afterEach(async () => {
  await fsp.rm(ws, { recursive: true, force: true });
  await fsp.rm(home, { recursive: true, force: true });
});

async function denoArgs(...extra: string[]): Promise<string[]> {
  const { rgPath } = await import("@vscode/ripgrep");
  // Deno may read and write where the outside directories are, so what refuses them is toolfs's sandbox.
  const found = outsideHolder();
  const outside = "holder" in found ? [found.holder] : [];
  const reads = [root, realpathSync(join(root, "node_modules")), ws, tmpdir(), ...outside].join(",");
  return [
    "run",
    "--no-prompt",
    `--allow-read=${reads}`,
    `--allow-write=${[ws, tmpdir(), ...outside].join(",")}`,
    "--allow-env=npm_config_arch",
    `--allow-run=${rgPath},bash,setsid,kill,ps`,
    join(root, "adapters/cli/main.deno.ts"),
    "mcp",
    ...extra,
  ];
}

const servers = {
  node: async (...extra: string[]) => ({ command: process.execPath, args: [cli, "mcp", ...extra] }),
  deno: async (...extra: string[]) => ({ command: deno, args: await denoArgs(...extra) }),
};

describe.each(Object.entries(servers))("toolfs mcp on %s over stdio, driven by the v2 client", (_, server) => {
  test("lists the tools and reads, edits, globs and greps in the root; writes nothing to stderr but what is withheld", async () => {
    const params = await server("--root", ws);
    const transport = new StdioClientTransport({ ...params, env: { PATH: process.env.PATH ?? "", HOME: home }, stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
      const read = await client.callTool({ name: "read", arguments: { path: "src/app.ts" } });
      expect(read.structuredContent).toMatchObject({ path: "src/app.ts", totalLines: 1 });
      const edit = await client.callTool({ name: "edit", arguments: { path: "src/app.ts", old_string: "retries = 3", new_string: "retries = 5" } });
      expect(edit.isError).toBeFalsy();
      expect(readFileSync(join(ws, "src/app.ts"), "utf8")).toBe("export const retries = 5;\n");
      const glob = await client.callTool({ name: "glob", arguments: { pattern: "*.ts" } });
      expect(glob.structuredContent).toMatchObject({ paths: ["src/app.ts"], total: 1 });
      const grep = await client.callTool({ name: "grep", arguments: { pattern: "retries" } });
      expect(grep.structuredContent).toMatchObject({ files: [{ path: "src/app.ts" }] });
      // Outside the root and the temp directories, when the repository is not in one.
      const elsewhere = outsideTemp("toolfs-mcp-never-");
      if ("path" in elsewhere) {
        onTestFinished(elsewhere.dispose);
        const outside = await client.callTool({ name: "write", arguments: { path: join(elsewhere.path, "never.txt"), content: "x" } });
        expect(outside.structuredContent).toEqual({ error: { name: "FsError", code: "FS_SANDBOX_DENIED" } });
        expect(existsSync(join(elsewhere.path, "never.txt"))).toBe(false);
      }
    } finally {
      await client.close();
    }
    expect(stderr).toBe(WITHHELD);
  });
});

/** The v2 client over stdio to `toolfs mcp` with these arguments; stderr is collected. */
async function stdioClient(params: { command: string; args: string[] }): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ ...params, env: { PATH: process.env.PATH ?? "", HOME: home }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "stdio-sandbox-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const textOf = (result: { content: unknown }) => (result.content as { text: string }[]).map((c) => c.text).join("");
const codeOf = (result: { structuredContent?: unknown }) => (result.structuredContent as { error?: { code: string } } | undefined)?.error?.code;

describe.each(Object.entries(servers))("the sandbox flags of toolfs mcp on %s over stdio", (runtime, server) => {
  let outside: string;
  beforeEach(async () => {
    outside = realpathSync(await fsp.mkdtemp(join(tmpdir(), "toolfs-mcp-outside-")));
    await fsp.writeFile(join(outside, "private.txt"), "outside the roots\n");
  });
  afterEach(async () => {
    await fsp.rm(outside, { recursive: true, force: true });
  });

  test("bash is offered under the default workspace-write where bubblewrap works, and runs confined", async (context) => {
    if (!confinement.available) return context.skip(confinement.reason ?? "bubblewrap is not available");
    const marker = `/etc/toolfs-mcp-${process.pid}-${runtime}`;
    const { client, stderr } = await stdioClient(await server("--root", ws));
    try {
      const bash = (await client.listTools()).tools.find((t) => t.name === "bash");
      expect(bash?.description).toContain(`Commands run sandboxed: files can be written only in ${ws}`);
      const result = await client.callTool({ name: "bash", arguments: { command: `touch ${marker}; echo made > made.txt; cat made.txt` } });
      expect(textOf(result)).toContain(`touch: cannot touch '${marker}': Read-only file system`);
      expect(textOf(result)).toContain("made\n");
      expect(readFileSync(join(ws, "made.txt"), "utf8")).toBe("made\n");
      expect(existsSync(marker)).toBe(false);
    } finally {
      await client.close();
    }
    expect(stderr()).toBe("");
  });

  test("a denied file is refused by read, glob and grep, and bash cannot see it", async () => {
    await fsp.writeFile(join(ws, ".env"), "TOKEN=hunter2\n");
    const { client, stderr } = await stdioClient(await server("--root", ws, "--deny", ".env"));
    try {
      expect(codeOf(await client.callTool({ name: "read", arguments: { path: ".env" } }))).toBe("FS_SANDBOX_DENIED");
      const glob = await client.callTool({ name: "glob", arguments: { pattern: "*" } });
      expect(textOf(glob)).not.toContain(".env");
      const grep = await client.callTool({ name: "grep", arguments: { pattern: "TOKEN", include: "*" } });
      expect(JSON.stringify(grep)).not.toContain("hunter2");
      const tools = (await client.listTools()).tools.map((t) => t.name);
      if (confinement.available) {
        expect(tools).toContain("bash");
        const bash = await client.callTool({ name: "bash", arguments: { command: "cat .env; wc -c < .env; ls -a" } });
        expect(textOf(bash)).not.toContain("hunter2");
        expect(textOf(bash)).toContain("notes.txt");
      } else {
        expect(tools).not.toContain("bash");
        expect(stderr()).toContain("bash is not available");
      }
    } finally {
      await client.close();
    }
  });

  test("the read scope keeps read, glob, grep and bash inside the roots; --read-scope anywhere lifts it", async (context) => {
    // Not under the temp directories, which are writable, and so readable, roots.
    const elsewhere = outsideTemp("toolfs-mcp-scope-");
    if (!("path" in elsewhere)) return context.skip(elsewhere.reason);
    onTestFinished(elsewhere.dispose);
    const outside = elsewhere.path;
    await fsp.writeFile(join(outside, "private.txt"), "outside the roots\n");
    const scoped = await stdioClient(await server("--root", ws));
    try {
      const read = await scoped.client.callTool({ name: "read", arguments: { path: join(outside, "private.txt") } });
      expect(codeOf(read)).toBe("FS_SANDBOX_DENIED");
      expect(textOf(read)).toContain("outside the readable roots");
      expect(codeOf(await scoped.client.callTool({ name: "glob", arguments: { pattern: "*", path: outside } }))).toBe("FS_SANDBOX_DENIED");
      expect(codeOf(await scoped.client.callTool({ name: "grep", arguments: { pattern: "roots", path: outside } }))).toBe("FS_SANDBOX_DENIED");
      if (confinement.available) {
        const bash = await scoped.client.callTool({ name: "bash", arguments: { command: `cat ${outside}/private.txt` } });
        expect(textOf(bash)).toContain("No such file or directory");
      }
    } finally {
      await scoped.client.close();
    }
    const open = await stdioClient(await server("--root", ws, "--read-scope", "anywhere"));
    try {
      expect(textOf(await open.client.callTool({ name: "read", arguments: { path: join(outside, "private.txt") } }))).toContain("1: outside the roots");
    } finally {
      await open.client.close();
    }
  });

  test("two roots: the second's files are shown and given as its name and the path inside it", async () => {
    const { client } = await stdioClient(await server("--root", ws, "--root", outside));
    const name = outside.slice(outside.lastIndexOf("/") + 1);
    try {
      const read = await client.callTool({ name: "read", arguments: { path: `${name}/private.txt` } });
      expect(read.structuredContent).toMatchObject({ path: `${name}/private.txt`, totalLines: 1 });
      const glob = await client.callTool({ name: "glob", arguments: { pattern: "*.txt", path: name } });
      expect(glob.structuredContent).toMatchObject({ root: name, paths: [`${name}/private.txt`] });
      const write = await client.callTool({ name: "write", arguments: { path: `${name}/new.txt`, content: "second root\n" } });
      expect(write.structuredContent).toMatchObject({ path: `${name}/new.txt`, operation: "create" });
      expect(readFileSync(join(outside, "new.txt"), "utf8")).toBe("second root\n");
      expect(client.getInstructions()).toContain(`Workspace roots: ${ws}, where relative paths start; ${name} (${outside}).`);
    } finally {
      await client.close();
    }
  });
});

test("the sandbox flags' usage errors exit 2 before serving", () => {
  for (const [args, message] of [
    [["--read-scope", "home"], '--read-scope must be one of anywhere, workspace, got "home"'],
    [["--sandbox", "lax"], '--sandbox must be one of read-only, workspace-write, full-access, got "lax"'],
    [["--deny"], "--deny needs a value"],
    [["--deny", "a{b"], 'deny pattern "a{b" is not a valid glob'],
  ] as const) {
    const child = spawnSync(process.execPath, [cli, "mcp", "--root", ws, ...args], { encoding: "utf8", input: "" });
    expect(child.status, args.join(" ")).toBe(2);
    expect(child.stderr).toContain(message);
    expect(child.stdout).toBe("");
  }
});

test.for(Object.keys(servers) as (keyof typeof servers)[])("the v1 client (@modelcontextprotocol/sdk 1.32) drives the stdio server on %s", async (runtime) => {
  const transport = new V1StdioClientTransport({ ...(await servers[runtime]("--root", ws)), env: { PATH: process.env.PATH ?? "" } });
  const client = new V1Client({ name: "v1", version: "1.0.0" });
  await client.connect(transport);
  try {
    expect((await client.listTools()).tools.map((t) => t.annotations?.readOnlyHint)).toEqual([
      true,
      false,
      false,
      true,
      true,
      ...(confinement.available ? [false] : []),
    ]);
    const read = await client.callTool({ name: "read", arguments: { path: "notes.txt" } });
    expect((read.content as { text: string }[])[0]!.text).toContain("1: first line");
    const write = await client.callTool({ name: "write", arguments: { path: "notes.txt", content: "second\n" } });
    expect(write.structuredContent).toMatchObject({ operation: "update", added: 1, removed: 1 });
  } finally {
    await client.close();
  }
});

test("notifications/cancelled stops a running bash command's process tree", async () => {
  const pidFile = join(ws, "pid");
  // Unconfined (full access reads anywhere; nothing denied), so the pid the command prints is the host's.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "mcp", "--root", ws, "--sandbox", "full-access"],
    env: { PATH: process.env.PATH ?? "" },
  });
  const client = new Client({ name: "cancel-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    expect((await client.listTools()).tools.find((t) => t.name === "bash")?.annotations).toMatchObject({ destructiveHint: true, openWorldHint: true });
    const controller = new AbortController();
    const call = client
      .callTool({ name: "bash", arguments: { command: `sleep 300 & echo $! > ${pidFile}; wait` } }, { signal: controller.signal })
      .catch((error: unknown) => error);
    await expect.poll(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"), { timeout: 20_000 }).toBe(true);
    const pid = readFileSync(pidFile, "utf8").trim();
    controller.abort("stop");
    expect(String(await call)).toContain("stop");
    await expect.poll(() => survivors(createNodeProcessRunner(), [pid]), { timeout: 20_000 }).toEqual([]);
    expect((await client.callTool({ name: "read", arguments: { path: "notes.txt" } })).isError).toBeFalsy();
  } finally {
    await client.close();
  }
});

describe.each(Object.entries(servers))("the MCP Inspector's CLI mode (an independent client) against toolfs mcp on %s", (_, server) => {
  const inspect = async (...args: string[]) => {
    const { command, args: serverArgs } = await server("--root", ws);
    return run(process.execPath, [inspector, "--cli", command, ...serverArgs, ...args], {
      cwd: root,
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, "catalog.json"), NO_COLOR: "1" },
    });
  };

  test("lists the tools", async () => {
    const { stdout } = await inspect("--method", "tools/list");
    const { tools } = JSON.parse(stdout) as { tools: { name: string; annotations: Record<string, unknown>; outputSchema: unknown }[] };
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    expect(tools[0]!.annotations).toEqual({ title: "Read file", readOnlyHint: true, openWorldHint: false });
  });

  test("calls read and write", async () => {
    const read = JSON.parse((await inspect("--method", "tools/call", "--tool-name", "read", "--tool-arg", "path=notes.txt")).stdout);
    expect(read.content[0].text).toBe("1: first line\n\n(End of file: 1 line.)");
    const write = JSON.parse(
      (await inspect("--method", "tools/call", "--tool-name", "write", "--tool-arg", "path=new.txt", "content=made by the inspector")).stdout,
    );
    expect(write.structuredContent).toMatchObject({ path: "new.txt", operation: "create" });
    expect(readFileSync(join(ws, "new.txt"), "utf8")).toBe("made by the inspector");
  });
});

// A raw JSON-RPC peer: one line per message, for input no SDK client would send.
function rawPeer(child: ChildProcessWithoutNullStreams) {
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    send: (text: string) => child.stdin.write(`${text}\n`),
    async next(): Promise<Record<string, unknown>> {
      while (lines.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
      return JSON.parse(lines.shift()!) as Record<string, unknown>;
    },
  };
}

test("malformed requests, unknown methods and tools, and huge arguments get JSON-RPC errors; the server keeps serving", async () => {
  const child = spawn(process.execPath, [cli, "mcp", "--root", ws], { stdio: ["pipe", "pipe", "pipe"] });
  const peer = rawPeer(child);
  try {
    peer.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    );
    expect(await peer.next()).toMatchObject({ id: 1, result: { serverInfo: { name: "toolfs" } } });
    peer.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    peer.send("{this is not json");
    peer.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "no/such/method" }));
    expect(await peer.next()).toMatchObject({ id: 2, error: { code: -32601 } });
    peer.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "nope", arguments: {} } }));
    expect(await peer.next()).toMatchObject({ id: 3, error: { code: -32602 } });
    peer.send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { arguments: {} } }));
    expect(await peer.next()).toMatchObject({ id: 4, error: { code: -32602 } });
    peer.send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "grep", arguments: { pattern: "x".repeat(4 << 20) } } }));
    expect(await peer.next()).toMatchObject({ id: 5, result: { isError: true } });
    peer.send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "read", arguments: { path: "notes.txt" } } }));
    expect(await peer.next()).toMatchObject({ id: 6, result: { structuredContent: { path: "notes.txt" } } });
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.once("close", resolve));
  }
});

describe.each(Object.entries(servers))("a message over the line limit, to toolfs mcp on %s over stdio", (_, server) => {
  test("is answered with -32600 (with its id when it has one), logged, and the session goes on", async () => {
    const { command, args } = await server("--root", ws);
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    const peer = rawPeer(child);
    try {
      peer.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
        }),
      );
      expect(await peer.next()).toMatchObject({ id: 1, result: { serverInfo: { name: "toolfs" } } });
      peer.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      // 16 MiB, over the default 10 MiB (the SDK's buffer, on which the server used to end with status 0).
      const huge = "x".repeat(16 << 20);
      peer.send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "write", arguments: { path: "huge.txt", content: huge } } }));
      expect(await peer.next()).toMatchObject({
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32600, data: { messageBytes: (16 << 20) + 117, maxMessageBytes: 10 << 20 } },
      });
      // Its id past what is kept of its start: answered with id null.
      peer.send(`{"jsonrpc":"2.0","params":{"x":"${huge}"},"id":8,"method":"ping"}`);
      expect(await peer.next()).toMatchObject({ id: null, error: { code: -32600 } });
      peer.send(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "read", arguments: { path: "notes.txt" } } }));
      expect(await peer.next()).toMatchObject({ id: 9, result: { structuredContent: { path: "notes.txt" } } });
      expect(existsSync(join(ws, "huge.txt"))).toBe(false);
      expect(stderr).toContain("more than the 10485760 bytes this server reads; it was skipped (id 7)");
    } finally {
      child.stdin.end();
    }
    expect(await exited).toBe(0);
  });
});
