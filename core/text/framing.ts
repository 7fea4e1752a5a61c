// A peer's NDJSON input, one JSON-RPC message per line, with a cap on the length of a line; the ACP agent and
// the MCP stdio server both read through it. The SDKs' own readers fail the whole stream on a line over their
// limit (ACP 32 MiB, MCP 10 MiB), which ended either silently with status 0. Here an over-long line is skipped
// up to its newline, so the framing recovers, and the message it held is answered as well as its first bytes
// allow: a request with a JSON-RPC error carrying its id, a response the server waits for with a stand-in
// error response (so the waiting call fails instead of hanging), anything else with an error whose id is null
// (JSON-RPC's answer when the id cannot be read). docs/notes/0014, 0008.

/** Bytes of an over-long line kept to read its `id`, `method`, `result` or `error` from. */
export const ENVELOPE_PREFIX_BYTES: number = 64 * 1024;

/** What the start of a message says about it. */
export interface Envelope {
  /** The `id`, when one was read whole (a string or a number); undefined when absent or unreadable. */
  readonly id?: string | number;
  readonly method: boolean;
  /** It has `result` or `error`: a response to a request the agent sent. */
  readonly response: boolean;
}

/** An over-long line, as {@link LineLimiter} reports it. */
export interface OversizedLine {
  /** Its length in bytes, without the line break. */
  readonly bytes: number;
  readonly envelope: Envelope;
}

const NEWLINE = 0x0a;

/**
 * Splits byte chunks into lines and passes on the ones within `maxBytes` (with their line break) unchanged;
 * a longer line is dropped and reported. `report` may return replacement bytes to pass on in its place.
 */
export class LineLimiter {
  readonly #max: number;
  readonly #report: (line: OversizedLine) => Uint8Array | undefined;
  // The current line: its chunks while it may still fit, or the start of it once it does not.
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #dropping = false;
  #dropped = 0;
  #prefix: Uint8Array = new Uint8Array(0);

  constructor(maxBytes: number, report: (line: OversizedLine) => Uint8Array | undefined) {
    this.#max = maxBytes;
    this.#report = report;
  }

  /** The bytes to pass on for `chunk`. */
  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      const segment = chunk.subarray(start, nl);
      if (!this.#dropping && this.#pendingBytes + segment.length <= this.#max) {
        out.push(...this.#pending, chunk.subarray(start, nl + 1));
        this.#reset();
      } else {
        this.#overflow(segment);
        this.#finish(out);
      }
      start = nl + 1;
    }
    const tail = chunk.subarray(start);
    if (tail.length > 0) {
      if (!this.#dropping && this.#pendingBytes + tail.length <= this.#max) {
        this.#pending.push(tail);
        this.#pendingBytes += tail.length;
      } else this.#overflow(tail);
    }
    return out;
  }

  /** The bytes to pass on at the end of the input: a last line without a line break, if it fits. */
  end(): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (this.#dropping) this.#finish(out);
    else out.push(...this.#pending);
    this.#reset();
    return out;
  }

  // The line does not fit: keep its start for the report, let go of the rest.
  #overflow(segment: Uint8Array): void {
    if (!this.#dropping) {
      this.#dropping = true;
      this.#dropped = this.#pendingBytes;
      this.#prefix = concatUpTo([...this.#pending, segment], ENVELOPE_PREFIX_BYTES);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    this.#dropped += segment.length;
  }

  #finish(out: Uint8Array[]): void {
    const replacement = this.#report({ bytes: this.#dropped, envelope: readEnvelope(this.#prefix) });
    if (replacement) out.push(replacement);
    this.#reset();
  }

  #reset(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#dropping = false;
    this.#dropped = 0;
    this.#prefix = new Uint8Array(0);
  }
}

function concatUpTo(parts: readonly Uint8Array[], max: number): Uint8Array {
  const total = Math.min(
    max,
    parts.reduce((n, p) => n + p.length, 0),
  );
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    if (at >= total) break;
    const take = part.subarray(0, total - at);
    out.set(take, at);
    at += take.length;
  }
  return out;
}

const decoder = new TextDecoder();

/**
 * Reads the top-level keys at the start of a JSON object without parsing the rest: whether it has `method`,
 * `result` or `error`, and its `id` when that is a string or a number read whole. Stops quietly where the
 * prefix ends or stops being JSON.
 */
