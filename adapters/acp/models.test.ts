// The model drivers against loopback fakes of their wire protocols (test/fake-models.ts): streaming text and
// tool calls split mid-JSON, usage, retries that honour retry-after, errors, cancellation, broken streams.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { errorBodies, type FakeServer, type Protocol, startFakeModel } from "../../test/fake-models.ts";
import {
  createAnthropicModel,
  createModel,
  createOpenAIModel,
  type HttpDriverOptions,
  type Model,
  ModelError,
  type ModelMessage,
  type ModelRequest,
  retryAfterMs,
} from "./mod.ts";

const tools = [{ name: "read", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
const user: ModelMessage = { role: "user", text: "go" };

let fake: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A driver for `protocol` against the fake, whose waits are recorded instead of slept. */
function driver(protocol: Protocol, baseUrl: string, extra: Partial<HttpDriverOptions> = {}) {
  const waits: number[] = [];
  const logs: string[] = [];
  const options: HttpDriverOptions = {
    model: "fake-model",
    baseUrl,
    apiKey: "sk-secret-key-123",
    retry: { retries: 2, baseDelayMs: 100, sleep: async (ms) => void waits.push(ms) },
    log: (line) => logs.push(line),
    ...extra,
  };
  const model: Model = protocol === "openai" ? createOpenAIModel(options) : createAnthropicModel(options);
  return { model, waits, logs };
}

function request(messages: readonly ModelMessage[] = [user], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: "You are a test.", tools, messages, signal: new AbortController().signal, ...extra };
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

const errors = {
  openai: {
    rateLimit: errorBodies.openai.rateLimit,
    badKey: errorBodies.openai.badKey,
    badRequest: errorBodies.openai.badRequest,
    server: errorBodies.openai.server,
  },
  anthropic: {
    rateLimit: errorBodies.anthropic.rateLimit,
    badKey: errorBodies.anthropic.badKey,
    badRequest: errorBodies.anthropic.badRequest,
    server: errorBodies.anthropic.overloaded,
  },
};

describe.each(["openai", "anthropic"] as const)("the %s driver", (protocol) => {
  test("streams text in pieces and several tool calls whose arguments arrive split mid-JSON, with usage", async () => {
    const args1 = { path: "src/a long name.ts" };
    const args2 = { path: "b.ts", note: 'quote " and brace }' };
    fake = await startFakeModel({
      protocol,
      piece: 3,
      script: {
        turns: [
          {
            text: "Reading both.",
            toolCalls: [
              { name: "read", arguments: args1 },
              { name: "read", arguments: args2 },
            ],
          },
        ],
      },
    });
    const { model } = driver(protocol, fake.baseUrl);
    const pieces: string[] = [];
    const reply = await model.next(request([user], { onText: async (d) => void pieces.push(d) }));
    expect(pieces).toEqual(["Rea", "din", "g b", "oth", "."]);
    expect(reply.text).toBe("Reading both.");
    expect(reply.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ["read", args1],
      ["read", args2],
    ]);
    expect(new Set(reply.toolCalls.map((c) => c.id)).size).toBe(2);
    expect(reply.usage!.inputTokens).toBeGreaterThan(0);
    expect(reply.usage!.outputTokens).toBeGreaterThan(0);
    expect(reply.stopReason).toBeUndefined();
  });

  test("sends the header, the conversation and the tool results with their error codes as the protocol wants", async () => {
    fake = await startFakeModel({ protocol, script: { turns: [{ toolCalls: [{ name: "read", arguments: { path: "x" } }] }, { text: "ok" }] } });
    const { model } = driver(protocol, fake.baseUrl);
    const first = await model.next(request());
    const call = first.toolCalls[0]!;
    const history: ModelMessage[] = [
      user,
      { role: "assistant", text: "", toolCalls: first.toolCalls },
      { role: "tool", callId: call.id, content: 'File "x" does not exist', isError: true, code: "FS_NOT_FOUND" },
      { role: "user", text: "and now?" },
    ];
    expect((await model.next(request(history))).text).toBe("ok");
    const [one, two] = fake.requests;
    expect(one!.body.model).toBe("fake-model");
    expect(one!.body.stream).toBe(true);
    if (protocol === "openai") {
      expect(one!.headers.authorization).toBe("Bearer sk-secret-key-123");
      expect(one!.body.stream_options).toEqual({ include_usage: true });
      expect(one!.body.tools).toEqual([{ type: "function", function: { name: "read", description: "Read a file", parameters: tools[0]!.inputSchema } }]);
      expect(two!.body.messages).toEqual([
        { role: "system", content: "You are a test." },
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: "read", arguments: '{"path":"x"}' } }] },
        { role: "tool", tool_call_id: call.id, content: 'Error FS_NOT_FOUND: File "x" does not exist' },
        { role: "user", content: "and now?" },
      ]);
    } else {
      expect(one!.headers["x-api-key"]).toBe("sk-secret-key-123");
      expect(one!.headers["anthropic-version"]).toBe("2023-06-01");
      expect(one!.body.max_tokens).toBe(8192);
      expect(one!.body.system).toBe("You are a test.");
      expect(one!.body.tools).toEqual([{ name: "read", description: "Read a file", input_schema: tools[0]!.inputSchema }]);
      // Roles alternate: the tool result and the next prompt share one user message, the result first.
      expect(two!.body.messages).toEqual([
        { role: "user", content: [{ type: "text", text: "go" }] },
        { role: "assistant", content: [{ type: "tool_use", id: call.id, name: "read", input: { path: "x" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: call.id, content: 'Error FS_NOT_FOUND: File "x" does not exist', is_error: true },
            { type: "text", text: "and now?" },
          ],
        },
      ]);
    }
  });

  test("a 429 is retried after the wait retry-after asks for, a 5xx after a growing backoff", async () => {
    fake = await startFakeModel({ protocol, script: { turns: [{ text: "finally" }] } });
    fake.queue.push({ kind: "error", status: 429, body: errors[protocol].rateLimit, headers: { "retry-after": "7" } });
    fake.queue.push({ kind: "error", status: protocol === "openai" ? 503 : 529, body: errors[protocol].server });
    const { model, waits, logs } = driver(protocol, fake.baseUrl);
    expect((await model.next(request())).text).toBe("finally");
    expect(fake.requests).toHaveLength(3);
    expect(waits[0]).toBe(7000);
    // The second retry's backoff: 100 ms doubled once, within the ±25% jitter.
    expect(waits[1]).toBeGreaterThanOrEqual(150);
    expect(waits[1]).toBeLessThanOrEqual(250);
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatch(/HTTP 429: .*rate.limit.*; retry 1 of 2 in 7000 ms$/i);
    expect(logs.join("\n")).not.toContain("sk-secret-key-123");
  });

  test("retries stop at the limit with the last error's code; the wait is capped", async () => {
    fake = await startFakeModel({ protocol });
    for (let i = 0; i < 3; i++) fake.queue.push({ kind: "error", status: 429, body: errors[protocol].rateLimit, headers: { "retry-after": "3600" } });
    const { model, waits } = driver(protocol, fake.baseUrl, { retry: { retries: 2, maxDelayMs: 5000, sleep: async (ms) => void waits.push(ms) } });
    const error = await failure(model.next(request()));
    expect(error.code).toBe("MODEL_RATE_LIMITED");
    expect(fake.requests).toHaveLength(3);
    expect(waits).toEqual([5000, 5000]);
  });

  test.for([
    [400, "badRequest", "MODEL_REQUEST_REJECTED"],
    [401, "badKey", "MODEL_AUTH_FAILED"],
  ] as const)("HTTP %i fails at once with %s's message and %s", async ([status, body, code]) => {
    fake = await startFakeModel({ protocol });
    fake.queue.push({ kind: "error", status, body: errors[protocol][body] });
    const { model, waits } = driver(protocol, fake.baseUrl);
    const error = await failure(model.next(request()));
    expect(error.code).toBe(code);
    const { message } = protocol === "openai" ? errorBodies.openai[body].error : errorBodies.anthropic[body].error;
    expect(error.message).toContain(`HTTP ${status}: `);
    expect(error.message).toContain(message);
    expect([fake.requests.length, waits]).toEqual([1, []]);
  });

  test("cancelling aborts the HTTP stream at once: the server sees the connection close", async () => {
    fake = await startFakeModel({ protocol });
    fake.queue.push({ kind: "hang", text: "thinking about it" });
    const { model } = driver(protocol, fake.baseUrl);
    const controller = new AbortController();
    let first!: () => void;
    const streaming = new Promise<void>((resolve) => (first = resolve));
    const reply = model.next(request([user], { signal: controller.signal, onText: async () => first() }));
    await streaming;
    controller.abort(new Error("cancelled by the test"));
    await expect(reply).rejects.toThrow("cancelled by the test");
    await fake.hangClosed;
  });

  test("an argument text that is not JSON comes back as invalidArguments, and is replayed as sent", async () => {
    fake = await startFakeModel({ protocol, script: { turns: [{ toolCalls: [{ name: "read", arguments: '{"path": "x"' }] }, { text: "ok" }] } });
    const { model } = driver(protocol, fake.baseUrl);
    const reply = await model.next(request());
    expect(reply.toolCalls[0]).toMatchObject({ name: "read", arguments: undefined, invalidArguments: '{"path": "x"' });
    await model.next(
      request([
        user,
        { role: "assistant", text: "", toolCalls: reply.toolCalls },
        { role: "tool", callId: reply.toolCalls[0]!.id, content: "bad", isError: true, code: "TOOL_INVALID_ARGUMENTS" },
      ]),
    );
    const replayed = (fake.requests[1]!.body.messages as Record<string, unknown>[]).find((m) => m.role === "assistant")!;
    if (protocol === "openai") expect(replayed).toMatchObject({ tool_calls: [{ function: { arguments: '{"path": "x"' } }] });
    else expect(replayed).toMatchObject({ content: [{ type: "tool_use", input: {} }] });
  });

  test("a stream that ends early, a line that is not JSON, or a body that is not an event stream is MODEL_STREAM_INVALID", async () => {
    fake = await startFakeModel({ protocol });
    const start =
      protocol === "openai"
        ? 'data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"par"},"finish_reason":null}]}\n\n'
        : 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}\n\n';
    fake.queue.push({ kind: "raw", sse: start });
    fake.queue.push({ kind: "raw", sse: `${start}data: {not json\n\n` });
    fake.queue.push({ kind: "raw", sse: '{"choices":[]}', contentType: "application/json" });
    const { model } = driver(protocol, fake.baseUrl);
    expect((await failure(model.next(request()))).message).toMatch(/ended before/);
    expect((await failure(model.next(request()))).message).toMatch(/not a JSON object: \{not json/);
    const notSse = await failure(model.next(request()));
    expect(notSse.code).toBe("MODEL_STREAM_INVALID");
    expect(notSse.message).toContain("application/json instead of an event stream");
  });

  test("an error reported inside the stream fails the request with the provider's words", async () => {
    fake = await startFakeModel({ protocol });
    const sse =
      protocol === "openai"
        ? 'data: {"error":{"message":"upstream timed out","code":"timeout"}}\n\n'
        : 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}\n\nevent: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    fake.queue.push({ kind: "raw", sse });
    const { model } = driver(protocol, fake.baseUrl);
    const error = await failure(model.next(request()));
    if (protocol === "openai")
      expect([error.code, error.message]).toEqual([
        "MODEL_STREAM_INVALID",
        "The OpenAI-compatible server reported an error mid-stream: upstream timed out (timeout)",
      ]);
    else expect([error.code, error.message]).toEqual(["MODEL_SERVER_ERROR", "Anthropic reported overloaded_error mid-stream: Overloaded"]);
  });

  test("reasoning streams to onThought, apart from the reply", async () => {
    fake = await startFakeModel({ protocol, script: { turns: [{ thought: "Let me think.", text: "Done." }] } });
    const { model } = driver(protocol, fake.baseUrl);
    const thoughts: string[] = [];
    const reply = await model.next(request([user], { onThought: async (d) => void thoughts.push(d) }));
    expect([thoughts.join(""), reply.text]).toEqual(["Let me think.", "Done."]);
  });

  test("stop reasons: a reply cut at the token limit is max_tokens", async () => {
    fake = await startFakeModel({ protocol, script: { turns: [{ text: "cut", stopReason: "max_tokens" }] } });
    expect((await driver(protocol, fake.baseUrl).model.next(request())).stopReason).toBe("max_tokens");
  });

  test("no response at all is retried, then MODEL_NETWORK_ERROR", async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { model, waits } = driver(protocol, `http://127.0.0.1:${port}/v1`);
    const error = await failure(model.next(request()));
    expect(error.code).toBe("MODEL_NETWORK_ERROR");
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(waits).toHaveLength(2);
  });
});

