// Sandbox escalation: a write or edit the sandbox refused may be retried, once, with a wider mode the host
// approves for that call and destination only. docs/notes (sandbox escalation) give the rule.
import { z } from "zod";
import { FsError, isFsError } from "../fs/errors.ts";
import type { FileSystem, FsFence, FsTarget } from "../fs/types.ts";
import { accessWords, isWiderMode, rulesFence, type SandboxMode, type SandboxRule, type SandboxRules, widerModes } from "../policy/sandbox.ts";
import type { ApprovalRequest } from "./approval.ts";
import type { SandboxOptions } from "./options.ts";
import type { WorkspaceRoots } from "./roots.ts";
import type { CallContext, Tool } from "./tool.ts";
import { ToolError, type ToolResult } from "./types.ts";

export interface Escalation {
  readonly mode: SandboxMode;
  readonly justification: string;
}

/** A refused write or edit, as the sandbox judged it: what an escalation of its retry is asked about. */
export interface Denial {
  readonly tool: string;
  /** The canonical target the call resolved. */
  readonly key: string;
  /** The canonical destination the fence refused (the target, or where it had moved by publication). */
  readonly destination: string;
  readonly rule: SandboxRule;
  readonly reason: string;
}

/** Runs mutations under the sandbox, remembering per actor the last refusal an escalation may retry. */
export class Escalations {
  readonly #fs: FileSystem;
  readonly #sandbox: SandboxOptions;
  readonly #roots: WorkspaceRoots;
  // Per actor: the last write or edit the sandbox refused, the only call an escalation may retry.
  readonly #denied = new Map<unknown, Denial>();

  constructor(fs: FileSystem, sandbox: SandboxOptions, roots: WorkspaceRoots) {
    this.#fs = fs;
    this.#sandbox = sandbox;
    this.#roots = roots;
  }

