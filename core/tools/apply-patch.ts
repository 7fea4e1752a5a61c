// `apply_patch`: the patch format of OpenAI's Codex (core/text/patch/) as a tool over the seam. Everything is
// checked before anything changes (read-before-write for every file, the fence, every hunk); then each file is
// published under the guard of the version checked, so a concurrent writer makes the rest of the patch stop and
// the error says exactly which files changed. docs/notes/0021-apply-patch.md, 0022-delete-move-tools.md.
import { z } from "zod";
import { FsError, isFsError } from "../fs/errors.ts";
import type { FsTarget, FsVersion, FsWriteGuard } from "../fs/types.ts";
import { encodeUtf8, decodeText } from "../text/utf8.ts";
import { isPatchError, PatchError, type PatchProblem } from "../text/patch/errors.ts";
import { type PlannedChange, parsePatch, patchRefused, planPatch } from "../text/patch/mod.ts";
import { type CallContext, plural, type Tool, type ToolEnv, type ToolOutput } from "./tool.ts";

export interface ApplyPatchArgs {
  readonly input: string;
}

/** One file of an apply_patch result (`meta.files`): a surface shows `diff` as that file's change. */
export interface PatchedFile {
  readonly path: string;
  readonly operation: "add" | "update" | "delete" | "move";
  /** A move's source. */
  readonly from?: string;
  /** Unified diff, LF line endings, cut at `limits.diffBytes`. */
  readonly diff: string;
  readonly added: number;
  readonly removed: number;
}

/** A file the patch names, as it was when checked. */
interface Named {
  readonly target: FsTarget;
  readonly shown: string;
  /** The text with its BOM as U+FEFF, or undefined when nothing is there. */
  readonly text: string | undefined;
  readonly version: FsVersion | undefined;
  /** The name is a symbolic link (its text and version are its target's). */
  readonly link: boolean;
}

export function applyPatchTool(env: ToolEnv): Tool<ApplyPatchArgs> {
  return {
    name: "apply_patch",
    mutates: true,
    sequenced: false,
    description:
      "Add, update, delete and move files with one patch, checked whole first: nothing changes unless every part applies. " +
      (env.ledger ? "Files it updates, deletes, moves or replaces must have been read in this session. " : "") +
      "Format: *** Begin Patch, then per file *** Add File: <path> (lines starting +), *** Delete File: <path>, or " +
      "*** Update File: <path> (optionally *** Move to: <path>) with hunks: @@ [a line to find first], then lines " +
      'starting " " (context, 3 lines around each change), - (remove), + (add); last *** End Patch.',
    schema: z.object({ input: z.string().min(1).describe("The patch text, from *** Begin Patch to *** End Patch") }).strict(),
    guidance:
      "apply_patch changes several files in one call (add, update, delete, move); paths are relative to the working directory" +
      (env.ledger ? ", and a file must be read before it is updated, deleted, moved or replaced" : "") +
      ".",
    run: (args, call) => runApplyPatch(env, args, call),
  };
}

