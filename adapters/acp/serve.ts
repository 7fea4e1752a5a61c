import * as acp from "@agentclientprotocol/sdk";
import { type AcpAgentOptions, createAcpAgent } from "./agent.ts";
import { LineLimiter, type OversizedLine } from "./framing.ts";

export interface ServeOptions extends AcpAgentOptions {
  /** Newline-delimited JSON-RPC from the client (the agent's stdin). */
  readonly input: ReadableStream<Uint8Array>;
  /** Newline-delimited JSON-RPC to the client (the agent's stdout): nothing else is written there. */
  readonly output: WritableStream<Uint8Array>;
  /** Ends the connection when it fires, as the end of the input does. */
  readonly signal?: AbortSignal;
  /**
   * The longest message (one line, in bytes) read from the client; a longer one is skipped and answered with
   * a JSON-RPC error, and the connection goes on. Default: the SDK's 32 MiB.
   */
  readonly maxMessageBytes?: number;
}

/** JSON-RPC's code for a message that is not an acceptable request. */
const INVALID_REQUEST = -32600;

/**
 * Serves one client over NDJSON streams until the input ends or `signal` fires; resolves once every running
 * turn has been cancelled and its tools have stopped, so no process the agent started outlives it. Rejects
 * when the input itself failed (not when it ended), after the same shutdown.
 */
export async function serveAcp(options: ServeOptions): Promise<void> {
  const max = options.maxMessageBytes ?? acp.DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(max) || max <= 0) throw new RangeError(`maxMessageBytes must be a positive whole number, got ${String(max)}`);
  const agent = createAcpAgent(options);
  const output = new Output(options.output);
  const log = options.log ?? (() => {});
  const encoder = new TextEncoder();
  const oversized = (line: OversizedLine): Uint8Array | undefined => {
    const { bytes, envelope } = line;
    const said = `the message is ${bytes} bytes long, more than the ${max} bytes this agent reads; it was skipped`;
    log(`toolfs acp: ${said} (id ${envelope.id === undefined ? "unknown" : JSON.stringify(envelope.id)})`);
    const error = { code: INVALID_REQUEST, message: `Invalid request: ${said}`, data: { messageBytes: bytes, maxMessageBytes: max } };
    if (envelope.id !== undefined && envelope.response && !envelope.method) {
      // A response to one of the agent's own requests: hand the SDK an error response in its place, so the
      // request that waits for it fails instead of waiting forever.
      return encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id: envelope.id, error })}\n`);
    }
    void output.send({ jsonrpc: "2.0", id: envelope.id ?? null, error }).catch(() => {});
    return undefined;
  };
  let inputError: { error: unknown } | undefined;
  const input = limitLines(options.input, new LineLimiter(max, oversized), (error) => {
    inputError = { error };
  });
  // The limiter passes on nothing longer than `max`, so the SDK's own limit (which would end the stream) is
  // never reached.
  const connection = agent.app.connect(acp.ndJsonStream(output.writable, input, { maxMessageBytes: max + 1 }));
  const stop = () => connection.close();
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    await connection.closed;
  } finally {
    options.signal?.removeEventListener("abort", stop);
    await agent.close();
    await output.release();
  }
  if (inputError) {
    const reason = inputError.error instanceof Error ? inputError.error.message : String(inputError.error);
    throw new Error(`the client's input failed: ${reason}`, { cause: inputError.error });
  }
}

/** The client's input, line-limited; a read failure is reported to `failed` and ends the stream with it. */
function limitLines(input: ReadableStream<Uint8Array>, limiter: LineLimiter, failed: (error: unknown) => void): ReadableStream<Uint8Array> {
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

/**
 * The agent's output, written through one writer so that the SDK's messages and the framing's own error
 * replies stay whole lines in order.
 */
class Output {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  #last: Promise<void> = Promise.resolve();
  readonly writable: WritableStream<Uint8Array>;

  constructor(output: WritableStream<Uint8Array>) {
    this.#writer = output.getWriter();
    this.writable = new WritableStream<Uint8Array>({ write: (chunk) => this.#write(chunk) });
  }

  send(message: unknown): Promise<void> {
    return this.#write(this.#encoder.encode(`${JSON.stringify(message)}\n`));
  }

  #write(chunk: Uint8Array): Promise<void> {
    const written = this.#writer.write(chunk);
    this.#last = written.catch(() => {});
    return written;
  }

  /** Waits for what was written, then lets go of the stream so its owner can close it. */
  async release(): Promise<void> {
    await this.#last;
    this.#writer.releaseLock();
  }
}