  // A mutation under the sandbox: the fence for the standing mode, or, for a retry of the call the sandbox
  // just refused, a wider mode the host approved for this one call.
  async run(
    tool: Tool<Record<string, unknown>>,
    args: Record<string, unknown>,
    call: CallContext,
    escalation: Escalation | undefined,
    rules: SandboxRules,
    run: (tool: Tool<Record<string, unknown>>, args: Record<string, unknown>, call: CallContext) => Promise<ToolResult>,
  ): Promise<ToolResult> {
    const sandbox = this.#sandbox;
    // A tool without one `path` (apply_patch, move) checks its own paths; its retry is known by its arguments.
    const target = typeof args.path === "string" ? (call.target ?? (await this.#fs.resolve(args.path, { cwd: call.cwd, signal: call.signal }))) : undefined;
    const key = target ? target.key : `${tool.name}:${JSON.stringify(args)}`;
    // A write shows the bytes it replaces (its diff), so it may reach only what may be read.
    if (target) call.access?.check(target, "write");
    let mode = sandbox.mode;
    let fence = rulesFence(this.#fs, rules, mode);
    if (escalation) {
      const denied = this.#denied.get(call.actor);
      if (!denied || denied.tool !== tool.name || denied.key !== key) {
        throw new ToolError(
          "TOOL_INVALID_ARGUMENTS",
          "sandbox_permissions is only valid when retrying, once, a write or edit the sandbox has just refused; call without it",
        );
      }
      this.#denied.delete(call.actor);
      if (!isWiderMode(escalation.mode, mode)) {
        throw new ToolError("TOOL_INVALID_ARGUMENTS", `sandbox_permissions must be wider than the current mode (${mode})`);
      }
      mode = await this.#approve(tool.name, target, denied, escalation, call);
      fence = approvedFence(mode, rulesFence(this.#fs, rules, mode), fence, denied.destination);
    }
    try {
      const result = await run(tool, args, { ...call, fence });
      this.#denied.delete(call.actor);
      return result;
    } catch (error) {
      if (!isFsError(error, "FS_SANDBOX_DENIED")) {
        this.#denied.delete(call.actor);
        throw error;
      }
      // The deny list holds in every mode: no wider mode would let this call through.
      if (error.details.rule === "deny") {
        this.#denied.delete(call.actor);
        throw error;
      }
      const details = error.details;
      this.#denied.set(call.actor, {
        tool: tool.name,
        key,
        destination: typeof details.destination === "string" ? details.destination : typeof details.path === "string" ? details.path : key,
        rule: details.rule as SandboxRule,
        reason: typeof details.reason === "string" ? details.reason : error.message,
      });
      const wider = widerModes(mode);
      const choices = wider.length === 1 ? `"${wider[0]}"` : `${wider.map((m) => `"${m}"`).join(" or ")} (the narrowest that suffices)`;
      // Only when someone can answer: telling the model "the user will be asked" with no approver is false.
      const hint =
        wider.length === 0 || escalation || !sandbox.approve
          ? ""
          : `\n[escalation] If this write is necessary, retry this exact call once with sandbox_permissions set to ${choices} ` +
            "and a one-sentence justification; the user will be asked.";
      throw new FsError("FS_SANDBOX_DENIED", `${error.message}${hint}`, { cause: error, details: error.details });
    }
  }

  async #approve(tool: string, target: FsTarget | undefined, denied: Denial, escalation: Escalation, call: CallContext): Promise<SandboxMode> {
    const approve = this.#sandbox.approve;
    if (!approve) {
      throw new ToolError("TOOL_ESCALATION_UNAVAILABLE", "No one can approve wider sandbox permissions here; nothing was changed");
    }
    const request: ApprovalRequest = {
      tool,
      path: this.#roots.show(target ? target.displayPath : denied.destination),
      destination: denied.destination,
      rule: denied.rule,
      reason: denied.reason,
      from: this.#sandbox.mode,
      mode: escalation.mode,
      justification: escalation.justification,
      actor: call.actor,
      signal: call.signal,
    };
    const outcome = await approve(request);
    if (outcome === "allowed-once") return escalation.mode;
    if (outcome === "cancelled") {
      throw new ToolError("TOOL_ESCALATION_CANCELLED", "The approval request was cancelled; nothing was changed");
    }
    throw new ToolError("TOOL_ESCALATION_REJECTED", `The user declined ${accessWords(escalation.mode)} for this call; nothing was changed. Do not retry it`);
  }
}

/**
 * The fence of an approved call: the wider mode holds for the destination the user was shown, and for no
 * other. A path that resolves elsewhere by the time of the write (a symlink repointed after the approval) is
 * judged under the standing mode, and refused saying what was approved.
 */
function approvedFence(mode: SandboxMode, wider: FsFence, standing: FsFence, approved: string): FsFence {
  return async (destination) => {
    if (destination.key === approved) return await wider(destination);
    try {
      await standing(destination);
    } catch (error) {
      if (!isFsError(error, "FS_SANDBOX_DENIED")) throw error;
      const message = `${error.message}; the user approved ${accessWords(mode)} for "${approved}" only, and the path now leads elsewhere`;
      throw new FsError("FS_SANDBOX_DENIED", message, { cause: error, details: error.details });
    }
  };
}

export function withEscalation(schema: z.ZodType<Record<string, unknown>>, mode: SandboxMode): z.ZodType<Record<string, unknown>> {
  const wider = widerModes(mode) as [SandboxMode, ...SandboxMode[]];
  const object = schema as unknown as z.ZodObject;
  return object
    .extend({
      sandbox_permissions: z.enum(wider).optional().describe("Only when retrying, once, a call the sandbox just refused: the wider mode to ask the user for"),
      justification: z.string().optional().describe("With sandbox_permissions: one sentence telling the user why this call needs it"),
    })
    .strict()
    .refine((args) => (args.sandbox_permissions === undefined) === (args.justification === undefined), {
      message: "sandbox_permissions and justification go together",
    })
    .refine((args) => typeof args.justification !== "string" || args.justification.trim() !== "", {
      message: "justification must be a sentence, not blank",
    }) as unknown as z.ZodType<Record<string, unknown>>;
}
