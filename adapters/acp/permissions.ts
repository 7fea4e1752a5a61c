// Which tool calls need the user's permission, and what a session remembers of the answers.
import type * as acp from "@agentclientprotocol/sdk";

/**
 * By the permission each tool's record states (`edit` or `execute`), never by its name. `ask`: every such call
 * (write, edit, a patch, a delete or move, bash, a host's tool) is put to the user. `allow-edits`: file changes
 * run unasked, commands are put to the user. `allow-all`: nothing is asked.
 */
export type PermissionMode = "ask" | "allow-edits" | "allow-all";

export const PERMISSION_MODES: readonly PermissionMode[] = ["ask", "allow-edits", "allow-all"];

/** What an answer is remembered for: changes to files, or commands. */
export type PermissionKind = "edit" | "execute";

/** Whether `mode` puts a call of `kind` to the user. */
export function asks(mode: PermissionMode, kind: PermissionKind): boolean {
  return mode === "ask" || (mode === "allow-edits" && kind === "execute");
}

/** The options offered for a call of `kind`; their ids are their kinds. */
export function permissionOptions(kind: PermissionKind): acp.PermissionOption[] {
  const what = kind === "edit" ? "file changes" : "commands";
  return [
    { optionId: "allow_once", name: "Allow", kind: "allow_once" },
    { optionId: "allow_always", name: `Allow all ${what} in this session`, kind: "allow_always" },
    { optionId: "reject_once", name: "Reject", kind: "reject_once" },
    { optionId: "reject_always", name: `Reject all ${what} in this session`, kind: "reject_always" },
  ];
}

/** What the agent does with an answer: run the call or not, and what to remember for the kind. */
export type Decision =
  | { readonly run: true; readonly remember?: "allow" }
  | {
      readonly run: false;
      readonly remember?: "reject";
      /** Answered from an earlier "always" without asking. */
      readonly standing?: true;
      readonly code: "PERMISSION_REJECTED" | "PERMISSION_CANCELLED" | "PERMISSION_UNAVAILABLE";
    };

/** Reads the client's answer. An option id the agent did not offer counts as a refusal. */
export function decide(response: acp.RequestPermissionResponse): Decision {
  const outcome = response.outcome;
  if (outcome.outcome !== "selected") return { run: false, code: "PERMISSION_CANCELLED" };
  switch (outcome.optionId) {
    case "allow_once":
      return { run: true };
    case "allow_always":
      return { run: true, remember: "allow" };
    case "reject_always":
      return { run: false, remember: "reject", code: "PERMISSION_REJECTED" };
    default:
      return { run: false, code: "PERMISSION_REJECTED" };
  }
}

/** What the model is told when a call was not run for want of permission. */
export function refusalText(tool: string, kind: PermissionKind, code: Extract<Decision, { run: false }>["code"], standing: boolean): string {
  const what = kind === "execute" ? "command" : tool;
  if (code === "PERMISSION_UNAVAILABLE") return `This ${what} needs the user's permission and the client could not be asked, so it was not run.`;
  if (code === "PERMISSION_CANCELLED") return `The permission request for this ${what} was withdrawn, so it was not run.`;
  return standing
    ? `The user has refused every ${kind === "execute" ? "command" : "file change"} in this session; this ${what} was not run.`
    : `The user refused this ${what}; nothing was run or changed. Do not repeat it; ask the user or take another way.`;
}