describe("createModel", () => {
  test("reads the key from the environment, and sends none to a base URL when none is set", async () => {
    fake = await startFakeModel({ protocol: "openai", script: { turns: [{ text: "a" }, { text: "b" }] } });
    const keyed = createModel("openai:m", { baseUrl: fake.baseUrl, env: (name) => (name === "OPENAI_API_KEY" ? "sk-env" : undefined) });
    await keyed.next(request());
    const keyless = createModel("openai:m", { baseUrl: fake.baseUrl, env: () => undefined });
    await keyless.next(request());
    const custom = createModel("openai:m", { baseUrl: fake.baseUrl, apiKeyEnv: "MY_KEY", env: (name) => (name === "MY_KEY" ? "sk-mine" : undefined) });
    await custom.next(request());
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-env", undefined, "Bearer sk-mine"]);
    expect(keyed.contextWindow).toBe(128_000);
    expect(createModel("anthropic:claude", { apiKey: "k", contextWindow: 1000 }).contextWindow).toBe(1000);
  });

  test("a model name keeps its colons (Ollama's qwen3:8b)", async () => {
    fake = await startFakeModel({ protocol: "openai", script: { turns: [{ text: "a" }] } });
    await createModel("openai:qwen3:8b", { baseUrl: fake.baseUrl }).next(request());
    expect(fake.requests[0]!.body.model).toBe("qwen3:8b");
  });

  test("the provider's own API without a key, an unknown provider, or no model: coded errors", () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return (error as ModelError).code;
      }
      return "none";
    };
    expect(code(() => createModel("anthropic:claude", { env: () => undefined }))).toBe("MODEL_KEY_MISSING");
    expect(code(() => createModel("openai:gpt", { env: () => "  " }))).toBe("MODEL_KEY_MISSING");
    expect(code(() => createModel("mistral:large"))).toBe("MODEL_SPEC_INVALID");
    expect(code(() => createModel("openai"))).toBe("MODEL_SPEC_INVALID");
  });
});

test("retry-after: milliseconds, seconds, or an HTTP date", () => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0);
  expect(retryAfterMs(new Headers({ "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(1500);
  expect(retryAfterMs(new Headers({ "retry-after": "2.5" }), now)).toBe(2500);
  expect(retryAfterMs(new Headers({ "retry-after": new Date(now + 30_000).toUTCString() }), now)).toBe(30_000);
  expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
  expect(retryAfterMs(new Headers(), now)).toBeUndefined();
});