async function runApplyPatch(env: ToolEnv, args: ApplyPatchArgs, call: CallContext): Promise<ToolOutput> {
  const { ledger } = env;
  const operations = parsePatch(args.input);
  const named = new Map<string, Named>();
  const paths = [...new Set(operations.flatMap((op) => (op.kind === "update" && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path])))];
  // Read one at a time: a patch names few files, and the reads stay in the order a user would check them.
  for (const path of paths) named.set(path, await inspect(env, path, call));
  const file = (path: string) => named.get(path) as Named;

  // Read-before-write: every file the patch changes that exists must be the version this actor read.
  const fresh = (n: Named) => {
    const seen = ledger?.observed(call.actor, n.target.key);
    return seen?.kind === "present" && seen.version === n.version;
  };
  const problems: PatchProblem[] = [];
  // The seam deletes and moves a symbolic link itself, and only a file at a version: caught here, not midway.
  const linked = (n: Named, line: number, what: string) =>
    problems.push({
      code: "FS_NOT_REGULAR_FILE",
      path: n.shown,
      message: `"${n.shown}" is a symbolic link; apply_patch ${what} files only, not links (patch line ${line})`,
      details: { path: n.shown, line },
    });
  for (const op of operations) {
    const n = file(op.path);
    if (op.kind === "delete" && n.link) linked(n, op.line, "deletes");
    if (op.kind === "update" && op.moveTo !== undefined && file(op.moveTo).target.key !== n.target.key) {
      if (n.link) linked(n, op.line, "moves");
      if (file(op.moveTo).link) linked(file(op.moveTo), op.line, "replaces");
    }
  }
  if (ledger) {
    for (const op of operations) {
      const n = file(op.path);
      if (op.kind === "add" || n.text === undefined || fresh(n)) continue;
      const seen = ledger.observed(call.actor, n.target.key);
      problems.push(
        seen === undefined
          ? {
              code: "FS_NOT_OBSERVED",
              path: op.path,
              message: `"${n.shown}" has not been read in this session; read it first (patch line ${op.line})`,
              details: { path: n.shown, line: op.line },
            }
          : {
              code: "FS_STALE_VERSION",
              path: op.path,
              message: `"${n.shown}" changed since it was read; read it again (patch line ${op.line})`,
              details: { path: n.shown, line: op.line },
            },
      );
    }
  }
  let changes: readonly PlannedChange[] = [];
  try {
    ({ changes } = await planPatch(operations, async (path) => file(path).text, {
      key: (path) => file(path).target.key,
      // Add File over a file, or Move to onto one, only when this actor read that file as it is now.
      replace: (path) => !ledger || fresh(file(path)),
    }));
  } catch (error) {
    if (!isPatchError(error, "PATCH_REFUSED")) throw error;
    problems.push(...(error.details.problems ?? []));
  }
  if (problems.length > 0) throw patchRefused(problems);

  // The fence, for every name the patch changes, before the first change (it is asked again at each publication).
  if (call.fence) {
    try {
      for (const change of changes) {
        await call.fence(file(change.path).target);
        if (change.kind === "move") await call.fence(file(change.to).target);
      }
    } catch (error) {
      throw refusedWhole(error);
    }
  }

  const done: PatchedFile[] = [];
  for (const [i, change] of changes.entries()) {
    try {
      done.push(await publish(env, change, file, call));
    } catch (error) {
      throw partial(changes, i, done, error, file);
    }
  }
  return output(env, done);
}

// What the patch names at `path`: resolved, fenced for reading, read whole (the planner needs the text).
async function inspect(env: ToolEnv, path: string, call: CallContext): Promise<Named> {
  const target = await env.fs.resolve(call.roots.resolve(path), { cwd: call.cwd, signal: call.signal });
  const shown = call.roots.show(target.displayPath);
  // The result shows each file's old lines, so the patch may touch only what may be read.
  call.access?.check(target, "change");
  try {
    const { bytes, version } = await env.fs.readBytes(target, { maxBytes: env.limits.editMaxBytes, signal: call.signal });
    const { text, bom } = decodeText(bytes, { path: shown });
    const link = (await env.fs.lstat(target.displayPath, { signal: call.signal }))?.type === "symlink";
    return { target, shown, text: bom ? `\uFEFF${text}` : text, version, link };
  } catch (error) {
    if (isFsError(error, "FS_NOT_FOUND")) return { target, shown, text: undefined, version: undefined, link: false };
    if (isFsError(error, "FS_TOO_LARGE")) {
      throw new FsError("FS_TOO_LARGE", `Cannot patch "${shown}": it is larger than ${env.limits.editMaxBytes} bytes, the most apply_patch loads`, {
        cause: error,
        details: error.details,
      });
    }
    throw error;
  }
}

// One change, published under the guard of the version checked; the ledger learns each new version at once.
async function publish(env: ToolEnv, change: PlannedChange, file: (path: string) => Named, call: CallContext): Promise<PatchedFile> {
  const { fs, ledger } = env;
  const source = file(change.path);
  const options = { signal: call.signal, fence: call.fence };
  const diff = cutDiff(change.diff.text, env.limits.diffBytes);
  const counts = { diff, added: change.diff.added, removed: change.diff.removed };
  if (change.kind === "delete") {
    await fs.remove(source.target, { ...options, guard: { kind: "ifVersion", version: source.version as FsVersion } });
    ledger?.record(call.actor, source.target.key, { kind: "absent" });
    return { path: source.shown, operation: "delete", ...counts };
  }
  if (change.kind === "move") {
    const to = file(change.to);
    const moved = await fs.move(source.target, to.target, {
      ...options,
      guard: { kind: "ifVersion", version: source.version as FsVersion },
      replace: to.version === undefined ? false : { version: to.version },
      parents: true,
    });
    ledger?.record(call.actor, source.target.key, { kind: "absent" });
    if (moved.version !== undefined) ledger?.record(call.actor, moved.destination.key, { kind: "present", version: moved.version });
    if (change.after !== change.before) {
      const guard: FsWriteGuard = moved.version === undefined ? { kind: "createIfAbsent" } : { kind: "replaceIfVersion", version: moved.version };
      try {
        const written = await fs.write(moved.destination, encodeUtf8(change.after), { ...options, guard });
        ledger?.record(call.actor, written.target.key, { kind: "present", version: written.version });
      } catch (error) {
        throw new MovedNotWritten(error);
      }
    }
    return { path: to.shown, operation: "move", from: source.shown, ...counts };
  }
  const guard: FsWriteGuard = source.version === undefined ? { kind: "createIfAbsent" } : { kind: "replaceIfVersion", version: source.version };
  const written = await fs.write(source.target, encodeUtf8(change.after), { ...options, guard });
  ledger?.record(call.actor, written.target.key, { kind: "present", version: written.version });
  return { path: source.shown, operation: change.kind, ...counts };
}

