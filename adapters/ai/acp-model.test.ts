// createAiSdkModel: an AI SDK LanguageModel as the ACP agent's Model, checked against the AI SDK's mock model.
import { APICallError } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { expect, test } from "vitest";
import { ModelError, type ModelRequest } from "../acp/model.ts";
import { createAiSdkModel } from "./mod.ts";

const usage = { inputTokens: { total: 120, noCache: 100, cacheRead: 20, cacheWrite: 0 }, outputTokens: { total: 7, text: 7, reasoning: 0 } };
const stream = (parts: object[], unified = "stop") => ({
  stream: convertArrayToReadableStream([
    { type: "stream-start", warnings: [] },
    ...parts,
    { type: "finish", finishReason: { unified, raw: undefined }, usage },
  ] as never[]),
});

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: "You are a coding agent.",
  tools: [
    { name: "read", description: "Reads a file.", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  ] as ModelRequest["tools"],
  messages: [
    { role: "user", text: "Read a.txt" },
    { role: "assistant", text: "", toolCalls: [{ id: "c1", name: "read", arguments: { path: "a.txt" } }] },
    { role: "tool", callId: "c1", content: "no such file", isError: true, code: "FS_NOT_FOUND" },
  ],
  signal: new AbortController().signal,
  ...overrides,
});

test("one step: the header, the conversation with named tool results, streamed text and thoughts, tool calls, usage", async () => {
  const mock = new MockLanguageModelV4({
    doStream: stream(
      [
        { type: "reasoning-start", id: "r" },
        { type: "reasoning-delta", id: "r", delta: "look again" },
        { type: "reasoning-end", id: "r" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Trying " },
        { type: "text-delta", id: "t", delta: "b.txt." },
        { type: "text-end", id: "t" },
        { type: "tool-call", toolCallId: "c2", toolName: "read", input: '{"path":"b.txt"}' },
        { type: "tool-call", toolCallId: "c3", toolName: "read", input: "{not json" },
      ],
      "tool-calls",
    ),
  });
  const texts: string[] = [];
  const thoughts: string[] = [];
  const reply = await createAiSdkModel(mock, { contextWindow: 1000 }).next(
    request({ onText: async (d) => void texts.push(d), onThought: async (d) => void thoughts.push(d) }),
  );
  expect(reply).toEqual({
    text: "Trying b.txt.",
    toolCalls: [
      { id: "c2", name: "read", arguments: { path: "b.txt" } },
      { id: "c3", name: "read", arguments: undefined, invalidArguments: "{not json" },
    ],
    usage: { inputTokens: 120, outputTokens: 7, cachedInputTokens: 20 },
  });
  expect(texts).toEqual(["Trying ", "b.txt."]);
  expect(thoughts).toEqual(["look again"]);
  const call = mock.doStreamCalls[0]!;
  expect(call.prompt[0]).toMatchObject({ role: "system", content: "You are a coding agent." });
  expect(call.prompt.at(-1)).toMatchObject({
    role: "tool",
    content: [{ type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "error-text", value: "Error FS_NOT_FOUND: no such file" } }],
  });
  expect(call.tools?.map((t) => t.name)).toEqual(["read"]);
});

test("a reply cut at the token limit stops with max_tokens", async () => {
  const mock = new MockLanguageModelV4({
    doStream: stream(
      [
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "…" },
        { type: "text-end", id: "t" },
      ],
      "length",
    ),
  });
  expect((await createAiSdkModel(mock).next(request())).stopReason).toBe("max_tokens");
});

test("a provider's refusal becomes the drivers' coded ModelError", async () => {
  const mock = new MockLanguageModelV4({
    doStream: async () => {
      throw new APICallError({ message: "bad key", url: "https://example.invalid", requestBodyValues: {}, statusCode: 401, isRetryable: false });
    },
  });
  const error = await createAiSdkModel(mock, { maxRetries: 0 })
    .next(request())
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ModelError);
  expect(error).toMatchObject({ code: "MODEL_AUTH_FAILED" });
  expect((error as Error).message).toContain("bad key");
});

test("a cancelled turn ends the request mid-stream: next rejects, the stream is not read to its end", async () => {
  const controller = new AbortController();
  let cancelled = false;
  const mock = new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(c) {
          c.enqueue({ type: "stream-start", warnings: [] });
          c.enqueue({ type: "text-start", id: "t" });
          c.enqueue({ type: "text-delta", id: "t", delta: "thinking…" });
          // Never closes: only the abort can end it.
        },
        cancel() {
          cancelled = true;
        },
      }) as never,
    }),
  });
  const reply = createAiSdkModel(mock).next(request({ signal: controller.signal, onText: async () => controller.abort() }));
  await expect(reply).rejects.toBeDefined();
  expect(controller.signal.aborted).toBe(true);
  expect(cancelled).toBe(true);
});
