// The open tool registry (issue 19): a tool a host defines with defineTool gets the toolkit's guarantees
// (argument validation, read-before-write, the sandbox and its escalation) and is served by every surface
// (MCP, the AI SDK tool set, the ACP agent) with no adapter knowing its name.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { createEngineBackend, createToolkit, defineTool, partText, resultText } from "../core/mod.ts";
import { RunContext } from "@openai/agents";
import { createScriptedModel, type Model, type ModelMessage } from "../adapters/acp/mod.ts";
import { createOpenAIAgentsTools } from "../adapters/openai-agents/mod.ts";
import { createAiToolSet } from "../adapters/ai/mod.ts";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { memoryRuntime, type Paired, pair } from "../adapters/mcp/support.ts";
import { inProcessAgent } from "./acp-driver.ts";

const wordCount = defineTool({
  name: "word_count",
  description: "Count the words in a text file.",
  schema: z.object({ path: z.string().min(1).describe("File path") }).strict(),
  guidance: "word_count counts the words of a file.",
  traits: { title: "Count words", readOnly: true, destructive: false, idempotent: true, openWorld: false },
  result: { path: { type: "string" }, words: { type: "integer", minimum: 0 } },
  sequenced: true,
  async run(_args, context) {
    const { path, text } = await context.readText();
    const words = text.split(/\s+/).filter((w) => w !== "").length;
    return { content: `${path}: ${words} words`, meta: { path, words } };
  },
});

const shout = defineTool({
  name: "shout",
  description: "Upper-case a text file in place.",
  schema: z.object({ path: z.string().min(1) }).strict(),
  traits: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  sequenced: true,
  mutates: true,
  async run(_args, context) {
    const { text } = await context.readText();
    const { path } = await context.writeText(text.toUpperCase());
    return `Shouted ${path}.`;
  },
});

const files = { "a.txt": "alpha beta\n", "b.txt": "one two three\n", ".env": "SECRET=1\n" };

describe("a host-defined tool in the toolkit", () => {
  test("is listed with its schema and guidance, validated, and run", async () => {
    const fs = createMemoryProvider({ cwd: "/ws", files });
    const kit = createToolkit({ fs, tools: ["read", "write", wordCount] });
    expect(kit.definitions.map((d) => d.name)).toEqual(["read", "write", "word_count"]);
    expect(kit.definitions[2]!.inputSchema).toMatchObject({ type: "object", properties: { path: { type: "string" } }, required: ["path"] });
    expect(kit.guidance).toContain("word_count counts the words of a file.");
    expect(kit.tool("word_count")).toMatchObject({ kind: "read", permission: undefined, traits: { title: "Count words", readOnly: true } });
    expect(await kit.call("word_count", { path: "b.txt" })).toEqual({ content: "b.txt: 3 words", isError: false, meta: { path: "b.txt", words: 3 } });
    expect(await kit.call("word_count", { path: 3 })).toMatchObject({ isError: true, error: { code: "TOOL_INVALID_ARGUMENTS" } });
    expect(await kit.call("word_count", { path: "a.txt", more: 1 })).toMatchObject({ isError: true, error: { code: "TOOL_INVALID_ARGUMENTS" } });
  });

  test("its reads count for read-before-write, and its writes are guarded by them", async () => {
    const fs = createMemoryProvider({ cwd: "/ws", files });
    const kit = createToolkit({ fs, tools: ["read", "write", wordCount, shout] });
    expect(await kit.call("write", { path: "a.txt", content: "x\n" })).toMatchObject({ isError: true, error: { code: "FS_NOT_OBSERVED" } });
    await kit.call("word_count", { path: "a.txt" });
    expect(await kit.call("write", { path: "a.txt", content: "x y\n" })).toMatchObject({ isError: false });
    // shout reads before it writes, so it may; a change behind its back between them is caught.
    expect(await kit.call("shout", { path: "a.txt" })).toEqual({ content: "Shouted a.txt.", isError: false, meta: {} });
    expect(new TextDecoder().decode((await fs.readBytes(await fs.resolve("a.txt"), { maxBytes: 100 })).bytes)).toBe("X Y\n");
  });

  test("the sandbox holds for it: the deny list, the fence, and escalation fields on a mutating one", async () => {
    const fs = createMemoryProvider({ cwd: "/ws", files: { ...files, "/outside/c.txt": "c\n" } });
    const approvals: string[] = [];
    const kit = createToolkit({
      fs,
      tools: [wordCount, shout],
      sandbox: {
        mode: "workspace-write",
        deny: [".env"],
        approve: async (request) => {
          approvals.push(`${request.tool} ${request.path}`);
          return "allowed-once";
        },
      },
    });
    expect(await kit.call("word_count", { path: ".env" })).toMatchObject({ isError: true, error: { code: "FS_SANDBOX_DENIED" } });
    expect(kit.definitions.find((d) => d.name === "shout")!.inputSchema).toMatchObject({ properties: { sandbox_permissions: { enum: ["full-access"] } } });
    expect(kit.definitions.find((d) => d.name === "word_count")!.inputSchema).not.toHaveProperty("properties.sandbox_permissions");
    const refused = await kit.call("shout", { path: "/outside/c.txt" });
    expect(refused).toMatchObject({ isError: true, error: { code: "FS_SANDBOX_DENIED" } });
    expect(refused.content).toContain("sandbox_permissions");
    const retried = await kit.call("shout", { path: "/outside/c.txt", sandbox_permissions: "full-access", justification: "The user asked for it." });
    expect(retried).toMatchObject({ isError: false, content: "Shouted /outside/c.txt." });
    expect(approvals).toEqual(["shout /outside/c.txt"]);
  });

  test("names are checked: malformed, unknown, and twice", () => {
    const fs = createMemoryProvider({ cwd: "/ws", files });
    expect(() => defineTool({ ...({} as Parameters<typeof defineTool>[0]), name: "no spaces" })).toThrow(RangeError);
    expect(() => createToolkit({ fs, tools: ["read", "nope" as "read"] })).toThrow(/unknown tool "nope"/);
    expect(() => createToolkit({ fs, tools: [wordCount, wordCount] })).toThrow(/registered twice/);
  });
});