// A move that happened whose new content could not be written: the file changed (it has its new name).
class MovedNotWritten extends Error {
  readonly reason: unknown;
  constructor(reason: unknown) {
    super("moved, but its changes were not written");
    this.reason = reason;
  }
}

const VERB = { add: "added", update: "updated", delete: "deleted", move: "moved" } as const;

// The error for a patch stopped midway: what changed, what did not, and why it stopped. Never a silent partial.
function partial(changes: readonly PlannedChange[], at: number, done: readonly PatchedFile[], error: unknown, file: (path: string) => Named): unknown {
  const movedOnly = error instanceof MovedNotWritten;
  const cause = movedOnly ? error.reason : error;
  if (at === 0 && !movedOnly) return refusedWhole(cause);
  const failing = changes[at] as PlannedChange;
  const name = (c: PlannedChange) => (c.kind === "move" ? `${file(c.path).shown} -> ${file(c.to).shown}` : file(c.path).shown);
  const changed = done.map((f) => ({ path: f.path, operation: f.operation, ...(f.from === undefined ? {} : { from: f.from }) }));
  if (movedOnly && failing.kind === "move") changed.push({ path: file(failing.to).shown, operation: "move", from: file(failing.path).shown });
  const unchanged = changes.slice(movedOnly ? at + 1 : at).map((c) => file(c.path).shown);
  const why = cause instanceof Error ? cause.message : String(cause);
  const code = isFsError(cause) ? cause.code : undefined;
  const lines = [
    `The patch was applied only in part: ${movedOnly ? `${name(failing)} was moved, but its edits were not written` : `${name(failing)} could not be ${VERB[failing.kind]}`} (${why}).`,
    `Changed: ${changed.length === 0 ? "nothing" : changed.map((c) => `${c.from === undefined ? c.path : `${c.from} -> ${c.path}`} (${VERB[c.operation]})`).join(", ")}.`,
    `Not changed: ${unchanged.length === 0 ? "nothing" : unchanged.join(", ")}.`,
    "Read the files not changed again, then send a patch for what is left.",
  ];
  return new PatchError("PATCH_PARTIALLY_APPLIED", lines.join("\n"), {
    cause,
    details: { changed, unchanged, failed: file(failing.path).shown, ...(code === undefined ? {} : { failedCode: code }) },
  });
}

// Nothing changed at all: the file's own error (its code and details, for the escalation of a sandbox refusal), saying so.
function refusedWhole(error: unknown): unknown {
  if (!isFsError(error)) return error;
  return new FsError(error.code, `The patch was not applied; nothing was changed: ${error.message}`, { cause: error, details: error.details });
}

function output(env: ToolEnv, files: readonly PatchedFile[]): ToolOutput {
  const mark = { add: "A", update: "M", delete: "D", move: "R" } as const;
  const summary = files.map((f) => `${mark[f.operation]} ${f.from === undefined ? f.path : `${f.from} -> ${f.path}`} (+${f.added} -${f.removed})`);
  let budget = env.limits.diffBytes;
  const diffs: string[] = [];
  let left = 0;
  for (const f of files) {
    if (f.diff === "") continue;
    if (f.diff.length > budget) left++;
    else {
      diffs.push(f.diff.endsWith("\n") ? f.diff.slice(0, -1) : f.diff);
      budget -= f.diff.length;
    }
  }
  const more = left > 0 ? `\n\n[diffs of ${plural(left, "more file")} left out]` : "";
  const content = `Applied the patch: ${plural(files.length, "file")} changed.\n${summary.join("\n")}${diffs.length > 0 ? `\n\n${diffs.join("\n")}` : ""}${more}`;
  return { content, meta: { files } };
}

// A diff cut at whole lines to about `maxBytes` characters, saying so.
function cutDiff(text: string, maxBytes: number): string {
  if (text.length <= maxBytes) return text;
  const end = text.lastIndexOf("\n", maxBytes);
  return `${text.slice(0, end > 0 ? end + 1 : maxBytes)}[diff cut at ${maxBytes} bytes]\n`;
}
