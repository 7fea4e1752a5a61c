// Loopback fakes of the two wire protocols the model drivers speak: an OpenAI Chat Completions server and an
// Anthropic Messages server on 127.0.0.1, port 0. Each replays a script of turns (the scripted model's format)
// as a stream shaped like the provider's documented one, picking the turn from the conversation it is sent
// (the number of assistant messages so far), so replay depends only on what the agent sends. Tests can put
// error replies, raw streams or a stream that never ends in front of the script.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Script } from "../adapters/acp/mod.ts";

export type Protocol = "openai" | "anthropic";

type ScriptTurn = Script["turns"][number];

/** A turn as the fake renders it; arguments may be raw text, to send JSON that does not parse. */
export interface FakeTurn {
  readonly text?: string | undefined;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: Record<string, unknown> | string }[] | undefined;
  readonly stopReason?: ScriptTurn["stopReason"];
  /** Reasoning text streamed before the reply (reasoning_content / thinking). */
  readonly thought?: string;
}

/** One reply: a rendered turn, an HTTP error, raw SSE text, or a stream that sends `text` and then waits. */
export type FakeReply =
  | { readonly kind: "turn"; readonly turn: FakeTurn }
  | { readonly kind: "error"; readonly status: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>> }
  | { readonly kind: "raw"; readonly sse: string; readonly contentType?: string }
  | { readonly kind: "hang"; readonly text: string };

export interface RecordedRequest {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: Record<string, unknown>;
}

export interface FakeServer {
  /** The API root to give a driver as its base URL: `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Replies sent before the script's, in order (errors for retries, a hang for a cancel). */
  readonly queue: FakeReply[];
  /** Resolves when a `hang` reply's connection is closed by the client. */
  readonly hangClosed: Promise<void>;
  /** Resolves when a `hang` reply has sent its text. */
  readonly hangStarted: Promise<void>;
  close(): Promise<void>;
}

export interface FakeOptions {
  readonly protocol: Protocol;
  readonly script?: { readonly turns: readonly FakeTurn[] };
  /** Characters per streamed text piece and per tool-argument fragment; default 5, so JSON splits mid-token. */
  readonly piece?: number;
  /** Default 0: any free port. */
  readonly port?: number;
}

const CREATED = 1_767_225_600;

/** Starts a fake on 127.0.0.1 (port 0 unless given); close it when done. */
export async function startFakeModel(options: FakeOptions): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  let hangClosed!: () => void;
  let hangStarted!: () => void;
  const closedPromise = new Promise<void>((resolve) => (hangClosed = resolve));
  const startedPromise = new Promise<void>((resolve) => (hangStarted = resolve));
  const path = options.protocol === "openai" ? "/v1/chat/completions" : "/v1/messages";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        return send(res, 400, { error: { message: "body is not JSON" } });
      }
      requests.push({ path: req.url ?? "", headers: req.headers, body });
      if (req.method !== "POST" || req.url !== path) return send(res, 404, notFound(options.protocol, req.url ?? ""));
      const reply = queue.shift() ?? scriptReply(options, body, requests.length);
      if (reply.kind === "error") return send(res, reply.status, reply.body, reply.headers);
      if (reply.kind === "raw") {
        res.writeHead(200, { "content-type": reply.contentType ?? "text/event-stream" });
        return void res.end(reply.sse);
      }
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
      if (reply.kind === "hang") {
        res.on("close", () => hangClosed());
        res.write(options.protocol === "openai" ? openaiHang(reply.text) : anthropicHang(reply.text), () => hangStarted());
        return;
      }
      const model = String(body.model);
      const events =
        options.protocol === "openai"
          ? openaiStream(
              reply.turn,
              model,
              requests.length,
              promptTokens(body),
              isObject(body.stream_options) && body.stream_options.include_usage === true,
              options.piece ?? 5,
            )
          : anthropicStream(reply.turn, model, requests.length, promptTokens(body), options.piece ?? 5);
      res.end(events);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    queue,
    hangClosed: closedPromise,
    hangStarted: startedPromise,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

function notFound(protocol: Protocol, url: string): unknown {
  return protocol === "openai"
    ? { error: { message: `Invalid URL (POST ${url})`, type: "invalid_request_error", param: null, code: null } }
    : { type: "error", error: { type: "not_found_error", message: `Not found: ${url}` } };
}

/** The turn after the assistant messages the request already holds, as the scripted model picks it. */
function scriptReply(options: FakeOptions, body: Record<string, unknown>, n: number): FakeReply {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const index = messages.filter((m) => m.role === "assistant").length;
  const turn = options.script?.turns[index];
  if (turn) return { kind: "turn", turn };
  const message = `the fake's script has ${options.script?.turns.length ?? 0} turns; request ${n} asked for turn ${index + 1}`;
  return options.protocol === "openai"
    ? { kind: "error", status: 400, body: { error: { message, type: "invalid_request_error", param: null, code: null } } }
    : { kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message } } };
}