export function readEnvelope(prefix: Uint8Array): Envelope {
  const text = decoder.decode(prefix);
  let id: string | number | undefined;
  let method = false;
  let response = false;
  let i = 0;
  const space = () => {
    while (i < text.length && " \t\r\n".includes(text[i] as string)) i++;
  };
  // A JSON string starting at i (at its quote); its value, or undefined when it does not end in the text.
  const string = (): string | undefined => {
    const start = i;
    for (i++; i < text.length; i++) {
      const c = text[i];
      if (c === "\\") i++;
      else if (c === '"') {
        i++;
        try {
          return JSON.parse(text.slice(start, i)) as string;
        } catch {
          return undefined;
        }
      }
    }
    return undefined;
  };
  // Skips one value, stopping at the `,` or `}` after it; false when the text ends first.
  const skip = (): boolean => {
    let depth = 0;
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        if (string() === undefined) return false;
      } else if (c === "{" || c === "[") {
        depth++;
        i++;
      } else if (c === "}" || c === "]") {
        if (depth === 0) return true;
        depth--;
        i++;
      } else if (c === "," && depth === 0) return true;
      else i++;
    }
    return false;
  };
  space();
  if (text[i] !== "{") return { method, response };
  i++;
  for (;;) {
    space();
    if (text[i] !== '"') break;
    const key = string();
    if (key === undefined) break;
    space();
    if (text[i] !== ":") break;
    i++;
    space();
    if (key === "id") {
      const start = i;
      if (text[i] === '"') {
        const value = string();
        if (value === undefined) break;
        id = value;
      } else {
        const number = /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/.exec(text.slice(i, i + 64));
        if (number && /^[\s,}]/.test(text.slice(i + number[0].length, i + number[0].length + 1))) {
          id = Number(number[0]);
          i += number[0].length;
        } else {
          i = start;
          if (!skip()) break;
        }
      }
    } else {
      if (key === "method") method = true;
      if (key === "result" || key === "error") response = true;
      if (!skip()) break;
    }
    space();
    if (text[i] !== ",") break;
    i++;
  }
  return id === undefined ? { method, response } : { id, method, response };
}

/** JSON-RPC's code for a message that is not an acceptable request. */
export const INVALID_REQUEST = -32600;

/** A JSON-RPC error message. */
export interface JsonRpcErrorMessage {
  readonly jsonrpc: "2.0";
  readonly id: string | number | null;
  readonly error: { readonly code: number; readonly message: string; readonly data: { readonly messageBytes: number; readonly maxMessageBytes: number } };
}

/** How to answer an over-long line: with bytes passed on in its place, or with a message sent back to the peer. */
export interface OversizedAnswer {
  /** What happened, in a sentence for a log. */
  readonly said: string;
  /** A stand-in error response for the reader, when the line was a response to one of its own requests. */
  readonly replacement?: Uint8Array;
  /** The error to send back to the peer otherwise. */
  readonly reply?: JsonRpcErrorMessage;
}

const encoder = new TextEncoder();

/** The answer to an over-long line, for a reader (named in `reader`, such as "this agent") reading at most `max` bytes. */
export function answerOversized(line: OversizedLine, max: number, reader: string): OversizedAnswer {
  const { bytes, envelope } = line;
  const said = `the message is ${bytes} bytes long, more than the ${max} bytes ${reader} reads; it was skipped`;
  const error = { code: INVALID_REQUEST, message: `Invalid request: ${said}`, data: { messageBytes: bytes, maxMessageBytes: max } };
  if (envelope.id !== undefined && envelope.response && !envelope.method) {
    return { said, replacement: encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id: envelope.id, error })}\n`) };
  }
  return { said, reply: { jsonrpc: "2.0", id: envelope.id ?? null, error } };
}

/**
 * `input`, line-limited by `limiter`; a read failure is reported to `failed` and ends the stream with it.
 * Pulls only as fast as the reader takes lines.
 */
export function limitLines(input: ReadableStream<Uint8Array>, limiter: LineLimiter, failed: (error: unknown) => void = () => {}): ReadableStream<Uint8Array> {
  const reader = input.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (error) {
          failed(error);
          controller.error(error);
          return;
        }
        if (read.done) {
          for (const bytes of limiter.end()) controller.enqueue(bytes);
          controller.close();
          return;
        }
        const out = limiter.push(read.value);
        for (const bytes of out) controller.enqueue(bytes);
        if (out.length > 0) return;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
