// The ACP agent driven by an AI SDK model: any provider's `LanguageModel` (from @ai-sdk/openai,
// @ai-sdk/anthropic, the gateway, ...) becomes the agent's model through createAiSdkModel, with no driver of
// its own. Run it with `npx tsx examples/acp-ai-sdk.ts DIR`; it replays a scripted model (see scriptedModel),
// so it needs no key, and plays the editor itself: NDJSON JSON-RPC over in-memory streams, permission asked
// and granted for the edit.
import type { LanguageModel } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { COMPOSITIONS, serveAcp } from "toolfs/acp";
import { createAiSdkModel } from "toolfs/ai";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "toolfs/node";

// biome-ignore lint/suspicious/noExplicitAny: the example reads JSON-RPC loosely; a real client takes the ACP SDK's types.
type Message = { id?: number; method?: string; params?: any; result?: any; error?: any };

/** Asks the agent, over ACP, to set retries to 5 in DIR's src/app.ts; resolves to what the editor saw. */
export async function setRetriesOverAcp(model: LanguageModel, dir: string): Promise<string[]> {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const fromAgent = new TransformStream<Uint8Array, Uint8Array>();
  const served = serveAcp({
    composition: COMPOSITIONS.coding!,
    model: createAiSdkModel(model, { contextWindow: 128_000 }),
    runtime: { provider: (cwd) => createNodeProvider({ cwd }), search: createNodeSearchBackend(), runner: createNodeProcessRunner() },
    input: toAgent.readable,
    output: fromAgent.writable,
  });
  const writer = toAgent.writable.getWriter();
  const send = (message: Message) => writer.write(new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`));
  const seen: string[] = [];
  const waiting = new Map<number, (message: Message) => void>();
  const reading = (async () => {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of fromAgent.readable as unknown as AsyncIterable<Uint8Array>) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const message = JSON.parse(line) as Message;
        if (message.method === "session/request_permission") {
          seen.push(`[asked] ${message.params.toolCall.title}`);
          const allow = message.params.options.find((o: { kind: string }) => o.kind === "allow_once");
          await send({ id: message.id!, result: { outcome: { outcome: "selected", optionId: allow.optionId } } });
        } else if (message.method === "session/update") {
          const update = message.params.update;
          if (update.sessionUpdate === "tool_call") seen.push(`[tool] ${update.title}`);
          if (update.sessionUpdate === "agent_message_chunk") seen.push(`[agent] ${update.content.text}`);
        } else if (message.id !== undefined && message.method === undefined) {
          waiting.get(message.id)?.(message);
        }
      }
    }
  })();
  let next = 0;
  // biome-ignore lint/suspicious/noExplicitAny: as Message above.
  const request = async (method: string, params: unknown): Promise<any> => {
    const id = ++next;
    const answered = new Promise<Message>((resolve) => waiting.set(id, resolve));
    await send({ id, method, params });
    const answer = await answered;
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  await request("initialize", { protocolVersion: 1 });
  const { sessionId } = await request("session/new", { cwd: dir, mcpServers: [] });
  const { stopReason } = await request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Set retries to 5 in src/app.ts." }] });
  seen.push(`[stop] ${stopReason}`);
  await writer.close();
  await served;
  // serveAcp lets go of its output without closing it: the stream is the caller's.
  await fromAgent.writable.close();
  await reading;
  return seen;
}

/** A model that greps, reads and edits, then answers, streaming its replies: a stand-in for a real provider's. */
export function scriptedModel(): LanguageModel {
  const usage = { inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 10, text: 10, reasoning: 0 } };
  const reply = (parts: object[], unified: "tool-calls" | "stop") => ({
    stream: convertArrayToReadableStream([
      { type: "stream-start", warnings: [] },
      ...parts,
      { type: "finish", finishReason: { unified, raw: undefined }, usage },
    ]),
  });
  const call = (id: string, toolName: string, input: unknown) =>
    reply([{ type: "tool-call", toolCallId: id, toolName, input: JSON.stringify(input) }], "tool-calls");
  const text = (...deltas: string[]) =>
    reply([{ type: "text-start", id: "t" }, ...deltas.map((delta) => ({ type: "text-delta", id: "t", delta })), { type: "text-end", id: "t" }], "stop");
  return new MockLanguageModelV4({
    doStream: [
      call("1", "grep", { pattern: "retries", include: "*.ts" }),
      call("2", "read", { path: "src/app.ts" }),
      call("3", "edit", { path: "src/app.ts", old_string: "retries = 3", new_string: "retries = 5" }),
      text("retries is now 5 ", "in src/app.ts."),
    ] as ConstructorParameters<typeof MockLanguageModelV4>[0] extends { doStream?: infer S } ? Extract<S, unknown[]> : never,
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await setRetriesOverAcp(scriptedModel(), process.argv[2] ?? process.cwd())) console.log(line);
}
