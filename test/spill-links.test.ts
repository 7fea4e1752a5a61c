// Spill links (issue 19, item 2): an over-cap glob or grep whose complete list was saved by a store with URIs
// carries a resource_link to it; each surface shows it in its own shape, or not at all where the text already
// names the file; MCP serves that file, and only the ones its own session was given, through resources/read.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunContext } from "@openai/agents";
import { ProtocolError } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, test } from "vitest";
import { createEngineBackend, createFsSpillStore, createMemorySpillStore, createToolkit, type FileSystem, resultText, type ToolResult } from "../core/mod.ts";
import { createScriptedModel, type Model, type ModelMessage } from "../adapters/acp/mod.ts";
import { createAiToolSet } from "../adapters/ai/mod.ts";
import { runCli } from "../adapters/cli/cli.ts";
import type { McpRuntime, McpWorkspace } from "../adapters/mcp/mod.ts";
import { type Paired, pair } from "../adapters/mcp/support.ts";
import { createMemoryProvider, createMemoryVolume } from "../adapters/memory/mod.ts";
import { createNodeProvider } from "../adapters/node/mod.ts";
import { createOpenAIAgentsTools } from "../adapters/openai-agents/mod.ts";
import { inProcessAgent } from "./acp-driver.ts";

// A folder whose name needs percent-encoding in a URI: a space, a # and a %.
const SPILL = "/tmp/toolfs spill #1%";
const ENCODED = "file:///tmp/toolfs%20spill%20%231%25/";
const LIMITS = { globMaxResults: 3, grepMaxMatches: 3 };
// 1,001 files: over the page cap, and a count that shows its thousands separator.
const FILES = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${String(i).padStart(4, "0")}.txt`, "hit\n"]));

function memoryKit(spill: "fs" | "memory" = "fs") {
  const volume = createMemoryVolume();
  const fs = createMemoryProvider({ cwd: "/ws", files: FILES, volume });
  const store = spill === "fs" ? createFsSpillStore(fs, SPILL) : createMemorySpillStore();
  return { volume, kit: createToolkit({ fs, search: createEngineBackend(fs), spill: store, limits: LIMITS }) };
}

/** The one link part of a result, checked against the spill its meta names. */
function spillLink(result: ToolResult, tool: "glob" | "grep") {
  expect(result.parts).toHaveLength(1);
  const link = result.parts![0]!;
  if (link.type !== "resource_link") throw new Error("not a link");
  const spill = result.meta.spill as string;
  expect(link.name).toMatch(new RegExp(`^${tool}-\\d{8}T\\d{6}-\\d+-[0-9a-f]{6}\\.txt$`));
  expect(spill).toBe(`${SPILL}/${link.name}`);
  expect(link.uri).toBe(`${ENCODED}${link.name}`);
  expect(decodeURIComponent(new URL(link.uri).pathname)).toBe(spill);
  return link;
}

describe("the built-in tools", () => {
  test("an over-cap glob and grep link their spill: a percent-encoded file: URI, its name, text/plain and what it holds", async () => {
    const { kit, volume } = memoryKit();
    const glob = await kit.call("glob", { pattern: "*" });
    expect(spillLink(glob, "glob")).toMatchObject({ mediaType: "text/plain", description: "all 1,001 paths, oldest first", inText: true });
    expect(String(volume.readFileSync(glob.meta.spill as string, "utf8")).split("\n")).toHaveLength(1002);
    const grep = await kit.call("grep", { pattern: "hit" });
    expect(spillLink(grep, "grep")).toMatchObject({ mediaType: "text/plain", description: "all 1,001 matches, by file", inText: true });
    // The text stands on its own and names the spill once; the text fallback adds nothing to it.
    for (const result of [glob, grep]) {
      expect(result.content.split(result.meta.spill as string)).toHaveLength(2);
      expect(resultText(result)).toBe(result.content);
    }
  });

  test("a result that did not spill, or whose store gives no URI, has no part", async () => {
    const { kit } = memoryKit();
    const small = await kit.call("glob", { pattern: "f000[12].txt" });
    expect([small.isError, small.parts, small.meta.spill]).toEqual([false, undefined, undefined]);
    expect((await kit.call("grep", { pattern: "hit", path: "f0001.txt" })).parts).toBeUndefined();
    // A memory store spills (the footer names its locator) but has no URI to link to.
    const memory = await memoryKit("memory").kit.call("glob", { pattern: "*" });
    expect([memory.meta.spill, memory.parts]).toEqual(["spill:glob/1", undefined]);
    // Guard: the same call on the file store does link, so the absence above is the store's.
    expect((await memoryKit().kit.call("glob", { pattern: "*" })).parts).toHaveLength(1);
  });
});

describe("MCP", () => {
  const open: Paired[] = [];
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((p) => p.close()));
  });

  // Sessions of one runtime share one volume and one workspace (and so one spill store), as on one disk.
  function runtime(): McpRuntime & { volume: ReturnType<typeof createMemoryVolume> } {
    const volume = createMemoryVolume();
    volume.mkdirSync("/ws", { recursive: true });
    for (const [name, content] of Object.entries(FILES)) volume.writeFileSync(`/ws/${name}`, content);
    const workspaces = new Map<string, McpWorkspace>();
    return {
      volume,
      tempRoots: ["/tmp"],
      async workspace(roots) {
        const key = roots.join("\0");
        let workspace = workspaces.get(key);
        if (!workspace) {
          const fs: FileSystem = createMemoryProvider({ volume, cwd: roots[0] ?? "/" });
          workspace = { fs, search: createEngineBackend(fs), spill: createFsSpillStore(fs, SPILL) };
          workspaces.set(key, workspace);
        }
        return workspace;
      },
      realDirectory: async (path) => path,
    };
  }

  async function connect(rt: McpRuntime) {
    const paired = await pair({ runtime: rt, roots: ["/ws"], limits: LIMITS });
    open.push(paired);
    await paired.client.listTools();
    return paired.client;
  }

  // Invalid Params (-32602), as the SDK answers a resources/read miss, naming what is served.
  const refused = (promise: Promise<unknown>) =>
    expect(promise).rejects.toSatisfy(
      (e) => e instanceof ProtocolError && e.code === -32602 && /Unknown resource .*serves only the spill files/.test(e.message),
    );

  test("the result has a resource_link block after the text, and resources/read of it returns the spill's text", async () => {
    const rt = runtime();
    const client = await connect(rt);
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    const glob = await client.callTool({ name: "glob", arguments: { pattern: "*" } });
    const [text, link, ...rest] = glob.content as { type: string; text?: string; uri?: string; name?: string }[];
    expect(rest).toEqual([]);
    expect(text!.type).toBe("text");
    const name = (glob.structuredContent as { spill: string }).spill.slice(SPILL.length + 1);
    expect(link).toEqual({ type: "resource_link", uri: `${ENCODED}${name}`, name, mimeType: "text/plain", description: "all 1,001 paths, oldest first" });
    const read = await client.readResource({ uri: link!.uri! });
    expect(read.contents).toEqual([{ uri: link!.uri, mimeType: "text/plain", text: String(rt.volume.readFileSync(`${SPILL}/${name}`, "utf8")) }]);
    expect((read.contents[0] as { text: string }).text.split("\n")).toHaveLength(1002);
    expect((await client.listResources()).resources).toEqual([{ uri: link!.uri, name, mimeType: "text/plain", description: "all 1,001 paths, oldest first" }]);
    // A glob that fits its page links nothing.
    expect((await client.callTool({ name: "glob", arguments: { pattern: "f0001.txt" } })).content).toHaveLength(1);
  });

  test("resources/read refuses every other URI: another file, a .. path, another folder, another spelling, another session's spill", async () => {
    const rt = runtime();
    const client = await connect(rt);
    const glob = await client.callTool({ name: "glob", arguments: { pattern: "*" } });
    const uri = (glob.content as { uri?: string }[])[1]!.uri!;
    const name = uri.slice(ENCODED.length);
    rt.volume.writeFileSync(`${SPILL}/glob-forged.txt`, "forged\n");
    rt.volume.mkdirSync("/tmp/toolfs-spill-999", { recursive: true });
    rt.volume.writeFileSync(`/tmp/toolfs-spill-999/${name}`, "another user's\n");
    const other = await connect(rt);
    const theirs = (await other.callTool({ name: "glob", arguments: { pattern: "*" } })).content as { uri?: string }[];
    for (const forged of [
      "file:///ws/f0001.txt",
      `${ENCODED}glob-forged.txt`,
      `${ENCODED}../../ws/f0001.txt`,
      // The same file through "..": the URL resolves to it, but it is not the URI given.
      `${ENCODED}../toolfs%20spill%20%231%25/${name}`,
      `file:///tmp/toolfs-spill-999/${name}`,
      uri.replace("/glob-", "/%67lob-"),
      theirs[1]!.uri!,
    ]) {
      await refused(client.readResource({ uri: forged }));
    }
    // Each session still reads its own.
    expect((await other.readResource({ uri: theirs[1]!.uri! })).contents).toHaveLength(1);
    expect((await client.readResource({ uri })).contents).toHaveLength(1);
  });
});