/** A deterministic stand-in for the provider's token count: four bytes of the request body per token. */
function promptTokens(body: Record<string, unknown>): number {
  return Math.ceil(JSON.stringify({ system: body.system, messages: body.messages, tools: body.tools }).length / 4);
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const argumentText = (args: Record<string, unknown> | string) => (typeof args === "string" ? args : JSON.stringify(args));

// OpenAI: `data: {chunk}` lines. The first chunk carries the role; content arrives in delta.content pieces;
// each tool call starts with its index, id, type and name and an empty arguments string, then argument
// fragments under the same index; a chunk with an empty delta carries finish_reason; with include_usage
// every chunk has "usage": null and a last chunk with no choices carries the usage; then `data: [DONE]`.
function openaiStream(turn: FakeTurn, model: string, n: number, prompt: number, usage: boolean, size: number): string {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: `chatcmpl-fake${n}`, object: "chat.completion.chunk", created: CREATED, model, system_fingerprint: "fp_fake", choices, ...(usage ? { usage: null } : {}), ...extra })}\n\n`;
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({ index: 0, delta, logprobs: null, finish_reason: finish });
  const calls = turn.toolCalls ?? [];
  const out: string[] = [];
  let completion = 0;
  if (calls.length > 0 && (turn.text ?? "") === "") {
    const first = calls[0]!;
    out.push(
      chunk([
        choice({
          role: "assistant",
          content: null,
          tool_calls: [{ index: 0, id: `call_fake${n}_1`, type: "function", function: { name: first.name, arguments: "" } }],
          refusal: null,
        }),
      ]),
    );
  } else {
    out.push(chunk([choice({ role: "assistant", content: "", refusal: null })]));
  }
  if (turn.thought) for (const p of pieces(turn.thought, size)) out.push(chunk([choice({ reasoning_content: p })]));
  for (const p of pieces(turn.text ?? "", size)) {
    out.push(chunk([choice({ content: p })]));
    completion++;
  }
  for (const [i, call] of calls.entries()) {
    if (i > 0 || (turn.text ?? "") !== "") {
      out.push(chunk([choice({ tool_calls: [{ index: i, id: `call_fake${n}_${i + 1}`, type: "function", function: { name: call.name, arguments: "" } }] })]));
    }
    for (const p of pieces(argumentText(call.arguments), size)) {
      out.push(chunk([choice({ tool_calls: [{ index: i, function: { arguments: p } }] })]));
      completion++;
    }
  }
  const finish = calls.length > 0 ? "tool_calls" : turn.stopReason === "max_tokens" ? "length" : turn.stopReason === "refusal" ? "content_filter" : "stop";
  out.push(chunk([choice({}, finish)]));
  if (usage) {
    const counts = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
    out.push(chunk([], { usage: counts }));
  }
  out.push("data: [DONE]\n\n");
  return out.join("");
}

function openaiHang(text: string): string {
  const delta = (d: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id: "chatcmpl-hang", object: "chat.completion.chunk", created: CREATED, model: "fake", choices: [{ index: 0, delta: d, logprobs: null, finish_reason: null }] })}\n\n`;
  return delta({ role: "assistant", content: "" }) + delta({ content: text });
}

// Anthropic: `event: NAME` / `data: {"type": NAME, ...}` pairs. message_start carries the message with empty
// content and the input usage; each content block has content_block_start, deltas (text_delta, or
// input_json_delta fragments after an empty one) and content_block_stop; a ping comes early; message_delta
// carries stop_reason and the cumulative output_tokens; message_stop ends the stream.
function anthropicStream(turn: FakeTurn, model: string, n: number, prompt: number, size: number): string {
  const event = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const out: string[] = [];
  let output = 1;
  out.push(
    event({
      type: "message_start",
      message: {
        id: `msg_fake${n}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: prompt, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    }),
  );
  let index = 0;
  if (turn.thought) {
    out.push(event({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }));
    for (const p of pieces(turn.thought, size)) out.push(event({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: p } }));
    out.push(event({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "c2lnbmF0dXJl" } }));
    out.push(event({ type: "content_block_stop", index }));
    index++;
  }
  if ((turn.text ?? "") !== "") {
    out.push(event({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
    out.push(event({ type: "ping" }));
    for (const p of pieces(turn.text!, size)) {
      out.push(event({ type: "content_block_delta", index, delta: { type: "text_delta", text: p } }));
      output++;
    }
    out.push(event({ type: "content_block_stop", index }));
    index++;
  } else {
    out.push(event({ type: "ping" }));
  }
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    out.push(event({ type: "content_block_start", index, content_block: { type: "tool_use", id: `toolu_fake${n}_${i + 1}`, name: call.name, input: {} } }));
    out.push(event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } }));
    for (const p of pieces(argumentText(call.arguments), size)) {
      out.push(event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } }));
      output++;
    }
    out.push(event({ type: "content_block_stop", index }));
    index++;
  }
  const stop = (turn.toolCalls?.length ?? 0) > 0 ? "tool_use" : (turn.stopReason ?? "end_turn");
  out.push(event({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: output } }));
  out.push(event({ type: "message_stop" }));
  return out.join("");
}

function anthropicHang(text: string): string {
  const event = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  return (
    event({
      type: "message_start",
      message: {
        id: "msg_hang",
        type: "message",
        role: "assistant",
        model: "fake",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    }) +
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
    event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The providers' documented error bodies. */
export const errorBodies = {
  openai: {
    rateLimit: { error: { message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" } },
    badKey: { error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" } },
    badRequest: { error: { message: "Invalid value for 'model'.", type: "invalid_request_error", param: "model", code: null } },
    server: { error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } },
  },
  anthropic: {
    rateLimit: { type: "error", error: { type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit" } },
    badKey: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
    badRequest: { type: "error", error: { type: "invalid_request_error", message: "max_tokens: Field required" } },
    overloaded: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
  },
} as const;
