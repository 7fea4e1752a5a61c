/**
 * The toolkit as an AI SDK (`ai` 7) ToolSet, for `generateText`, `streamText` and `ToolLoopAgent`. Each tool
 * keeps the toolkit's description and JSON Schema; the toolkit judges the arguments; the abort signal reaches
 * the running call; the model reads the text, and the tool result keeps `meta` (paths, matches, diff) and the
 * error code for UIs; each tool's metadata carries its traits and the permission it is asked under (`edit`,
 * `execute`), for a host's `toolApproval`. Also the other way round: `createAiSdkModel` makes any AI SDK language model the ACP
 * agent's model. `ai` is an optional peer dependency, loaded only by this entry point.
 *
 * @module
 */
import { jsonSchema, type JSONSchema7, tool, type ToolSet } from "ai";
import { partText, resultText, textParts, type Toolkit, type ToolResult } from "../../core/mod.ts";

export interface AiToolSetOptions {
  /**
   * Whose reads authorize whose writes (see ToolCallOptions.actor). Default: a new actor for this tool set, so
   * two agents given two tool sets never authorize each other's writes.
   */
  readonly actor?: unknown;
  /** Absolute directory relative paths start from; default: the toolkit's workspace. */
  readonly cwd?: string;
}

/** What a toolfs tool returns to the AI SDK: the toolkit's result as it is. */
export type AiToolOutput = ToolResult;

/** The toolkit's registered tools as an AI SDK ToolSet, keyed by tool name. */
export function createAiToolSet(toolkit: Toolkit, options?: AiToolSetOptions): ToolSet {
  const actor = options?.actor ?? Symbol("toolfs AI SDK tool set");
  const tools: ToolSet = {};
  for (const definition of toolkit.definitions) {
    const registered = toolkit.tool(definition.name)!;
    const traits = registered.traits;
    tools[definition.name] = tool({
      description: definition.description,
      // No validator: the toolkit validates and answers bad arguments with a coded result the model can fix.
      inputSchema: jsonSchema<unknown>(definition.inputSchema as JSONSchema7),
      execute: (input, { abortSignal }) =>
        toolkit.call(definition.name, input, { actor, ...(abortSignal ? { signal: abortSignal } : {}), ...(options?.cwd ? { cwd: options.cwd } : {}) }),
      toModelOutput: ({ output }: { output: AiToolOutput }) => modelOutput(output),
      // What a host's `toolApproval` (generateText, streamText, ToolLoopAgent) decides by: no tool-level
      // needsApproval, which AI SDK 7 deprecates and which would stop every loop at each write.
      metadata: {
        source: "toolfs",
        title: traits.title,
        readOnly: traits.readOnly,
        destructive: traits.destructive,
        idempotent: traits.idempotent,
        openWorld: traits.openWorld,
        ...(registered.permission ? { permission: registered.permission } : {}),
      },
    });
  }
  return tools;
}

// The text alone where there is nothing else; with parts, an image as a file part the provider passes to the
// model (or describes, where it cannot), and any other part in words. The AI SDK has no link part, so a link
// the text already names (a spill) is left out: the model reads the footer once, and the result keeps it.
function modelOutput(output: AiToolOutput) {
  if (output.isError) return { type: "error-text" as const, value: resultText(output) };
  const parts = textParts(output.parts);
  if (parts.length === 0) return { type: "text" as const, value: output.content };
  const value = parts.map((part) =>
    part.type === "image"
      ? { type: "file" as const, mediaType: part.mediaType, data: { type: "data" as const, data: part.data } }
      : { type: "text" as const, text: partText(part) },
  );
  return { type: "content" as const, value: [{ type: "text" as const, text: output.content }, ...value] };
}

export { createAiSdkModel } from "./acp-model.ts";
export type { AiSdkModelOptions } from "./acp-model.ts";