describe("every surface serves it", () => {
  const open: Paired[] = [];
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((p) => p.close()));
  });

  test("MCP: listed with its title, annotations and output schema; called with structured content", async () => {
    const runtime = memoryRuntime();
    runtime.volume.mkdirSync("/ws", { recursive: true });
    runtime.volume.writeFileSync("/ws/b.txt", "one two three\n");
    const paired = await pair({ runtime, roots: ["/ws"], tools: ["read", wordCount] });
    open.push(paired);
    const { tools } = await paired.client.listTools();
    const listed = tools.find((t) => t.name === "word_count")!;
    expect(listed).toMatchObject({ title: "Count words", annotations: { title: "Count words", readOnlyHint: true, openWorldHint: false } });
    expect(listed.outputSchema).toMatchObject({ type: "object", properties: { words: { type: "integer", minimum: 0 } } });
    const result = await paired.client.callTool({ name: "word_count", arguments: { path: "b.txt" } });
    expect(result.content).toEqual([{ type: "text", text: "b.txt: 3 words" }]);
    expect(result.structuredContent).toEqual({ path: "b.txt", words: 3 });
  });

  test("the AI SDK tool set", async () => {
    const fs = createMemoryProvider({ cwd: "/ws", files });
    const tools = createAiToolSet(createToolkit({ fs, search: createEngineBackend(fs), tools: ["read", wordCount] }));
    const output = await tools.word_count!.execute!({ path: "a.txt" }, { toolCallId: "c", messages: [], context: {} } as never);
    expect(output).toMatchObject({ content: "a.txt: 2 words", isError: false, meta: { words: 2 } });
    expect(tools.word_count!.metadata).toMatchObject({ title: "Count words", readOnly: true });
  });

  test("the ACP agent: shown under its own kind and title, run without asking (read-only), its result reported", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "toolfs-open-tools-"));
    try {
      await writeFile(join(cwd, "b.txt"), "one two three\n");
      const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "word_count", arguments: { path: "b.txt" } }] }, { text: "three" }] });
      const composition = { name: "words", tools: ["read", wordCount] as const, limits: {}, intro: "Count words in {cwd}." };
      const { peer } = inProcessAgent({ model, composition, permissionMode: "ask" });
      await peer.request("initialize", { protocolVersion: 1 });
      const created = await peer.request("session/new", { cwd, mcpServers: [] });
      const sessionId = (created.result as { sessionId: string }).sessionId;
      const response = await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      expect(response.result).toMatchObject({ stopReason: "end_turn" });
      const updates = peer.transcript.flatMap((m) =>
        "agent" in m && m.agent.method === "session/update" ? [(m.agent.params as { update: Record<string, unknown> }).update] : [],
      );
      expect(updates[0]).toMatchObject({
        sessionUpdate: "tool_call",
        title: "word_count in b.txt",
        kind: "read",
        status: "in_progress",
        locations: [{ path: join(cwd, "b.txt") }],
      });
      expect(updates[1]).toMatchObject({
        sessionUpdate: "tool_call_update",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "b.txt: 3 words" } }],
        rawOutput: { isError: false, meta: { path: "b.txt", words: 3 } },
      });
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});

