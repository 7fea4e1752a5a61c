// toolfs/ai: the toolkit as an AI SDK ToolSet, checked through the AI SDK's own tool objects.
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, test } from "vitest";
import { createEngineBackend, createToolkit, fromWholeResults, type SearchBackend } from "../../core/mod.ts";
import { createMemoryProvider } from "../memory/mod.ts";
import { createAiToolSet } from "./mod.ts";

function kit(search?: SearchBackend) {
  const fs = createMemoryProvider({ cwd: "/ws", files: { "a.txt": "alpha\n" } });
  return createToolkit({ fs, search: search ?? createEngineBackend(fs) });
}

const options = (abortSignal?: AbortSignal) => ({ toolCallId: "call", messages: [], context: {}, ...(abortSignal ? { abortSignal } : {}) });

describe("createAiToolSet", () => {
  test("keeps each tool's description and JSON Schema", () => {
    const toolkit = kit();
    const tools = createAiToolSet(toolkit);
    expect(Object.keys(tools)).toEqual(toolkit.definitions.map((d) => d.name));
    for (const definition of toolkit.definitions) {
      expect(tools[definition.name]!.description).toBe(definition.description);
      expect((tools[definition.name]!.inputSchema as { jsonSchema: unknown }).jsonSchema).toEqual(definition.inputSchema);
    }
  });

  test("results are the toolkit's: text for the model, meta and the error code kept for UIs", async () => {
    const tools = createAiToolSet(kit());
    const read = await tools.read!.execute!({ path: "a.txt" }, options());
    expect(read).toMatchObject({ content: "1: alpha\n\n(End of file: 1 line.)", isError: false, meta: { path: "a.txt", totalLines: 1 } });
    expect(await tools.read!.toModelOutput!({ toolCallId: "call", input: {}, output: read } as never)).toEqual({ type: "text", value: read.content });
    const bad = await tools.read!.execute!({ path: 7 }, options());
    expect(bad).toMatchObject({ isError: true, error: { code: "TOOL_INVALID_ARGUMENTS" } });
    expect(await tools.read!.toModelOutput!({ toolCallId: "call", input: {}, output: bad } as never)).toEqual({ type: "error-text", value: bad.content });
  });

  test("the abort signal reaches the running call", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let aborted = false;
    const blocking: SearchBackend = fromWholeResults({
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
    });
    const tools = createAiToolSet(kit(blocking));
    const controller = new AbortController();
    const call = tools.glob!.execute!({ pattern: "*" }, options(controller.signal));
    await running;
    controller.abort();
    expect(await call).toMatchObject({ isError: true });
    expect(aborted).toBe(true);
  });

  test("two tool sets are two actors: one's read does not authorize the other's write", async () => {
    const toolkit = kit();
    const [first, second] = [createAiToolSet(toolkit), createAiToolSet(toolkit)];
    await first.read!.execute!({ path: "a.txt" }, options());
    expect(await second.write!.execute!({ path: "a.txt", content: "x" }, options())).toMatchObject({ error: { code: "FS_NOT_OBSERVED" } });
    expect(await first.write!.execute!({ path: "a.txt", content: "x" }, options())).toMatchObject({ isError: false });
  });

  test("generateText runs a tool loop over the set", async () => {
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [{ type: "tool-call", toolCallId: "1", toolName: "read", input: '{"path":"a.txt"}' }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        },
        { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
      ],
    });
    const result = await generateText({ model, tools: createAiToolSet(kit()), stopWhen: isStepCount(3), prompt: "read a.txt" });
    expect(result.text).toBe("done");
    expect(result.steps[0]!.toolResults[0]!.output).toMatchObject({ meta: { path: "a.txt" } });
    // The model saw the text, not the object.
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain("1: alpha");
  });
});
