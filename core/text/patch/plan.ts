import { FILE_HEADERS_ONLY, formatPatch } from "diff";
import { quoteInput } from "../../errors/mod.ts";
import { textHunks } from "../diff.ts";
import { applyLineEnding, detectLineEnding, normalizeLineEndings } from "../eol.ts";
import { patchText } from "./apply.ts";
import { PatchError, type PatchProblem } from "./errors.ts";
import type { PatchOperation } from "./parse.ts";

/** The current text of a file, or undefined when there is none. */
export type ReadPatchedFile = (path: string) => Promise<string | undefined>;

export interface PlanOptions {
  /**
   * May `*** Add File` or `*** Move to` replace this existing file? The caller answers yes only when the
   * agent has read it (Codex replaces it silently; toolfs refuses by default). Called with the patch's path.
   */
  readonly replace?: (path: string) => boolean;
  /** The identity of a path, for telling two operations on one file apart; lexical normalization by default. */
  readonly key?: (path: string) => string;
  /** Lines of context in each file's diff (3 by default). */
  readonly context?: number;
}

export interface FileDiff {
  /** Unified diff text, LF line endings, `a/` and `b/` file names (`/dev/null` for a side that does not exist). */
  readonly text: string;
  readonly added: number;
  readonly removed: number;
  /** The diff was too large to match line by line; the changed region is one block (see core/text/diff.ts). */
  readonly coarse?: boolean;
}

/** One file's part of a plan: what is there now, what will be there, and the diff between. */
export type PlannedChange =
  | { readonly kind: "add"; readonly path: string; readonly line: number; readonly before: string | undefined; readonly after: string; readonly diff: FileDiff }
  | { readonly kind: "delete"; readonly path: string; readonly line: number; readonly before: string; readonly diff: FileDiff }
  | { readonly kind: "update"; readonly path: string; readonly line: number; readonly before: string; readonly after: string; readonly diff: FileDiff }
  | {
      readonly kind: "move";
      readonly path: string;
      readonly to: string;
      readonly line: number;
      readonly before: string;
      readonly after: string;
      /** The destination's text when the caller allowed replacing it. */
      readonly replaced: string | undefined;
      readonly diff: FileDiff;
    };

export interface PatchPlan {
  readonly changes: readonly PlannedChange[];
}

/**
 * Checks every operation of a patch against the files as `readFile` returns them, changing nothing, and
 * returns what each file becomes; or PATCH_REFUSED whose `details.problems` lists every problem found (files
 * that exist or are missing, two operations on one file, every hunk that does not fit), not only the first.
 */
