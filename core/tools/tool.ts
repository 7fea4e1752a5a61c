import { z } from "zod";
import type { FileSystem, FsFence, FsTarget } from "../fs/types.ts";
import type { ReadAccess } from "../policy/access.ts";
import type { ObservationLedger } from "../policy/ledger.ts";
import type { ProcessRunner } from "../process/types.ts";
import type { SearchBackend } from "../search/backend.ts";
import type { SpillStore } from "../spill/mod.ts";
import type { PdfLoader } from "./read-pdf.ts";
import type { WorkspaceRoots } from "./roots.ts";
import type { ContentPart } from "./types.ts";

/** Every limit the tools apply; each is configurable. */
export interface ToolLimits {
  /** Default and maximum lines per read. */
  readonly readLines: number;
  /** Characters kept per line in read output. */
  readonly readLineChars: number;
  /** Byte budget of one read's selected lines; for a PDF, the characters of page text shown. */
  readonly readBytes: number;
  /** Largest image file read sends as an image; a larger one is refused (read does not resize). */
  readonly imageBytes: number;
  /** Most pixels on either side of an image read sends. */
  readonly imageMaxSide: number;
  /** Most pixels (width times height) of an image read sends. */
  readonly imagePixels: number;
  /** Largest notebook (.ipynb) read loads whole to parse. */
  readonly notebookBytes: number;
  /** Largest PDF read loads (it parses a whole file in memory). */
  readonly readPdfBytes: number;
  /** Largest file edit loads whole. */
  readonly editMaxBytes: number;
  /** Largest previous content write loads to diff against (and to keep its line endings and BOM). */
  readonly writeDiffMaxBytes: number;
  /** Cap on the diff text shown after write and edit. */
  readonly diffBytes: number;
  /** Paths a glob shows inline. */
  readonly globMaxResults: number;
  /** Matches a grep shows inline. */
  readonly grepMaxMatches: number;
  /** Bytes kept of each matching line's preview. */
  readonly grepLineBytes: number;
  /** Milliseconds a search may run. */
  readonly searchTimeoutMs: number;
  /**
   * Bytes of an over-cap glob or grep result's complete list kept in the spill: once the list passes them the
   * search stops, and the footer gives the counts so far as lower bounds. Results are streamed, so what a
   * search holds in memory does not grow with its size, whatever this is.
   */
  readonly spillBytes: number;
  /** Cap on the serialized meta of a search result. */
  readonly searchMetaBytes: number;
  /** Milliseconds a bash command may run when the call sets no timeout. */
  readonly bashTimeoutMs: number;
  /** The longest timeout a bash call may ask for, in milliseconds. */
  readonly bashMaxTimeoutMs: number;
  /** Bytes of a bash command's combined output shown: half from the start, half from the end. */
  readonly bashOutputBytes: number;
}

export const DEFAULT_LIMITS: ToolLimits = {
  readLines: 2000,
  readLineChars: 2000,
  readBytes: 50 * 1024,
  imageBytes: 5 * 1024 * 1024,
  imageMaxSide: 8000,
  imagePixels: 40_000_000,
  notebookBytes: 32 * 1024 * 1024,
  readPdfBytes: 32 * 1024 * 1024,
  editMaxBytes: 64 * 1024 * 1024,
  writeDiffMaxBytes: 10 * 1024 * 1024,
  diffBytes: 8 * 1024,
  globMaxResults: 100,
  grepMaxMatches: 250,
  grepLineBytes: 2000,
  searchTimeoutMs: 30_000,
  spillBytes: 128 * 1024 * 1024,
  searchMetaBytes: 64 * 1024,
  bashTimeoutMs: 120_000,
  bashMaxTimeoutMs: 600_000,
  bashOutputBytes: 50 * 1024,
};

/** What every tool of one toolkit shares. */
export interface ToolEnv {
  readonly fs: FileSystem;
  /** The workspace roots: how paths are shown and, when there are several, what descriptions say of them. */
  readonly roots: WorkspaceRoots;
  readonly limits: ToolLimits;
  /** The read-before-write ledger; absent when the toolkit runs without that policy. */
  readonly ledger: ObservationLedger | undefined;
  /** Whether a tool of that name is registered and can run, for advice that names only tools the model can use. */
  has(name: string): boolean;
  /** Runs glob and grep; undefined when the toolkit has no search. */
  readonly search: SearchBackend | undefined;
  /** Keeps complete over-cap results; undefined when results are not kept. */
  readonly spill: SpillStore | undefined;
  /** How an over-cap glob page is chosen. */
  readonly overCap: "sample" | "head";
  /** Runs bash; undefined when the toolkit runs no processes. */
  readonly runner: ProcessRunner | undefined;
  /** The variables bash commands inherit (ProcessSpec.inheritEnv); absent: all of them. */
  readonly bashEnv?: readonly string[] | undefined;
  /** Loads the PDF library for read; absent: unpdf, imported when a PDF is first read. */
  readonly pdf?: PdfLoader | undefined;
  /** What the sandbox lets a confined bash do ("sandboxed: ..."), for its description; undefined when bash is not confined. */
  readonly bashSandbox?: string | undefined;
}

/** One call's circumstances. */
export interface CallContext {
  readonly signal: AbortSignal | undefined;
  /** Absolute base for relative paths. */
  readonly cwd: string;
  /** How paths are shown: relative to the workspace root they are in (`roots.show`). */
  readonly roots: WorkspaceRoots;
  readonly actor: unknown;
  /** The sandbox fence for this call's publications, when the toolkit confines writes. */
  readonly fence: FsFence | undefined;
  /** What this call may read, when the sandbox limits reads (a read scope or a deny list). */
  readonly access?: ReadAccess | undefined;
  /** The call's `path`, already resolved by the toolkit (for sequenced tools), so it is resolved only once. */
  readonly target?: FsTarget;
}

export interface ToolOutput {
  readonly content: string;
  readonly meta: Record<string, unknown>;
  /** Content beyond the text (an image, a link to a spill), for surfaces that can show it. */
  readonly parts?: readonly ContentPart[];
}

/** A tool as the toolkit registers it. */
export interface Tool<Args = never> {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType<Args>;
  /** One short paragraph for the system prompt. */
  readonly guidance: string;
  /** Publishes through the fence (write, edit): gets sandbox escalation fields when the fence confines. */
  readonly mutates: boolean;
  /**
   * Reads or records what the ledger knows about its `path` (read, write, edit): one actor's calls of such
   * tools on one file run one at a time, in arrival order.
   */
  readonly sequenced?: boolean;
  /** The arguments that name paths (a root's name and `~` expanded in each); `["path"]` by default. */
  readonly paths?: readonly string[];
  run(args: Args, call: CallContext): Promise<ToolOutput>;
}

/** What a `path` argument's description adds when there are several roots (and nothing with one). */
export function otherRoots(roots: WorkspaceRoots): string {
  return roots.several ? `; a path in another root starts with its name (${roots.named.map((root) => root.name).join(", ")})` : "";
}

/** `n thing` or `n things` (or the given plural form). */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

/** The JSON Schema a model sees for `schema`: input shape, no draft URL, no unbounded-integer noise. */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  delete json.$schema;
  return prune(json) as Record<string, unknown>;
}

function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if ((key === "maximum" && inner === Number.MAX_SAFE_INTEGER) || (key === "minimum" && inner === Number.MIN_SAFE_INTEGER)) continue;
    out[key] = prune(inner);
  }
  return out;
}
