// The OpenAI Agents quick start: an agent whose file tools are toolfs's, plus apply_patch through a toolfs
// Editor. Run it with `npx tsx examples/openai-agents.ts DIR`; without a model it replays a scripted one (see
// scriptedModel) so it needs no key. With OPENAI_API_KEY set, pass a model name such as "gpt-5" instead. It
// exits 1, naming the calls that failed, when a tool call or the patch failed.
import { Agent, applyPatchTool, type Model, type ModelResponse, type RunItem, run, setTracingDisabled, Usage } from "@openai/agents";
import { createToolkit } from "toolfs";
import { createNodeProvider, createNodeSearchBackend } from "toolfs/node";
import { createOpenAIAgentsTools, createToolfsEditor } from "toolfs/openai-agents";

/** Asks the agent to set retries to 5 in DIR's src/app.ts and to add a changelog; resolves to its final output. */
export async function setRetries(model: Model | string, dir: string) {
  const fs = createNodeProvider({ cwd: dir });
  const toolkit = createToolkit({ fs, search: createNodeSearchBackend(), sandbox: { mode: "workspace-write" } });
  const agent = new Agent({
    name: "coder",
    instructions: toolkit.guidance,
    model,
    // Strict schemas by default: optional fields are sent as null and dropped before the toolkit sees them.
    tools: [...createOpenAIAgentsTools(toolkit), applyPatchTool({ editor: createToolfsEditor({ fs }) })],
  });
  const result = await run(agent, "Set retries to 5 in src/app.ts and start a CHANGELOG.md.");
  return { text: result.finalOutput, items: result.newItems };
}

/** A model that calls grep, read, edit and apply_patch, then answers: a stand-in for a real model. */
export function scriptedModel(): Model {
  const turns: ModelResponse["output"][] = [
    [{ type: "function_call", callId: "1", name: "grep", arguments: JSON.stringify({ pattern: "retries", path: null, include: "*.ts" }), status: "completed" }],
    [{ type: "function_call", callId: "2", name: "read", arguments: JSON.stringify({ path: "src/app.ts", offset: null, limit: null }), status: "completed" }],
    [
      {
        type: "function_call",
        callId: "3",
        name: "edit",
        arguments: JSON.stringify({ path: "src/app.ts", old_string: "retries = 3", new_string: "retries = 5", replace_all: null }),
        status: "completed",
      },
    ],
    [
      {
        type: "apply_patch_call",
        callId: "4",
        status: "completed",
        operation: { type: "create_file", path: "CHANGELOG.md", diff: "+# Changelog\n+\n+- retries is now 5\n" },
      },
    ],
    [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "retries is now 5, and CHANGELOG.md records it." }] }],
  ];
  let turn = 0;
  return {
    async getResponse() {
      return { usage: new Usage(), output: turns[Math.min(turn++, turns.length - 1)]! };
    },
    getStreamedResponse() {
      throw new Error("the scripted model does not stream");
    },
  };
}

/** The tool calls of a run that failed: a toolfs tool's error result, or an apply_patch the editor refused. */
export function failedCalls(items: RunItem[]): string[] {
  const failed: string[] = [];
  for (const item of items) {
    if (item.type !== "tool_call_output_item") continue;
    const toolfs = (item.customData as { toolfs?: { isError: boolean; error?: { code: string } } } | undefined)?.toolfs;
    const raw = item.rawItem;
    const line = String(item.output).split("\n")[0];
    if (toolfs?.isError) failed.push(`${"name" in raw ? raw.name : "tool"} failed (${toolfs.error?.code ?? "error"}): ${line}`);
    else if (raw.type === "apply_patch_call_output" && raw.status === "failed") failed.push(`apply_patch failed: ${line}`);
  }
  return failed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  setTracingDisabled(true); // the scripted model has nowhere to send traces
  const { text, items } = await setRetries(scriptedModel(), process.argv[2] ?? process.cwd());
  // The model's answer is only a claim: a scripted one says it succeeded whatever the tools returned.
  const failed = failedCalls(items);
  if (failed.length > 0) {
    console.error(failed.join("\n"));
    process.exitCode = 1;
  } else {
    console.log(text);
  }
}
