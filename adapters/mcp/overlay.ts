// An MCP session over an overlay: its patch as a resource the client can show, and a `commit` tool that
// applies the changes only after the user approves them through elicitation.
import type { CallToolResult, ReadResourceResult, Resource, Tool as McpTool } from "@modelcontextprotocol/server";
import type { OverlayCommitResult, OverlayFileSystem } from "../../core/mod.ts";

/** The resource holding the session's uncommitted changes as one git-style patch. */
export const CHANGES_URI = "toolfs://overlay/changes.patch";

export const CHANGES_RESOURCE: Resource = {
  uri: CHANGES_URI,
  name: "changes.patch",
  title: "Uncommitted changes",
  description: "Every file the tools changed, as one git-style patch against the real files; nothing is applied until commit.",
  mimeType: "text/x-diff",
};

export const COMMIT_TOOL: McpTool = {
  name: "commit",
  title: "Commit changes",
  description:
    "Apply the changes made so far (kept apart from the real files until now) to the real files, once the user " +
    "approves. A file is applied only if nobody changed it meanwhile; otherwise nothing is applied and the result " +
    "lists the conflicts. paths limits the commit to those files or folders.",
  inputSchema: {
    type: "object",
    properties: { paths: { type: "array", items: { type: "string" }, description: "Files or folders to commit (default: every change)" } },
    additionalProperties: false,
  },
  annotations: { title: "Commit changes", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

/** What the user said about a commit, or that nobody can be asked. */
export type CommitApproval = "accept" | "decline" | "cancel" | "unavailable";

export async function readChanges(overlay: OverlayFileSystem): Promise<ReadResourceResult> {
  return { contents: [{ uri: CHANGES_URI, mimeType: "text/x-diff", text: await overlay.patch() }] };
}

/** Runs the commit tool: validates its arguments, asks the user, commits, and reports. */
export async function callCommit(
  overlay: OverlayFileSystem,
  args: Record<string, unknown>,
  ask: (message: string) => Promise<CommitApproval>,
  signal: AbortSignal | undefined,
): Promise<CallToolResult> {
  const extra = Object.keys(args).filter((key) => key !== "paths");
  const paths = args.paths;
  if (extra.length > 0 || (paths !== undefined && (!Array.isArray(paths) || paths.some((p) => typeof p !== "string" || p === "")))) {
    return failure("ToolError", "TOOL_INVALID_ARGUMENTS", "Invalid arguments for commit: give paths as a list of file or folder paths, or nothing");
  }
  const changes = overlay.changes();
  if (changes.length === 0)
    return { content: [{ type: "text", text: "Nothing to commit: no file was changed." }], structuredContent: { committed: [], conflicts: [], pending: [] } };
  const listed = changes.map((c) => `${c.path} (${c.status})`).join(", ");
  const scope =
    paths === undefined
      ? `${changes.length === 1 ? "1 changed file" : `${changes.length} changed files`}: ${listed}`
      : `${(paths as string[]).join(", ")} (of ${listed})`;
  const approval = await ask(`Apply ${scope} to the real files? The patch is the resource ${CHANGES_URI}.`);
  if (approval === "unavailable") {
    return failure(
      "McpError",
      "MCP_COMMIT_UNAPPROVED",
      `Nobody can approve a commit from this client, so nothing was applied. Tell the user the changes are in ${CHANGES_URI}.`,
    );
  }
  if (approval !== "accept")
    return failure("McpError", "MCP_COMMIT_UNAPPROVED", "The user did not approve the commit; nothing was applied. Do not retry it unless asked.");
  let result: OverlayCommitResult;
  try {
    result = await overlay.commit({ ...(paths === undefined ? {} : { paths: paths as string[] }), ...(signal ? { signal } : {}) });
  } catch (error) {
    // A path without changes (OverlayError), an abort or an I/O failure (FsError): reported, not thrown.
    const coded = error as { name?: unknown; code?: unknown; message?: unknown };
    if (typeof coded.code !== "string" || typeof coded.name !== "string") throw error;
    return failure(coded.name, coded.code, String(coded.message));
  }
  const structured = {
    committed: result.committed.map((c) => c.path),
    conflicts: result.conflicts.map((c) => ({ path: c.change.path, reason: c.reason, message: c.message })),
    pending: result.pending.map((c) => c.path),
  };
  if (result.ok) return { content: [{ type: "text", text: `Committed ${result.committed.map((c) => c.path).join(", ")}.` }], structuredContent: structured };
  const done = result.committed.length === 0 ? "Nothing was committed" : `Committed only ${structured.committed.join(", ")}`;
  const conflicts = result.conflicts.map((c) => `${c.message}.`).join(" ");
  const text = `${done}: ${conflicts} Read the files again, redo the changes on what they hold now, then commit again.`;
  return { content: [{ type: "text", text }], structuredContent: { ...structured, error: { name: "McpError", code: "MCP_COMMIT_CONFLICT" } }, isError: true };
}

function failure(name: string, code: string, text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: { error: { name, code } }, isError: true };
}
