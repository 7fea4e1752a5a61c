// What a file-changing call shows a client, for any tool (no table of names): the files it names before it
// runs (its path, a move's from and to, the files of a patch it carries), their text then, the patch itself in
// the permission request, and afterwards one ACP `diff` per file its result reports in `meta.files`.
// docs/notes/0018-open-tools.md, "Destructive tools on every surface".
import type * as acp from "@agentclientprotocol/sdk";
import { decodeText, type FileSystem, resolvePath } from "../../core/mod.ts";

/** A file's text before or after a call, to show the change as a diff. */
export type Snapshot = { readonly state: "absent" } | { readonly state: "text"; readonly text: string } | { readonly state: "unknown" };

// Files larger than this are not loaded to show a diff; the tool's own result text stands in.
const DIFF_MAX_BYTES = 1024 * 1024;
// What one call's snapshots may hold in all: a patch of many large files shows the rest as their diffs' text.
const SNAPSHOT_BUDGET_BYTES = 16 * 1024 * 1024;

const PATCH_START = "*** Begin Patch";
const PATCH_FILE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/;

/** The patch a call carries: a string argument in the apply_patch format (Codex's `*** Begin Patch`). */
export function carriedPatch(args: Readonly<Record<string, unknown>>): string | undefined {
  for (const value of Object.values(args)) if (typeof value === "string" && value.trimStart().startsWith(PATCH_START)) return value;
  return undefined;
}

/** Every path a call names: `path`, a move's `from` and `to`, and the files of a patch it carries, in order. */
export function namedPaths(args: Readonly<Record<string, unknown>>): string[] {
  const paths: string[] = [];
  for (const key of ["path", "from", "to"]) if (typeof args[key] === "string" && args[key] !== "") paths.push(args[key] as string);
  const patch = carriedPatch(args);
  if (patch !== undefined) {
    for (const line of patch.split(/\r?\n/)) {
      const named = PATCH_FILE.exec(line)?.[1]?.trim();
      if (named) paths.push(named);
    }
  }
  return [...new Set(paths)];
}

export async function snapshot(fs: FileSystem, path: string, signal: AbortSignal, budget?: { left: number }): Promise<Snapshot> {
  try {
    const target = await fs.resolve(path, { signal });
    const info = await fs.stat(target, { signal });
    if (info === undefined) return { state: "absent" };
    if (info.type !== "file") return { state: "unknown" };
    if (budget && info.size > budget.left) return { state: "unknown" };
    const { bytes } = await fs.readBytes(target, { maxBytes: DIFF_MAX_BYTES, signal });
    if (budget) budget.left -= bytes.byteLength;
    return { state: "text", text: decodeText(bytes).text };
  } catch {
    // Too large, not text, unreadable: the result's own text describes the change instead.
    return { state: "unknown" };
  }
}

/** The files' text before a call, by canonical path. */
export async function snapshots(fs: FileSystem, canonicalPaths: readonly string[], signal: AbortSignal): Promise<Map<string, Snapshot>> {
  const budget = { left: SNAPSHOT_BUDGET_BYTES };
  const taken = new Map<string, Snapshot>();
  for (const path of canonicalPaths) if (!taken.has(path)) taken.set(path, await snapshot(fs, path, signal, budget));
  return taken;
}

/** The patch as the user is asked about it: the text the model sent, whole. */
export function patchContent(patch: string): acp.ToolCallContent {
  return { type: "content", content: { type: "text", text: patch } };
}

/** One changed file as a tool result reports it in `meta.files`. */
interface ChangedFile {
  readonly path: string;
  readonly operation: "add" | "update" | "delete" | "move";
  readonly from?: string;
  readonly diff?: string;
}

/** The result's `meta.files`, when it has that shape. */
export function changedFiles(meta: Readonly<Record<string, unknown>>): ChangedFile[] | undefined {
  const files = meta.files;
  if (!Array.isArray(files) || files.length === 0) return undefined;
  const operations = new Set(["add", "update", "delete", "move"]);
  for (const file of files) {
    if (typeof file !== "object" || file === null) return undefined;
    const { path, operation, from } = file as Record<string, unknown>;
    if (typeof path !== "string" || typeof operation !== "string" || !operations.has(operation)) return undefined;
    if (from !== undefined && typeof from !== "string") return undefined;
  }
  return files as ChangedFile[];
}

/**
 * One ACP `diff` per changed file: a deletion is a diff to nothing (newText ""), a move the source's text
 * before against the destination's after, under the destination's path (`_meta.toolfs` says which). A file
 * whose text before or after is not at hand (too large, not text, beyond the budget) is shown as the unified
 * diff of its result, in words.
 */
export async function filesContent(
  fs: FileSystem,
  cwd: string,
  files: readonly ChangedFile[],
  before: ReadonlyMap<string, Snapshot>,
  canonical: (path: string) => Promise<string>,
  signal: AbortSignal,
): Promise<{ content: acp.ToolCallContent[]; locations: acp.ToolCallLocation[] }> {
  const content: acp.ToolCallContent[] = [];
  const locations: acp.ToolCallLocation[] = [];
  const budget = { left: SNAPSHOT_BUDGET_BYTES };
  for (const file of files) {
    const path = resolvePath(cwd, file.path);
    const from = file.from === undefined ? undefined : resolvePath(cwd, file.from);
    if (file.operation !== "delete") locations.push({ path });
    const old: Snapshot =
      file.operation === "add" ? { state: "absent" } : (before.get(await canonical(from ?? path)) ?? before.get(from ?? path) ?? { state: "unknown" });
    const after: Snapshot = file.operation === "delete" ? { state: "text", text: "" } : await snapshot(fs, path, signal, budget);
    if (old.state === "unknown" || after.state !== "text" || (old.state === "absent" && file.operation !== "add")) {
      const what = `${file.operation} ${file.path}${file.from === undefined ? "" : ` (from ${file.from})`}`;
      content.push({ type: "content", content: { type: "text", text: file.diff ? `${what}\n${file.diff}` : what } });
      continue;
    }
    const marked = file.operation === "delete" || file.operation === "move";
    content.push({
      type: "diff",
      path,
      oldText: old.state === "text" ? old.text : null,
      newText: after.text,
      ...(marked ? { _meta: { toolfs: { operation: file.operation, ...(from === undefined ? {} : { from }) } } } : {}),
    });
  }
  return { content, locations };
}
