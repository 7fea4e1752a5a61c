// What a person is shown when the model asks for wider sandbox access for one call: built once here, so the
// CLI prompt, the MCP elicitation and the ACP permission request say the same thing, and name the file the
// write would really change (through any symlink), not only the path the model spelled.
import { accessWords, type SandboxMode, type SandboxRule } from "../policy/sandbox.ts";

/** What a host decides about one escalation request. */
export type ApprovalOutcome = "allowed-once" | "rejected" | "cancelled";

export interface ApprovalRequest {
  readonly tool: string;
  /** The destination as the model gave it, shown as results show paths (relative to its workspace root). */
  readonly path: string;
  /**
   * The canonical absolute path the write would change, symlinks followed: what an approval allows. If the
   * path resolves elsewhere by the time of the write, the write is refused.
   */
  readonly destination: string;
  /** Which sandbox rule refused the call. */
  readonly rule: SandboxRule;
  /** Why, in words: "it is outside the writable roots (/ws, /tmp)". */
  readonly reason: string;
  /** The mode the call ran under when refused. */
  readonly from: SandboxMode;
  readonly mode: SandboxMode;
  readonly justification: string;
  readonly actor: unknown;
  readonly signal: AbortSignal | undefined;
}

/** The request in words: a one-line `title` and the `lines` under it. */
export interface ApprovalText {
  /** "full access to write /elsewhere/notes.txt (given as notes.txt)". */
  readonly title: string;
  readonly lines: readonly string[];
}

// A justification longer than this is cut: it is the model's text, shown to a person who must read it all.
const JUSTIFICATION_CHARS = 500;

/**
 * The request in words, for whoever asks the person. Paths and the justification come from the model (or
 * the filesystem): control characters are escaped, so a newline cannot forge a line of the request.
 */
export function approvalText(request: ApprovalRequest): ApprovalText {
  const destination = printable(request.destination);
  const given = request.path === request.destination ? "" : ` (given as ${printable(request.path)})`;
  let justification = printable(request.justification.trim());
  if (justification.length > JUSTIFICATION_CHARS) justification = `${justification.slice(0, JUSTIFICATION_CHARS)}… [cut]`;
  return {
    title: `${accessWords(request.mode)} to ${request.tool} ${destination}${given}`,
    lines: [`Refused under ${accessWords(request.from)} because ${printable(request.reason)}.`, `The model's reason: ${justification}`],
  };
}

/** The request as one block of text: the title as a sentence, then its lines. */
export function approvalMessage(request: ApprovalRequest): string {
  const text = approvalText(request);
  return [`The model asks for ${text.title}, for this call only.`, ...text.lines].join("\n");
}

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

// Control characters, line separators and bidirectional overrides, which could make text read as other text.
function printable(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this makes visible.
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
