// The toolkit's options and interface, and the one place that decides whether bash may be offered.
import type { FileSystem } from "../fs/types.ts";
import type { ReadScope, SandboxMode } from "../policy/sandbox.ts";
import type { ShellConfinement } from "../process/bubblewrap.ts";
import type { ProcessRunner } from "../process/types.ts";
import type { SearchBackend } from "../search/backend.ts";
import type { SpillStore } from "../spill/mod.ts";
import type { ApprovalOutcome, ApprovalRequest } from "./approval.ts";
import type { ToolName } from "./builtins.ts";
import type { DefinedTool } from "./define.ts";
import type { PdfLoader } from "./read-pdf.ts";
import type { ToolLimits } from "./tool.ts";
import type { ToolCallOptions, ToolDefinition, ToolResult } from "./types.ts";

export interface SandboxOptions {
  readonly mode: SandboxMode;
  /** Writable in workspace-write mode; defaults to the toolkit's workspace (its first root; later roots are writable too). */
  readonly workspaceRoot?: string;
  /** Further writable roots, such as the system's temp directories; the guidance names them. */
  readonly writableRoots?: readonly string[];
  /**
   * Where read, glob and grep may look (and what a confined bash sees): `"anywhere"` (default), or
   * `"workspace"`: the workspace root, the writable roots and `readableRoots` only, judged on canonical paths.
   */
  readonly readScope?: ReadScope;
  /** Absolute directories readable under the "workspace" read scope besides the workspace and writable roots. */
  readonly readableRoots?: readonly string[];
  /**
   * Paths no tool may read or write and a confined bash cannot see, in every mode: globs such as `.env` or `*.pem`
   * (a name at any depth), `~/.ssh` or `/abs/path`; relative ones with a `/` start at the workspace.
   */
  readonly deny?: readonly string[];
  /** What `~` stands for in deny patterns; defaults to the toolkit's `home`. */
  readonly home?: string;
  /**
   * Read-only even inside a writable root, besides `.git` (always protected): names (for that name in every
   * writable root) or absolute paths.
   */
  readonly protectedPaths?: readonly string[];
  /** Whether a confined bash may use the network; default false, except under full-access (with a deny list). */
  readonly network?: boolean;
  /**
   * How bash is confined by the operating system (see detectBubblewrap). Without an available one, bash is not
   * offered under read-only or workspace-write, nor with a deny list or the workspace read scope. Under the
   * workspace read scope or a deny list, glob and grep on ripgrep run inside it too; without it they run on
   * the engine (docs/notes/0016-confined-search.md).
   */
  readonly confinement?: ShellConfinement;
  /**
   * Asked when the model retries a denied write with a wider mode. Without it, the model is not offered
   * escalation at all: write and edit get no `sandbox_permissions` field and refusals no retry hint.
   */
  readonly approve?: (request: ApprovalRequest) => Promise<ApprovalOutcome>;
}

/** Whether bash can be offered under a sandbox, and how; the reason when it cannot. */
export type BashOffer = { readonly offered: true; readonly confined: boolean } | { readonly offered: false; readonly reason: string };

/**
 * The one place that decides whether bash may be offered under `sandbox`. Without a sandbox, or under
 * full-access with neither a deny list nor the workspace read scope, bash runs as it is. Otherwise it must run confined by the operating system,
 * or not at all: an unconfined bash would write (and read) where the file tools are refused.
 */
export function bashOffer(sandbox: Pick<SandboxOptions, "mode" | "deny" | "readScope" | "confinement"> | undefined): BashOffer {
  const hides = (sandbox?.deny ?? []).length > 0 || sandbox?.readScope === "workspace";
  if (!sandbox || (sandbox.mode === "full-access" && !hides)) return { offered: true, confined: false };
  if (sandbox.confinement?.available) return { offered: true, confined: true };
  const why = sandbox.mode !== "full-access" ? `the ${sandbox.mode} sandbox` : (sandbox.deny ?? []).length > 0 ? "the deny list" : "the workspace read scope";
  const detail = sandbox.confinement ? (sandbox.confinement.reason ?? "confinement is unavailable") : "no OS confinement (bubblewrap) was configured";
  return { offered: false, reason: `bash is not available: its commands cannot be held to ${why} here (${detail})` };
}

export interface ToolkitOptions {
  readonly fs: FileSystem;
  /**
   * Registered tools, in order: built-in ones by name, a host's own as `defineTool` made them. Defaults to
   * every built-in tool the options make possible.
   */
  readonly tools?: readonly (ToolName | DefinedTool)[];
  /**
   * Absolute directory relative paths start from and paths are shown relative to; defaults to the provider's
   * cwd. Or several workspace roots, the first being that directory: each is writable and readable as the
   * workspace is, and a path inside a later root is shown, and may be given, as the root's name and the path
   * inside it (`lib/src/a.ts`); see WorkspaceRoots in core/tools/roots.ts for the rule.
   */
  readonly workspace?: string | readonly string[];
  readonly limits?: Partial<ToolLimits>;
  /** "read-before-write" (default): writes and edits are guarded by what the actor read. "none": unguarded. */
  readonly policy?: "read-before-write" | "none";
  readonly sandbox?: SandboxOptions;
  /** Runs glob and grep; without it those tools are not registered by default. */
  readonly search?: SearchBackend;
  /** Keeps complete over-cap glob and grep results for the model to page through. */
  readonly spill?: SpillStore;
  /** How an over-cap glob page is chosen: a sample across top-level entries (default), or the oldest. */
  readonly overCap?: "sample" | "head";
  /**
   * Runs bash on the host; without it bash is not registered by default. Under a confining sandbox (or a deny
   * list) its commands run inside `sandbox.confinement`, and without an available one bash is not offered. A
   * runner that cannot stop the background jobs of a command (its `treeStopGap` says why) leaves bash registered
   * but refusing every command, saying why.
   */
  readonly runner?: ProcessRunner;
  /**
   * Environment variables bash commands inherit besides {@link DEFAULT_BASH_ENV}: names, or prefixes ending in
   * `*` (`NODE_*`); `["*"]` passes the whole environment. Nothing else of the host's environment (API keys,
   * tokens) reaches a command, confined or not.
   */
  readonly bashEnv?: readonly string[];
  /**
   * The user's home directory (absolute). A path argument `~` or `~/…` starts there, as in a shell; without
   * it such a path is refused (TOOL_INVALID_ARGUMENTS) rather than looked up as a name in the working
   * directory. A file literally named `~` is reached as `./~`. Also what `~` means in `sandbox.deny`.
   */
  readonly home?: string;
  /**
   * Loads the PDF library read uses to show a PDF's text; defaults to importing the optional package unpdf
   * when a PDF is first read. Without it installed, such a read fails TOOL_UNAVAILABLE naming the package.
   */
  readonly pdf?: PdfLoader;
}

export interface Toolkit {
  /** The registered tools as a model sees them. */
  readonly definitions: readonly ToolDefinition[];
  /** Tools the options would have offered but that were left out, and why (say it to the user once). */
  readonly withheld: Readonly<Partial<Record<ToolName, string>>>;
  /** System-prompt guidance for the registered tools. */
  readonly guidance: string;
  /** A registered tool: its traits, result schema, kind and permission, for surfaces that publish them. */
  tool(name: string): DefinedTool | undefined;
  /** Runs one call. Never throws: every failure is a result with `isError` and a code. */
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult>;
  /**
   * Forgets what `actor` (or every actor) has read, so each write of an existing file and each edit needs a
   * fresh read: for when files changed in a way the actor was not shown (an overlay put back to a checkpoint).
   */
  forget(actor?: unknown): void;
}
