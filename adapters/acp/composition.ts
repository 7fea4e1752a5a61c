import type { Toolkit, ToolDefinition, ToolLimits, ToolName } from "../../core/mod.ts";

/** What one agent offers a model: its tools, their limits, and how its system prompt opens. */
export interface Composition {
  readonly name: string;
  /** The registered tools, in the order the model sees them. */
  readonly tools: readonly ToolName[];
  readonly limits: Partial<ToolLimits>;
  /** The system prompt's first line; `{cwd}` stands for the session's working directory. */
  readonly intro: string;
}

/** The compositions `toolfs acp --composition` accepts. */
export const COMPOSITIONS: Readonly<Record<string, Composition>> = {
  "bash-glob-grep": {
    name: "bash-glob-grep",
    tools: ["bash", "glob", "grep"],
    // Small enough that a handful of files shows the over-cap sampling.
    limits: { globMaxResults: 4 },
    intro: "You are a coding agent working in {cwd}; relative paths start there.",
  },
};

/** What a model receives before the conversation: the system prompt and the tool schemas. */
export interface RequestHeader {
  readonly system: string;
  readonly tools: readonly ToolDefinition[];
}

/** The header of a session in `cwd` whose tools are `toolkit` (built from `composition`). */
export function requestHeader(composition: Composition, toolkit: Toolkit, cwd: string): RequestHeader {
  return { system: `${composition.intro.replaceAll("{cwd}", cwd)}\n\n${toolkit.guidance}`, tools: toolkit.definitions };
}
