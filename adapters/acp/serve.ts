import * as acp from "@agentclientprotocol/sdk";
import { type AcpAgentOptions, createAcpAgent } from "./agent.ts";

export interface ServeOptions extends AcpAgentOptions {
  /** Newline-delimited JSON-RPC from the client (the agent's stdin). */
  readonly input: ReadableStream<Uint8Array>;
  /** Newline-delimited JSON-RPC to the client (the agent's stdout): nothing else is written there. */
  readonly output: WritableStream<Uint8Array>;
  /** Ends the connection when it fires, as the end of the input does. */
  readonly signal?: AbortSignal;
}

/**
 * Serves one client over NDJSON streams until the input ends or `signal` fires; resolves once every running
 * turn has been cancelled and its tools have stopped, so no process the agent started outlives it.
 */
export async function serveAcp(options: ServeOptions): Promise<void> {
  const agent = createAcpAgent(options);
  const connection = agent.app.connect(acp.ndJsonStream(options.output, options.input));
  const stop = () => connection.close();
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    await connection.closed;
  } finally {
    options.signal?.removeEventListener("abort", stop);
    await agent.close();
  }
}
