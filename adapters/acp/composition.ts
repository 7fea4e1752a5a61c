import { bashOffer, type DefinedTool, type SandboxOptions, type Toolkit, type ToolDefinition, type ToolLimits, type ToolName } from "../../core/mod.ts";

/** What one agent offers a model: its tools, their limits, and how its system prompt opens. */
export interface Composition {
  readonly name: string;
  /** The registered tools, in the order the model sees them: built-in ones by name, a host's own (defineTool). */
  readonly tools: readonly (ToolName | DefinedTool)[];
  readonly limits: Partial<ToolLimits>;
  /** The system prompt's first line; `{cwd}` stands for the session's working directory. */
  readonly intro: string;
  /** Offer `apply_patch` (after `edit`) when the model was trained on it (Model.applyPatch). */
  readonly applyPatch?: boolean;
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
    tools: ["read", "write", "edit", "delete", "move", "glob", "grep", "bash"],
    limits: {},
    applyPatch: true,
    intro:
      "You are a coding agent working in {cwd}; relative paths start there. Change only what the task needs and " +
      "check it with a command when one exists. The user may refuse a change or a command; do not repeat a refused one.",
  },
};

/**
 * Whether bash can be offered under a sandbox: core's `bashOffer`, the one place that decides it for every
 * surface. Under read-only, workspace-write, a deny list or the workspace read scope, bash must run confined by
 * the operating system (`sandbox.confinement`); where it cannot be, it is left out, and the model and the log
 * are told why.
 */
export function bashUnder(
  sandbox: Pick<SandboxOptions, "mode" | "deny" | "readScope" | "confinement"> | undefined,
): { readonly offered: true } | { readonly offered: false; readonly reason: string } {
  const bash = bashOffer(sandbox);
  return bash.offered ? { offered: true } : bash;
}

/** The tools a session offers: the composition's, less bash where the sandbox rules it out. */
export function sessionTools(
  composition: Composition,
  sandbox: Pick<SandboxOptions, "mode" | "deny" | "readScope" | "confinement"> | undefined,
  model?: { readonly applyPatch?: boolean } | undefined,
): { readonly tools: readonly (ToolName | DefinedTool)[]; readonly notes: readonly string[] } {
  let tools = composition.tools;
  if (composition.applyPatch && model?.applyPatch === true && !tools.includes("apply_patch")) {
    const at = tools.indexOf("edit") + 1;
    tools = [...tools.slice(0, at), "apply_patch", ...tools.slice(at)];
  }
  const bash = bashUnder(sandbox);
  if (bash.offered || !tools.includes("bash")) return { tools, notes: [] };
  return { tools: tools.filter((t) => t !== "bash"), notes: [bash.reason] };
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