// A 1x1 PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const picture = defineTool({
  name: "picture",
  description: "Show the workspace's picture.",
  schema: z.object({}).strict(),
  traits: { title: "Show picture", readOnly: true, destructive: false, idempotent: true, openWorld: false },
  async run() {
    return {
      content: "The picture.",
      parts: [
        { type: "image", data: PNG, mediaType: "image/png", alt: "a dot" },
        { type: "resource_link", uri: "file:///ws/all.txt", name: "all.txt", mediaType: "text/plain" },
      ],
    };
  },
});

const FALLBACK = "The picture.\n[image: image/png, 70 bytes: a dot]\n[all.txt](file:///ws/all.txt)";

describe("content parts", () => {
  test("the toolkit keeps them beside the text; the text fallback describes each", async () => {
    const kit = createToolkit({ fs: createMemoryProvider({ cwd: "/ws" }), tools: [picture] });
    const result = await kit.call("picture", {});
    expect(result).toMatchObject({ content: "The picture.", isError: false, parts: [{ type: "image", mediaType: "image/png" }, { type: "resource_link" }] });
    expect(partText(result.parts![0]!)).toBe("[image: image/png, 70 bytes: a dot]");
    expect(resultText(result)).toBe(FALLBACK);
    // A built-in tool's result has no parts at all.
    expect(await createToolkit({ fs: createMemoryProvider({ cwd: "/ws", files }), tools: ["read"] }).call("read", { path: "a.txt" })).not.toHaveProperty(
      "parts",
    );
  });

  test("MCP: an image block and a resource link after the text", async () => {
    const runtime = memoryRuntime();
    runtime.volume.mkdirSync("/ws", { recursive: true });
    const paired = await pair({ runtime, roots: ["/ws"], tools: [picture] });
    try {
      await paired.client.listTools();
      const result = await paired.client.callTool({ name: "picture", arguments: {} });
      expect(result.content).toEqual([
        { type: "text", text: "The picture." },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "resource_link", uri: "file:///ws/all.txt", name: "all.txt", mimeType: "text/plain" },
      ]);
    } finally {
      await paired.close();
    }
  });

  test("the AI SDK: a file part for the image, the link in words; OpenAI Agents: an image output, the link in words", async () => {
    const kit = createToolkit({ fs: createMemoryProvider({ cwd: "/ws" }), tools: [picture] });
    const tools = createAiToolSet(kit);
    const output = await tools.picture!.execute!({}, { toolCallId: "c", messages: [], context: {} } as never);
    expect(await tools.picture!.toModelOutput!({ toolCallId: "c", input: {}, output } as never)).toEqual({
      type: "content",
      value: [
        { type: "text", text: "The picture." },
        { type: "file", mediaType: "image/png", data: { type: "data", data: PNG } },
        { type: "text", text: "[all.txt](file:///ws/all.txt)" },
      ],
    });
    const [agentsTool] = createOpenAIAgentsTools(kit);
    expect(await (agentsTool as unknown as { invoke: (c: RunContext, input: string) => Promise<unknown> }).invoke(new RunContext(), "{}")).toEqual([
      { type: "text", text: "The picture.\n[all.txt](file:///ws/all.txt)" },
      { type: "image", image: { data: PNG, mediaType: "image/png" } },
    ]);
  });

  test("ACP: image and link blocks in the tool call's content; the model gets the text fallback", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "toolfs-parts-"));
    const seen: ModelMessage[][] = [];
    const script = createScriptedModel({ turns: [{ toolCalls: [{ name: "picture", arguments: {} }] }, { text: "seen" }] });
    const model: Model = { ...script, next: (request) => (seen.push([...request.messages]), script.next(request)) };
    try {
      const { peer } = inProcessAgent({ model, composition: { name: "pictures", tools: [picture], limits: {}, intro: "In {cwd}." } });
      await peer.request("initialize", { protocolVersion: 1 });
      const created = await peer.request("session/new", { cwd, mcpServers: [] });
      const sessionId = (created.result as { sessionId: string }).sessionId;
      await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      const done = peer.transcript.flatMap((m) =>
        "agent" in m && m.agent.method === "session/update" ? [(m.agent.params as { update: Record<string, unknown> }).update] : [],
      )[1];
      expect(done).toMatchObject({
        sessionUpdate: "tool_call_update",
        content: [
          { type: "content", content: { type: "text", text: "The picture." } },
          { type: "content", content: { type: "image", data: PNG, mimeType: "image/png" } },
          { type: "content", content: { type: "resource_link", uri: "file:///ws/all.txt", name: "all.txt", mimeType: "text/plain" } },
        ],
      });
      expect(seen[1]!.at(-1)).toMatchObject({ role: "tool", content: FALLBACK, isError: false });
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
