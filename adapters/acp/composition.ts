import type { SandboxMode, Toolkit, ToolDefinition, ToolLimits, ToolName } from "../../core/mod.ts";

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
  coding: {
    name: "coding",
    tools: ["read", "write", "edit", "glob", "grep", "bash"],
    limits: {},
    intro:
      "You are a coding agent working in {cwd}; relative paths start there. Change only what the task needs and " +
      "check it with a command when one exists. The user may refuse a change or a command; do not repeat a refused one.",
  },
};

/**
 * Whether bash can be offered under a sandbox mode. bash runs on the host, outside the file tools' fence, so
 * under a confining mode (read-only, workspace-write) it would write where the fence refuses; it is left out
 * instead, and the model and the log are told why. This is the one place that decides it: an OS-confined
 * runner makes it true for those modes.
 */
export function bashUnder(mode: SandboxMode | undefined): { readonly offered: true } | { readonly offered: false; readonly reason: string } {
  if (mode === undefined || mode === "full-access") return { offered: true };
  return { offered: false, reason: `bash is not available in this session: commands cannot yet be confined to the ${mode} sandbox.` };
}

/** The tools a session offers: the composition's, less bash where the sandbox mode rules it out. */
export function sessionTools(composition: Composition, mode: SandboxMode | undefined): { readonly tools: readonly ToolName[]; readonly notes: readonly string[] } {
  const bash = bashUnder(mode);
  if (bash.offered || !composition.tools.includes("bash")) return { tools: composition.tools, notes: [] };
  return { tools: composition.tools.filter((t) => t !== "bash"), notes: [bash.reason] };
}

/** What a model receives before the conversation: the system prompt and the tool schemas. */
export interface RequestHeader {
  readonly system: string;
  readonly tools: readonly ToolDefinition[];
}

/** The header of a session in `cwd` whose tools are `toolkit` (built from `composition`), with `notes` after the guidance. */
export function requestHeader(composition: Composition, toolkit: Toolkit, cwd: string, notes: readonly string[] = []): RequestHeader {
  const parts = [composition.intro.replaceAll("{cwd}", cwd), toolkit.guidance, ...notes];
  return { system: `${parts[0]}\n\n${parts.slice(1).join("\n")}`, tools: toolkit.definitions };
}
