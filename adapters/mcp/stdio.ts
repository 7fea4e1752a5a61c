// The MCP server on stdio, its input line-limited by the framing the ACP agent uses (core/text/framing.ts).
// The SDK's own reader closes the transport on a line over its 10 MiB buffer, which ended `toolfs mcp`
// silently with status 0; here such a line is skipped and answered with a JSON-RPC -32600 error, and the
// session goes on. docs/notes/0008.
import { Readable, type Writable } from "node:stream";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { answerOversized, LineLimiter, limitLines, type OversizedLine } from "../../core/mod.ts";
import type { ToolfsMcpSession } from "./server.ts";

/** The longest message (one line, in bytes) the stdio server reads by default: the SDK's 10 MiB. */
export const MCP_STDIO_MAX_MESSAGE_BYTES: number = STDIO_DEFAULT_MAX_BUFFER_SIZE;

export interface McpStdioOptions {
  /** The client's newline-delimited JSON-RPC (stdin). */
  readonly input: ReadableStream<Uint8Array>;
  /** Where the server writes (stdout): the SDK's messages and the framing's error replies, whole lines each. */
  readonly output: Writable;
  /** The longest message read; a longer one is skipped and answered with an error. Default 10 MiB. */
  readonly maxMessageBytes?: number;
  readonly log?: (line: string) => void;
}

/**
 * Serves `session` on stdio; resolves when the session closes (the input ended or the server was closed).
 * Rejects when the input itself failed, after the session has closed.
 */
export async function serveMcpStdio(session: ToolfsMcpSession, options: McpStdioOptions): Promise<void> {
  const max = options.maxMessageBytes ?? MCP_STDIO_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(max) || max <= 0) throw new RangeError(`maxMessageBytes must be a positive whole number, got ${String(max)}`);
  const log = options.log ?? (() => {});
  const oversized = (line: OversizedLine): Uint8Array | undefined => {
    const { said, replacement, reply } = answerOversized(line, max, "this server");
    log(`toolfs mcp: ${said} (id ${line.envelope.id === undefined ? "unknown" : JSON.stringify(line.envelope.id)})`);
    // One write of one whole line, as the SDK writes its messages: the two never interleave within a line.
    if (reply) options.output.write(`${JSON.stringify(reply)}\n`);
    return replacement;
  };
  let failed: { error: unknown } | undefined;
  const input = Readable.fromWeb(
    limitLines(options.input, new LineLimiter(max, oversized), (error) => {
      failed = { error };
    }) as import("node:stream/web").ReadableStream<Uint8Array>,
  );
  const closed = new Promise<void>((resolve) => (session.server.onclose = resolve));
  // The limiter passes on no line longer than `max`, so the SDK's buffer (which would close the transport)
  // never fills; twice that, in case the stream hands it two lines at once.
  await session.server.connect(new StdioServerTransport(input, options.output, { maxBufferSize: 2 * (max + 1) }));
  await closed;
  if (failed) {
    const reason = failed.error instanceof Error ? failed.error.message : String(failed.error);
    throw new Error(`the client's input failed: ${reason}`, { cause: failed.error });
  }
}
