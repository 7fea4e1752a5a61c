// read of images and notebooks (issue 21 item 3, docs/notes/0024-read-media.md): each bound as a toolkit
// option, and every surface carrying the image read gives (MCP and ACP image blocks, an AI SDK file part, an
// OpenAI Agents image output).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunContext } from "@openai/agents";
import { describe, expect, test } from "vitest";
import { createScriptedModel } from "../adapters/acp/mod.ts";
import { createAiToolSet } from "../adapters/ai/mod.ts";
import { memoryRuntime, pair } from "../adapters/mcp/support.ts";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createOpenAIAgentsTools } from "../adapters/openai-agents/mod.ts";
import { base64, png } from "../conformance/media.ts";
import { createToolkit, type ToolLimits } from "../core/mod.ts";
import { inProcessAgent } from "./acp-driver.ts";

function kit(files: Record<string, string | Uint8Array>, limits?: Partial<ToolLimits>) {
  const fs = createMemoryProvider({ cwd: "/ws" });
  const ready = Promise.all(
    Object.entries(files).map(async ([name, data]) =>
      fs.write(await fs.resolve(`/ws/${name}`), typeof data === "string" ? new TextEncoder().encode(data) : data),
    ),
  );
  const toolkit = createToolkit({ fs, tools: ["read"], ...(limits ? { limits } : {}) });
  return { call: async (args: Record<string, unknown>) => (await ready, toolkit.call("read", args)) };
}

const notebook = (cells: unknown[]): string => JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 });
const figureCell = (image: Uint8Array) => ({
  cell_type: "code",
  source: "plot()",
  outputs: [{ output_type: "display_data", data: { "image/png": base64(image) } }],
});

describe("read's image bounds", () => {
  test("imageBytes: a file of exactly the bound is sent, one byte more is refused with its size and the bound", async () => {
    const image = png(10, 10, 100);
    const { call } = kit({ "a.png": image }, { imageBytes: image.length });
    expect(await call({ path: "a.png" })).toMatchObject({ isError: false, parts: [{ type: "image", mediaType: "image/png" }] });
    const over = await kit({ "a.png": image }, { imageBytes: image.length - 1 }).call({ path: "a.png" });
    expect(over).toMatchObject({ isError: true, error: { code: "FS_TOO_LARGE" } });
    expect(over.content).toBe(
      `Cannot read "a.png": it is a PNG image of ${image.length} bytes, over the ${image.length - 1}-byte limit for images (read does not resize images)`,
    );
    expect(over.parts).toBeUndefined();
  });

  test("imageMaxSide: either side over the bound is refused, the bound itself is sent", async () => {
    const { call } = kit({ "w.png": png(101, 5), "h.png": png(5, 101), "ok.png": png(100, 100) }, { imageMaxSide: 100, imagePixels: 1e9 });
    for (const path of ["w.png", "h.png"]) {
      const result = await call({ path });
      expect(result).toMatchObject({ isError: true, error: { code: "FS_TOO_LARGE" } });
      expect(result.content).toContain("over the 100-pixel limit on a side");
    }
    expect((await call({ path: "ok.png" })).isError).toBe(false);
  });

  test("imagePixels: width times height over the bound is refused, the bound itself is sent", async () => {
    const { call } = kit({ "big.png": png(101, 100), "ok.png": png(100, 100) }, { imagePixels: 10_000 });
    const result = await call({ path: "big.png" });
    expect(result).toMatchObject({ isError: true, error: { code: "FS_TOO_LARGE" } });
    expect(result.content).toBe('Cannot read "big.png": it is a PNG image of 101x100 pixels (10100), over the 10000-pixel limit (read does not resize images)');
    expect((await call({ path: "ok.png" })).isError).toBe(false);
  });
});

