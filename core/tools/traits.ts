// What hosts need to know about each tool besides its definition: how it treats the world (for MCP tool
// annotations, approval policies, UIs) and the shape of its result's meta (for structured output). Kept
// beside the tools so the adapters that publish them (MCP, agent SDKs) state one truth.
import { BUILTIN_TOOLS, type ToolName } from "./builtins.ts";
import type { DefinedTool, ToolTraits } from "./define.ts";

export type { ToolTraits } from "./define.ts";

/** The traits of each built-in tool (each tool carries its own: DefinedTool.traits). */
export const TOOL_TRAITS: Readonly<Record<ToolName, ToolTraits>> = Object.fromEntries(
  Object.values(BUILTIN_TOOLS).map((tool) => [tool.name, tool.traits]),
) as Record<ToolName, ToolTraits>;

const text = { type: "string" } as const;

/**
 * JSON Schema of a tool's structured result: the fields of its `meta` (all optional, since a failed call has
 * none) plus `error` ({name, code}) on failure.
 */
export function resultJsonSchema(tool: ToolName | Pick<DefinedTool, "result">): Record<string, unknown> {
  const meta = typeof tool === "string" ? BUILTIN_TOOLS[tool].result : tool.result;
  return {
    type: "object",
    properties: {
      ...meta,
      error: {
        type: "object",
        properties: { name: text, code: text },
        required: ["name", "code"],
        description: "Present when the call failed: the error family and its stable code",
      },
    },
  };
}

/** The structured form of a result: its meta, and `error` when it failed. */
export function structuredResult(result: {
  readonly meta: Readonly<Record<string, unknown>>;
  readonly error?: { readonly name: string; readonly code: string } | undefined;
}): Record<string, unknown> {
  return result.error ? { ...result.meta, error: { name: result.error.name, code: result.error.code } } : { ...result.meta };
}