export async function planPatch(operations: readonly PatchOperation[], readFile: ReadPatchedFile, options?: PlanOptions): Promise<PatchPlan> {
  const key = options?.key ?? lexicalKey;
  const replace = options?.replace ?? (() => false);
  const problems: PatchProblem[] = [];

  const claimed = new Map<string, { path: string; line: number }>();
  const claim = (path: string, line: number) => {
    const k = key(path);
    const earlier = claimed.get(k);
    if (earlier === undefined) claimed.set(k, { path, line });
    else {
      problems.push({
        code: "PATCH_PATH_CONFLICT",
        path,
        message: `${quoteInput(path)} is named by two operations (patch lines ${earlier.line} and ${line}); put every change to one file in one operation`,
        details: { path, line, lines: [earlier.line, line] },
      });
    }
  };
  for (const op of operations) {
    claim(op.path, op.line);
    if (op.kind === "update" && op.moveTo !== undefined && key(op.moveTo) !== key(op.path)) claim(op.moveTo, op.line);
  }

  const wanted = new Map<string, string>();
  const want = (path: string) => {
    if (!wanted.has(key(path))) wanted.set(key(path), path);
  };
  for (const op of operations) {
    want(op.path);
    if (op.kind === "update" && op.moveTo !== undefined) want(op.moveTo);
  }
  const texts = new Map<string, string | undefined>();
  await Promise.all([...wanted].map(async ([k, path]) => texts.set(k, await readFile(path))));
  const current = (path: string) => texts.get(key(path));

  const context = options?.context ?? 3;
  const changes: PlannedChange[] = [];
  const missing = (path: string, line: number, what: string) =>
    problems.push({
      code: "PATCH_FILE_MISSING",
      path,
      message: `${quoteInput(path)} does not exist, so it cannot be ${what} (patch line ${line})`,
      details: { path, line },
    });
  const exists = (path: string, line: number, what: string) =>
    problems.push({
      code: "PATCH_FILE_EXISTS",
      path,
      message: `${quoteInput(path)} already exists (patch line ${line}); ${what} replaces a file only after it has been read, so read it first or change it with "*** Update File"`,
      details: { path, line },
    });

  for (const op of operations) {
    const before = current(op.path);
    if (op.kind === "add") {
      if (before !== undefined && !replace(op.path)) exists(op.path, op.line, '"*** Add File"');
      // Over a file that was read and may be replaced, the new text keeps that file's line ending and BOM.
      const after = before === undefined ? op.text : withStyleOf(before, op.text);
      changes.push({
        kind: "add",
        path: op.path,
        line: op.line,
        before,
        after,
        diff: fileDiff(before === undefined ? undefined : op.path, op.path, before, after, context),
      });
    } else if (op.kind === "delete") {
      if (before === undefined) missing(op.path, op.line, "deleted");
      else changes.push({ kind: "delete", path: op.path, line: op.line, before, diff: fileDiff(op.path, undefined, before, "", context) });
    } else {
      const moving = op.moveTo !== undefined && key(op.moveTo) !== key(op.path);
      const destination = moving ? current(op.moveTo as string) : undefined;
      if (moving && destination !== undefined && !replace(op.moveTo as string)) exists(op.moveTo as string, op.line, '"*** Move to"');
      if (before === undefined) {
        missing(op.path, op.line, moving ? "moved" : "updated");
        continue;
      }
      const patched = patchText(before, op.hunks, { path: op.path });
      if (patched.text === undefined) {
        problems.push(...patched.problems);
        continue;
      }
      const after = patched.text;
      if (moving) {
        const to = op.moveTo as string;
        changes.push({
          kind: "move",
          path: op.path,
          to,
          line: op.line,
          before,
          after,
          replaced: destination,
          diff: fileDiff(op.path, to, before, after, context),
        });
      } else {
        changes.push({ kind: "update", path: op.path, line: op.line, before, after, diff: fileDiff(op.path, op.path, before, after, context) });
      }
    }
  }

  if (problems.length > 0) throw patchRefused(problems);
  return { changes };
}

/** PATCH_REFUSED listing every problem, each in its own words; `details.paths` names the files concerned. */
export function patchRefused(problems: readonly PatchProblem[]): PatchError {
  const paths = [...new Set(problems.flatMap((p) => (p.path === undefined ? [] : [p.path])))];
  const head =
    problems.length === 1
      ? "The patch was not applied; nothing was changed: "
      : `The patch was not applied; nothing was changed. ${problems.length} problems:\n- `;
  return new PatchError("PATCH_REFUSED", head + problems.map((p) => p.message).join("\n- "), { details: { problems, paths } });
}

function withStyleOf(existing: string, text: string): string {
  const bom = existing.charCodeAt(0) === 0xfeff ? "\ufeff" : "";
  return bom + applyLineEnding(text, detectLineEnding(bom ? existing.slice(1) : existing));
}

/** A unified diff of one file's change; `from`/`to` undefined stand for a side that does not exist. */
export function fileDiff(from: string | undefined, to: string | undefined, before: string | undefined, after: string, context = 3): FileDiff {
  const { hunks, coarse } = textHunks(normalizeLineEndings(stripBom(before ?? "")), normalizeLineEndings(stripBom(after)), { context });
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  const renamed = from !== undefined && to !== undefined && from !== to;
  if (hunks.length === 0 && !renamed && from !== undefined && to !== undefined) return { text: "", added, removed };
  const oldFileName = from === undefined ? "/dev/null" : `a/${from}`;
  const newFileName = to === undefined ? "/dev/null" : `b/${to}`;
  const text = formatPatch({ oldFileName, newFileName, oldHeader: undefined, newHeader: undefined, hunks }, FILE_HEADERS_ONLY);
  return { text, added, removed, ...(coarse ? { coarse } : {}) };
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** "./a//b/../c.ts" and "a/c.ts" are one file; ".." above the start stays, as the caller's resolver decides. */
export function lexicalKey(path: string): string {
  const absolute = path.startsWith("/");
  const parts: string[] = [];
  for (const part of path.replaceAll("\\", "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts.at(-1) !== "..") parts.pop();
    else parts.push(part);
  }
  return (absolute ? "/" : "") + parts.join("/");
}