describe("the text surfaces: the model reads the footer once", () => {
  test("AI SDK: the result keeps the link, the model gets the text alone; OpenAI Agents and the CLI print the text", async () => {
    const { kit } = memoryKit();
    const tools = createAiToolSet(kit);
    const output = (await tools.glob!.execute!({ pattern: "*" }, { toolCallId: "c", messages: [], context: {} } as never)) as ToolResult;
    spillLink(output, "glob");
    expect(await tools.glob!.toModelOutput!({ toolCallId: "c", input: {}, output } as never)).toEqual({ type: "text", value: output.content });
    const glob = createOpenAIAgentsTools(kit).find((t) => t.name === "glob")!;
    const agents = await (glob as unknown as { invoke: (c: RunContext, input: string) => Promise<unknown> }).invoke(new RunContext(), '{"pattern":"*"}');
    expect(agents).toMatch(/^f0000\.txt\n/);
    expect(String(agents).split(`${SPILL}/`)).toHaveLength(2);
    expect(String(agents)).not.toContain("file://");

    const volume = createMemoryVolume();
    const fs = createMemoryProvider({ cwd: "/ws", files: FILES, volume });
    const host = {
      stdout: "",
      cwd: "/ws",
      tempRoots: ["/tmp"],
      spillDirectory: SPILL,
      realDirectory: async (path: string) => path,
      provider: async () => fs,
      search: () => createEngineBackend(fs),
      out: (text: string) => void (host.stdout += text),
      err: () => {},
      ask: undefined,
    };
    expect(await runCli(["--backend", "memory", "glob", '{"pattern":"*"}'], host)).toBe(0);
    expect(host.stdout.split(`${SPILL}/`)).toHaveLength(2);
    expect(host.stdout).not.toContain("file://");
    // --json gives the whole result, the link with it.
    host.stdout = "";
    expect(await runCli(["--backend", "memory", "--json", "glob", '{"pattern":"*"}'], host)).toBe(0);
    spillLink(JSON.parse(host.stdout) as ToolResult, "glob");
  });
});

