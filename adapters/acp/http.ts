// What the model drivers share: one POST that streams Server-Sent Events back, retried with backoff on 429
// and 5xx, failing with a coded ModelError on anything else, and aborted at once by the turn's signal.
// Runtime-neutral: fetch, AbortSignal and web streams only.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ModelError, type ModelErrorCode } from "./model.ts";

/** How a driver retries a request the provider refused for now (429, 5xx) or that got no response. */
export interface RetryOptions {
  /** Retries after the first attempt; default 3. */
  readonly retries?: number;
  /** The first backoff in milliseconds, doubled on each retry (with jitter); default 1000. */
  readonly baseDelayMs?: number;
  /** The longest wait, whether from the backoff or from `retry-after`; default 60000. */
  readonly maxDelayMs?: number;
  /** Waits `ms` or until `signal` aborts; injectable so tests can record the waits instead of sleeping. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** What every driver takes besides its provider's own options. */
export interface HttpDriverOptions {
  /** The model's name as the provider knows it. */
  readonly model: string;
  /** The API root, up to and including the version segment (`https://api.openai.com/v1`). */
  readonly baseUrl?: string;
  /** Sent as the provider's credential header; omitted when absent (local servers take none). */
  readonly apiKey?: string;
  /** The context window in tokens, for the agent's budget. */
  readonly contextWindow?: number;
  /** The most tokens one reply may have. */
  readonly maxTokens?: number;
  readonly retry?: RetryOptions;
  /** Defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /** Diagnostics (retries), one line each; never given the key. */
  readonly log?: (line: string) => void;
}

const DEFAULT_RETRY = { retries: 3, baseDelayMs: 1000, maxDelayMs: 60_000 };
// Past this, an SSE line or event is not a model's reply but a broken or hostile stream.
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** Waits `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The wait a 429 or 5xx response asks for, in milliseconds: `retry-after-ms` (OpenAI), then `retry-after` in
 * seconds or as an HTTP date; undefined when neither is usable.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface StreamRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly signal: AbortSignal;
  /** The provider's name in error messages. */
  readonly provider: string;
  /** Turns an error response's body into the provider's message. */
  readonly errorMessage: (body: string) => string | undefined;
}

/**
 * POSTs `body` as JSON and returns the response once it is a 2xx, retrying 429, 5xx and requests that got no
 * response at all. Honours `retry-after` (capped at maxDelayMs); a 4xx other than 429 fails at once.
 */
export async function postForStream(request: StreamRequest, options: HttpDriverOptions): Promise<Response> {
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const wait = retry.sleep ?? sleep;
  const doFetch = options.fetch ?? fetch;
  const log = options.log ?? (() => {});
  const payload = JSON.stringify(request.body);
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptOnce(request, doFetch, payload);
    if (outcome instanceof Response) return outcome;
    if (!outcome.retryable || attempt >= retry.retries) throw outcome.error;
    const backoff = Math.round(retry.baseDelayMs * 2 ** attempt * (0.75 + Math.random() * 0.5));
    const delay = Math.min(outcome.retryAfter ?? backoff, retry.maxDelayMs);
    log(`toolfs acp: ${outcome.error.message}; retry ${attempt + 1} of ${retry.retries} in ${delay} ms`);
    await wait(delay, request.signal);
  }
}

type Failure = { readonly error: ModelError; readonly retryable: boolean; readonly retryAfter?: number | undefined };

async function attemptOnce(request: StreamRequest, doFetch: typeof fetch, payload: string): Promise<Response | Failure> {
  let response: Response;
  try {
    response = await doFetch(request.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...request.headers },
      body: payload,
      signal: request.signal,
    });
  } catch (error) {
    if (request.signal.aborted) throw request.signal.reason;
    const message = `Could not reach ${request.provider} at ${request.url}: ${describe(error)}`;
    return { error: new ModelError("MODEL_NETWORK_ERROR", message, { cause: error }), retryable: true };
  }
  if (response.ok) return response;
  const text = await response.text().catch(() => "");
  const message = request.errorMessage(text) ?? (text.trim().slice(0, 500) || response.statusText || "no details");
  const code = statusCode(response.status);
  const error = new ModelError(code, `${request.provider} answered HTTP ${response.status}: ${message}`, { details: { status: response.status } });
  const retryable = code === "MODEL_RATE_LIMITED" || code === "MODEL_SERVER_ERROR";
  return { error, retryable, retryAfter: retryAfterMs(response.headers) };
}

function statusCode(status: number): ModelErrorCode {
  if (status === 401 || status === 403) return "MODEL_AUTH_FAILED";
  if (status === 429) return "MODEL_RATE_LIMITED";
  // 408 (request timeout) and 409 (conflict) are transient by their meaning; providers document retrying them.
  if (status >= 500 || status === 408 || status === 409) return "MODEL_SERVER_ERROR";
  return "MODEL_REQUEST_REJECTED";
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? cause.message : typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "";
  return detail && detail !== error.message ? `${error.message} (${detail})` : error.message;
}

/**
 * The events of an SSE response body, in order. Ends when the body ends; a cancelled turn's signal aborts
 * the fetch, which errors the body, and the read rejects with the signal's reason.
 */
export async function* sseEvents(response: Response, signal: AbortSignal, provider: string): AsyncGenerator<EventSourceMessage> {
  if (!response.body) throw new ModelError("MODEL_STREAM_INVALID", `${provider} answered without a body`);
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    const text = await response.text().catch(() => "");
    throw new ModelError("MODEL_STREAM_INVALID", `${provider} answered ${type || "without a content type"} instead of an event stream: ${text.slice(0, 300)}`);
  }
  const queue: EventSourceMessage[] = [];
  let broken: Error | undefined;
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onEvent: (event) => void queue.push(event),
    onError: (error) => {
      // Unknown fields are allowed by the SSE format and ignored; only an overflow ends the stream.
      if (error.type === "max-buffer-size-exceeded") broken = error;
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw new ModelError("MODEL_STREAM_INVALID", `The ${provider} stream broke off: ${describe(error)}`, { cause: error });
      }
      if (chunk.done) break;
      parser.feed(chunk.value);
      if (broken) throw new ModelError("MODEL_STREAM_INVALID", `The ${provider} stream sent an event over ${MAX_EVENT_CHARS} characters`);
      while (queue.length > 0) yield queue.shift()!;
    }
    parser.reset({ consume: true });
    while (queue.length > 0) yield queue.shift()!;
  } finally {
    // Stops the download when the consumer stops early (an error event, a cancel).
    await reader.cancel().catch(() => {});
  }
}

/** Parses one event's JSON data; a broken line is a protocol error, not a crash. */
export function eventJson(event: EventSourceMessage, provider: string): Record<string, unknown> {
  try {
    const value = JSON.parse(event.data) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below with the data itself.
  }
  throw new ModelError("MODEL_STREAM_INVALID", `The ${provider} stream sent an event that is not a JSON object: ${event.data.slice(0, 200)}`);
}

/** Joins an API root and a path without doubling or dropping the slash. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/** Parses a tool call's accumulated argument text: an object, or the text back as invalid. */
export function parseArguments(text: string): { arguments: unknown } | { arguments: undefined; invalidArguments: string } {
  // A model that calls a tool without arguments may send nothing at all.
  if (text.trim() === "") return { arguments: {} };
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { arguments: value };
  } catch {
    // Falls through: the agent answers the call with the parse failure.
  }
  return { arguments: undefined, invalidArguments: text };
}
