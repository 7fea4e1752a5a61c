// Asking the person through the client (MCP elicitation): whether a sandbox escalation may run once, and
// whether the overlay's changes may be committed. A failed or timed-out request counts as cancelled.
import type { ElicitResult, Server } from "@modelcontextprotocol/server";
import { approvalMessage, approvalText, type ApprovalOutcome, type ApprovalRequest } from "../../core/mod.ts";
import type { CommitApproval } from "./overlay.ts";

// How long a person may take to answer an escalation request before it counts as cancelled.
const APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** Whether the client can show a form; a bare `elicitation: {}` predates modes and means form support. */
export function canElicit(server: Server): boolean {
  const elicitation = server.getClientCapabilities()?.elicitation as Record<string, unknown> | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || Object.keys(elicitation).length === 0);
}

/** Asks whether an escalation may run once. */
export async function elicitApproval(server: Server, request: ApprovalRequest, log: (line: string) => void): Promise<ApprovalOutcome> {
  let answer: ElicitResult;
  try {
    answer = await server.elicitInput(
      {
        mode: "form",
        message: approvalMessage(request),
        requestedSchema: {
          type: "object",
          properties: { allow: { type: "boolean", title: "Allow this once", description: approvalText(request).title } },
          required: ["allow"],
        },
      },
      { timeout: APPROVAL_TIMEOUT_MS, ...(request.signal ? { signal: request.signal } : {}) },
    );
  } catch (error) {
    log(`toolfs mcp: the approval request failed: ${(error as Error).message}`);
    return "cancelled";
  }
  if (answer.action === "accept") return answer.content?.allow === true ? "allowed-once" : "rejected";
  return answer.action === "decline" ? "rejected" : "cancelled";
}

/** Asks whether the overlay's changes may be written to the real files; "unavailable" when the client cannot be asked. */
export async function elicitCommit(server: Server, message: string, signal: AbortSignal, log: (line: string) => void): Promise<CommitApproval> {
  if (!canElicit(server)) return "unavailable";
  try {
    const answer = await server.elicitInput(
      {
        mode: "form",
        message,
        requestedSchema: {
          type: "object",
          properties: { apply: { type: "boolean", title: "Apply the changes", description: "Write them to the real files" } },
          required: ["apply"],
        },
      },
      { timeout: APPROVAL_TIMEOUT_MS, signal },
    );
    if (answer.action === "accept") return answer.content?.apply === true ? "accept" : "decline";
    return answer.action;
  } catch (error) {
    log(`toolfs mcp: the commit approval request failed: ${(error as Error).message}`);
    return "cancel";
  }
}