describe("ACP", () => {
  test("a resource_link block in the tool call's content; the model's text is the result's text", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "toolfs-spill-links-"));
    const temp = await mkdtemp(join(tmpdir(), "toolfs-spill-links-store-"));
    const seen: ModelMessage[][] = [];
    const script = createScriptedModel({
      turns: [
        { toolCalls: [{ name: "glob", arguments: { pattern: "*" } }] },
        { toolCalls: [{ name: "glob", arguments: { pattern: "a1.txt" } }] },
        { text: "seen" },
      ],
    });
    const model: Model = { ...script, next: (request) => (seen.push([...request.messages]), script.next(request)) };
    try {
      for (let i = 0; i < 6; i++) await writeFile(join(cwd, `a${i}.txt`), "x\n");
      await mkdir(join(temp, "spill"));
      const store = createFsSpillStore(createNodeProvider({ cwd: temp }), join(temp, "spill"));
      const composition = { name: "globbing", tools: ["glob" as const], limits: LIMITS, intro: "In {cwd}." };
      const { peer } = inProcessAgent({ model, composition, spill: store });
      await peer.request("initialize", { protocolVersion: 1 });
      const created = await peer.request("session/new", { cwd, mcpServers: [] });
      const sessionId = (created.result as { sessionId: string }).sessionId;
      await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      const done = peer.transcript
        .flatMap((m) => ("agent" in m && m.agent.method === "session/update" ? [(m.agent.params as { update: Record<string, unknown> }).update] : []))
        .filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed") as { content: { content: Record<string, string> }[] }[];
      expect(done).toHaveLength(2);
      const [text, link, ...rest] = done[0]!.content;
      expect(rest).toEqual([]);
      const name = link!.content.name!;
      expect(link!.content).toEqual({
        type: "resource_link",
        uri: `file://${join(temp, "spill", name)}`,
        name,
        mimeType: "text/plain",
        description: "all 6 paths, oldest first",
      });
      const listed = (await readFile(new URL(link!.content.uri!), "utf8")).split("\n").filter((line) => line !== "");
      expect(listed.sort()).toEqual(["a0.txt", "a1.txt", "a2.txt", "a3.txt", "a4.txt", "a5.txt"]);
      // The model reads exactly the text shown, which names the spill once.
      expect(seen[1]!.at(-1)).toMatchObject({ role: "tool", content: text!.content.text, isError: false });
      expect(text!.content.text!.split(join(temp, "spill", name))).toHaveLength(2);
      // A glob that fits its page: the text alone.
      expect(done[1]!.content).toHaveLength(1);
    } finally {
      await rm(cwd, { recursive: true, force: true });
      await rm(temp, { recursive: true, force: true });
    }
  });
});