describe("read's notebook bounds", () => {
  test("notebookBytes: a larger notebook is refused with its size and the bound", async () => {
    const text = notebook([{ cell_type: "code", source: "x = 1", outputs: [] }]);
    expect((await kit({ "n.ipynb": text }, { notebookBytes: text.length }).call({ path: "n.ipynb" })).isError).toBe(false);
    const over = await kit({ "n.ipynb": text }, { notebookBytes: text.length - 1 }).call({ path: "n.ipynb" });
    expect(over).toMatchObject({ isError: true, error: { code: "FS_TOO_LARGE" } });
    expect(over.content).toBe(`Cannot read "n.ipynb": the notebook is ${text.length} bytes, over the ${text.length - 1}-byte limit for notebooks`);
  });

  test("readBytes caps the cells shown; the footer names the next offset", async () => {
    const cells = Array.from({ length: 10 }, (_, i) => ({ cell_type: "code", source: `${"x".repeat(90)} ${i + 1}`, outputs: [] }));
    const result = await kit({ "n.ipynb": notebook(cells) }, { readBytes: 350 }).call({ path: "n.ipynb" });
    expect(result.content).toContain("[3] code");
    expect(result.content).not.toContain("[4] code");
    expect(result.content.endsWith("(Output capped at the byte limit: cells 1-3 of 10. Continue with offset=4.)")).toBe(true);
    expect(result.meta).toMatchObject({ cells: 3, totalCells: 10, truncated: true });
  });

  test("an output image over a bound is described, not sent; images past the call's byte budget wait for a later offset", async () => {
    const small = png(4, 4, 200);
    const { call } = kit(
      { "n.ipynb": notebook([figureCell(png(300, 2)), figureCell(small), figureCell(small)]) },
      { imageMaxSide: 100, imageBytes: small.length + 10 },
    );
    const result = await call({ path: "n.ipynb" });
    expect(result.content).toContain("[1] image/png output: 300x2 pixels, over the 100-pixel limit on a side (not shown; read does not resize images)");
    expect(result.content).toContain(`[2] image/png output: PNG image, 4x4 pixels, ${small.length} bytes (an image part)`);
    expect(result.content).toContain(
      `[3] image/png output: ${small.length} bytes, over what is left of this call's ${small.length + 10}-byte image budget (not shown; read from offset=3)`,
    );
    expect(result.parts).toEqual([
      { type: "image", data: base64(small), mediaType: "image/png", alt: `cell 2 output: PNG image, 4x4 pixels, ${small.length} bytes` },
    ]);
    expect((await call({ path: "n.ipynb", offset: 3 })).parts).toHaveLength(1);
  });

  test("an output image whose data is not the image it claims is described, not sent", async () => {
    const cell = { cell_type: "code", source: "", outputs: [{ output_type: "display_data", data: { "image/png": base64(new TextEncoder().encode("no")) } }] };
    const result = await kit({ "n.ipynb": notebook([cell]) }).call({ path: "n.ipynb" });
    expect(result.content).toContain("[1] image/png output: not a valid image (not shown)");
    expect(result.parts).toBeUndefined();
  });
});

const IMAGE = png(2, 3);
const DATA = base64(IMAGE);
const LINE = `shot.png: PNG image, 2x3 pixels, ${IMAGE.length} bytes.`;

describe("every surface carries the image read gives", () => {
  test("MCP: the text, then an image content block", async () => {
    const runtime = memoryRuntime();
    runtime.volume.mkdirSync("/ws", { recursive: true });
    runtime.volume.writeFileSync("/ws/shot.png", IMAGE);
    const paired = await pair({ runtime, roots: ["/ws"], tools: ["read"] });
    try {
      const result = await paired.client.callTool({ name: "read", arguments: { path: "shot.png" } });
      expect(result.content).toEqual([
        { type: "text", text: LINE },
        { type: "image", data: DATA, mimeType: "image/png" },
      ]);
    } finally {
      await paired.close();
    }
  });

  test("the AI SDK: a file part; OpenAI Agents: a text output and an image output", async () => {
    const fs = createMemoryProvider({ cwd: "/ws" });
    await fs.write(await fs.resolve("/ws/shot.png"), IMAGE);
    const toolkit = createToolkit({ fs, tools: ["read"] });
    const tools = createAiToolSet(toolkit);
    const output = await tools.read!.execute!({ path: "shot.png" }, { toolCallId: "c", messages: [], context: {} } as never);
    expect(await tools.read!.toModelOutput!({ toolCallId: "c", input: {}, output } as never)).toEqual({
      type: "content",
      value: [
        { type: "text", text: LINE },
        { type: "file", mediaType: "image/png", data: { type: "data", data: DATA } },
      ],
    });
    const [agentsTool] = createOpenAIAgentsTools(toolkit);
    const invoke = (agentsTool as unknown as { invoke: (c: RunContext, input: string) => Promise<unknown> }).invoke;
    expect(await invoke.call(agentsTool, new RunContext(), JSON.stringify({ path: "shot.png" }))).toEqual([
      { type: "text", text: LINE },
      { type: "image", image: { data: DATA, mediaType: "image/png" } },
    ]);
  });

  test("ACP: an image block in the tool call's content", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "toolfs-read-media-"));
    await writeFile(join(cwd, "shot.png"), IMAGE);
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "read", arguments: { path: "shot.png" } }] }, { text: "seen" }] });
    try {
      const { peer } = inProcessAgent({ model, composition: { name: "reader", tools: ["read"], limits: {}, intro: "In {cwd}." } });
      await peer.request("initialize", { protocolVersion: 1 });
      const created = await peer.request("session/new", { cwd, mcpServers: [] });
      const sessionId = (created.result as { sessionId: string }).sessionId;
      await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      const updates = peer.transcript.flatMap((m) =>
        "agent" in m && m.agent.method === "session/update" ? [(m.agent.params as { update: Record<string, unknown> }).update] : [],
      );
      expect(updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed")).toMatchObject({
        content: [
          { type: "content", content: { type: "text", text: LINE } },
          { type: "content", content: { type: "image", data: DATA, mimeType: "image/png" } },
        ],
      });
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
