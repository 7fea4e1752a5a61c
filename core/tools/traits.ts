// What hosts need to know about each tool besides its definition: how it treats the world (for MCP tool
// annotations, approval policies, UIs) and the shape of its result's meta (for structured output). Kept
// beside the tools so the adapters that publish them (MCP, agent SDKs) state one truth.
import type { ToolName } from "./toolkit.ts";

/** How a tool behaves, stated the way MCP's tool annotations ask. */
export interface ToolTraits {
  /** A short human-readable name. */
  readonly title: string;
  /** Changes nothing outside the call's own output. */
  readonly readOnly: boolean;
  /** May overwrite or remove what exists (not only add). */
  readonly destructive: boolean;
  /** Repeating the call with the same arguments has no further effect. */
  readonly idempotent: boolean;
  /** May reach beyond the filesystem the toolkit serves (the network, other programs' state). */
  readonly openWorld: boolean;
}

/**
 * The traits of each tool. write replaces a file whole, so a repeat leaves the same bytes; edit can apply
 * again when new_string contains old_string, so it is not idempotent. bash runs any program, which can
 * reach the network, so it is the one tool that is open-world.
 */
export const TOOL_TRAITS: Readonly<Record<ToolName, ToolTraits>> = {
  read: { title: "Read file", readOnly: true, destructive: false, idempotent: true, openWorld: false },
  write: { title: "Write file", readOnly: false, destructive: true, idempotent: true, openWorld: false },
  edit: { title: "Edit file", readOnly: false, destructive: true, idempotent: false, openWorld: false },
  glob: { title: "Find files", readOnly: true, destructive: false, idempotent: true, openWorld: false },
  grep: { title: "Search file contents", readOnly: true, destructive: false, idempotent: true, openWorld: false },
  bash: { title: "Run bash command", readOnly: false, destructive: true, idempotent: false, openWorld: true },
};

const count = { type: "integer", minimum: 0 } as const;
const text = { type: "string" } as const;
const flag = { type: "boolean" } as const;

const META_PROPERTIES: Readonly<Record<ToolName, Readonly<Record<string, unknown>>>> = {
  read: {
    path: text,
    offset: { type: "integer", minimum: 1 },
    lines: count,
    totalLines: count,
    truncated: flag,
    bom: flag,
  },
  write: {
    path: text,
    operation: { type: "string", enum: ["create", "update"] },
    bytes: count,
    lines: count,
    added: count,
    removed: count,
    diff: text,
    coarse: flag,
  },
  edit: {
    path: text,
    replacements: count,
    lines: { type: "array", items: { type: "integer", minimum: 1 } },
    added: count,
    removed: count,
    diff: text,
    coarse: flag,
  },
  glob: {
    shape: { const: "paths" },
    root: text,
    paths: { type: "array", items: text },
    truncated: flag,
    total: count,
    lowerBound: flag,
    spill: text,
    searchedBy: text,
  },
  grep: {
    shape: { const: "matches" },
    files: {
      type: "array",
      items: {
        type: "object",
        properties: {
          path: text,
          matches: {
            type: "array",
            items: { type: "object", properties: { lineNumber: { type: "integer", minimum: 1 }, line: text }, required: ["lineNumber", "line"] },
          },
        },
        required: ["path", "matches"],
      },
    },
    truncated: flag,
    total: count,
    lowerBound: flag,
    spill: text,
    searchedBy: text,
  },
  bash: {
    exitCode: { type: ["integer", "null"] },
    signal: { type: ["string", "null"] },
    timedOut: flag,
    outputBytes: count,
    omittedBytes: count,
  },
};

/**
 * JSON Schema of a tool's structured result: the fields of its `meta` (all optional, since a failed call has
 * none) plus `error` ({name, code}) on failure.
 */
export function resultJsonSchema(name: ToolName): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      ...META_PROPERTIES[name],
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
