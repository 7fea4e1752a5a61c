// Sessions on an overlay: a checkpoint before every prompt turn, and the slash commands a user types to see
// the changes, apply them, or undo the last turn (files and conversation both).
import type * as acp from "@agentclientprotocol/sdk";
import type { OverlayFileSystem } from "../../core/mod.ts";
import type { ModelMessage } from "./model.ts";

/** The commands an overlay session advertises (`available_commands_update`). */
export const OVERLAY_COMMANDS: acp.AvailableCommand[] = [
  { name: "changes", description: "Show every file changed so far, as a patch; nothing is applied to the real files yet" },
  { name: "commit", description: "Apply the changes to the real files, each only if nobody changed it meanwhile" },
  { name: "undo", description: "Put the files back as they were before the last turn, and forget that turn" },
];

/** What an overlay session keeps to undo its turns. */
export interface OverlayState {
  readonly fs: OverlayFileSystem;
  /** Per prompt turn, oldest first: the checkpoint taken before it and the conversation's length then. */
  readonly turns: { readonly checkpoint: string; readonly history: number }[];
  /** A commit applied changes: the turns before it are in the real files and are no longer undone here. */
  committed?: boolean;
}

/** Called before a prompt turn runs: remembers the files and the conversation as they are. */
export function beginTurn(state: OverlayState, history: readonly ModelMessage[]): void {
  state.turns.push({ checkpoint: state.fs.checkpoint(`before turn ${state.turns.length + 1}`), history: history.length });
}

/** The command a prompt names (`/undo`, with nothing after it), or undefined for a prompt for the model. */
export function commandOf(text: string): string | undefined {
  const match = /^\/(\w+)\s*$/.exec(text.trim());
  return match && OVERLAY_COMMANDS.some((c) => c.name === match[1]) ? match[1] : undefined;
}

/** Runs a command; returns the text to show the user. */
export async function runCommand(name: string, state: OverlayState, history: ModelMessage[], forget: () => void, signal: AbortSignal): Promise<string> {
  const { fs } = state;
  if (name === "changes") {
    const patch = await fs.patch({ signal });
    return patch === "" ? "No changes yet." : `${plural(fs.changes().length)} changed, not applied yet (/commit applies them):\n\n\`\`\`diff\n${patch}\`\`\``;
  }
  if (name === "commit") {
    if (fs.changes().length === 0) return "Nothing to commit.";
    const result = await fs.commit({ signal });
    const committed = result.committed.map((c) => c.path).join(", ");
    // What is in the real files now cannot be taken back by restoring the overlay.
    if (result.committed.length > 0) {
      state.turns.length = 0;
      state.committed = true;
    }
    if (result.ok) return `Committed ${committed}.`;
    const done = result.committed.length === 0 ? "Nothing was committed" : `Committed only ${committed}`;
    const left = result.pending.length === 0 ? "" : ` Still not applied: ${result.pending.map((c) => c.path).join(", ")}.`;
    return `${done}: ${result.conflicts.map((c) => `${c.message}.`).join(" ")}${left}`;
  }
  const last = state.turns.pop();
  if (!last) return state.committed ? "Nothing to undo since the last commit: what it applied is in the real files now." : "Nothing to undo.";
  const undone = fs.changes({ since: last.checkpoint });
  await fs.restore(last.checkpoint);
  history.length = last.history;
  // The conversation no longer shows what the model read during that turn, so nothing it read counts.
  forget();
  const files = undone.length === 0 ? "no file had changed" : `${undone.map((c) => c.path).join(", ")} ${undone.length === 1 ? "is" : "are"} back as before`;
  return `Undid the last turn: ${files}, and the conversation forgets it.`;
}

function plural(files: number): string {
  return files === 1 ? "1 file" : `${files} files`;
}
