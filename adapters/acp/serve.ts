import * as acp from "@agentclientprotocol/sdk";
import { type AcpAgentOptions, createAcpAgent } from "./agent.ts";
import { answerOversized, LineLimiter, limitLines, type OversizedLine } from "../../core/mod.ts";

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
  const oversized = (line: OversizedLine): Uint8Array | undefined => {
    const { said, replacement, reply } = answerOversized(line, max, "this agent");
    log(`toolfs acp: ${said} (id ${line.envelope.id === undefined ? "unknown" : JSON.stringify(line.envelope.id)})`);
    // A response to one of the agent's own requests is replaced by an error response, so the request that
    // waits for it fails instead of waiting forever.
    if (reply) void output.send(reply).catch(() => {});
    return replacement;
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
