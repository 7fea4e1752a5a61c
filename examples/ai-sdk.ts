// The AI SDK quick start: an agent whose file tools are toolfs's. Run it with `npx tsx examples/ai-sdk.ts DIR`
// (see the README's "The AI SDK"); without a model it replays a scripted one (see scriptedModel) so it needs no
// key. With a provider package installed, pass its model instead, e.g. `openai("gpt-5")` from @ai-sdk/openai.
// It exits 1, naming the calls that failed, when a tool call failed.
import { isStepCount, type LanguageModel, ToolLoopAgent } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createToolkit, type ToolResult } from "toolfs";
import { createAiToolSet } from "toolfs/ai";
import { createNodeProvider, createNodeSearchBackend } from "toolfs/node";

/** Asks the agent to set retries to 5 in DIR's src/app.ts; resolves to its final text and the tool results. */
export async function setRetries(model: LanguageModel, dir: string) {
  const toolkit = createToolkit({
    fs: createNodeProvider({ cwd: dir }),
    search: createNodeSearchBackend(),
    sandbox: { mode: "workspace-write" }, // writes only inside dir (and temp directories)
  });
  const agent = new ToolLoopAgent({ model, instructions: toolkit.guidance, tools: createAiToolSet(toolkit), stopWhen: isStepCount(10) });
  const result = await agent.generate({ prompt: "Set retries to 5 in src/app.ts." });
  // Each tool result keeps the toolkit's meta (paths, matches, diff) and error code for a UI.
  return { text: result.text, toolResults: result.steps.flatMap((step) => step.toolResults) };
}

/** A model that calls grep, read and edit, then answers: a stand-in for a real provider's model. */
export function scriptedModel(): LanguageModel {
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const call = (id: string, toolName: string, input: unknown) => ({
    content: [{ type: "tool-call" as const, toolCallId: id, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  });
  return new MockLanguageModelV4({
    doGenerate: [
      call("1", "grep", { pattern: "retries", include: "*.ts" }),
      call("2", "read", { path: "src/app.ts" }),
      call("3", "edit", { path: "src/app.ts", old_string: "retries = 3", new_string: "retries = 5" }),
      { content: [{ type: "text", text: "retries is now 5 in src/app.ts." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
    ],
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { text, toolResults } = await setRetries(scriptedModel(), process.argv[2] ?? process.cwd());
  const failed: string[] = [];
  for (const result of toolResults) {
    const output = result.output as ToolResult;
    const line = output.content.split("\n")[0];
    console.log(`[${result.toolName}]`, line);
    if (output.isError) failed.push(`${result.toolName} failed (${output.error?.code ?? "error"}): ${line}`);
  }
  // The model's answer is only a claim: a scripted one says it succeeded whatever the tools returned.
  if (failed.length > 0) {
    console.error(failed.join("\n"));
    process.exitCode = 1;
  } else {
    console.log(text);
  }
}
