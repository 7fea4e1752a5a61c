import { z } from "zod";
import { FsError, isFsError } from "../fs/errors.ts";
import { baseName, compareUtf8, joinPath, parentPath } from "../fs/paths.ts";
import type { FsTarget } from "../fs/types.ts";
import { IMAGE_SNIFF_BYTES, sniffImage } from "../media/image.ts";
import { readWindow, type ReadWindow } from "../text/window.ts";
import { peekStream } from "./peek.ts";
import { isNotebookPath, readImage, readNotebook } from "./read-media.ts";
import { isPdf, loadUnpdf, readPdf } from "./read-pdf.ts";
import { type CallContext, otherRoots, plural, type Tool, type ToolEnv, type ToolOutput } from "./tool.ts";
import { ToolError } from "./types.ts";

// One reused buffer (reuseBuffer) of 1 MiB: a scan through a large file costs one call and no allocation per
// megabyte. Measured with bench/read-edit.ts: 64 KiB chunks cost twice the CPU (a call per chunk), fresh
// buffers a third more (allocation and collection). The window itself bounds what is kept.
const READ_CHUNK = 1024 * 1024;

export interface ReadArgs {
  readonly path: string;
  readonly offset?: number | undefined;
  readonly limit?: number | undefined;
  readonly pages?: string | undefined;
}

/** `read`: a window of a UTF-8 text file with line numbers, in bounded memory whatever the file's size. */
export function readTool(env: ToolEnv): Tool<ReadArgs> {
  const { readLines } = env.limits;
  return {
    name: "read",
    mutates: false,
    sequenced: true,
    description:
      `Read a UTF-8 text file or a PDF. Lines come numbered as "N: text"; at most ${readLines} lines per call, long lines cut. ` +
      "Use offset and limit to page through large files; a PDF comes as text per page, chosen with pages. PNG, JPEG, " +
      "GIF and WebP images come back as images; a Jupyter notebook (.ipynb) as numbered cells with their outputs, " +
      "where offset and limit count cells.",
    schema: z
      .object({
        path: z
          .string()
          .min(1)
          .describe(`File path, absolute or relative to the working directory${otherRoots(env.roots)}`),
        offset: z.number().int().min(1).optional().describe("First line to show, 1-based (default 1)"),
        limit: z.number().int().min(1).max(readLines).optional().describe(`Lines to show (default and maximum ${readLines})`),
        pages: z.string().min(1).optional().describe('PDF only: a page or a range, "3" or "2-5" (default: from page 1, as many as fit)'),
      })
      .strict(),
    guidance:
      `read shows a text file as numbered lines ("N: text"), up to ${readLines} per call; the footer says how to ` +
      `continue.${env.ledger && (env.has("write") || env.has("edit")) ? " Read a file before changing it." : ""}`,
    run: (args, call) => runRead(env, args, call),
  };
}

async function runRead(env: ToolEnv, args: ReadArgs, call: CallContext): Promise<ToolOutput> {
  const { fs, limits, ledger } = env;
  const target = call.target ?? (await fs.resolve(args.path, { cwd: call.cwd, signal: call.signal }));
  // The canonical key is judged, and the provider opens the file at that key and nowhere else, however a
  // folder on the path is swapped meanwhile (FileSystem.readStream).
  call.access?.check(target);
  const shown = call.roots.show(target.displayPath);
  const offset = args.offset ?? 1;
  const limit = args.limit ?? limits.readLines;
  let stream;
  try {
    stream = await fs.readStream(target, { signal: call.signal, chunkSize: READ_CHUNK, reuseBuffer: true });
  } catch (error) {
    if (isFsError(error, "FS_NOT_FOUND")) {
      ledger?.record(call.actor, target.key, { kind: "absent" });
      throw await missing(env, target, shown, call, error);
    }
    if (isFsError(error, "FS_NOT_REGULAR_FILE")) throw notAFile(env, shown, error);
    throw error;
  }
  // What a file is, is known by its first bytes whatever its name: a PDF, then an image; a notebook by its name.
  const { head, chunks } = await peekStream(stream, IMAGE_SNIFF_BYTES).catch(async (error) => {
    await stream.close();
    throw error;
  });
  if (isPdf(head)) {
    if (args.offset !== undefined || args.limit !== undefined) {
      await stream.close();
      throw new ToolError("TOOL_INVALID_ARGUMENTS", `"${shown}" is a PDF: choose its pages with pages (such as "2-5"), not offset and limit`);
    }
    const load = env.pdf ?? loadUnpdf;
    const output = await readPdf(stream, chunks, { shown, pages: args.pages, maxChars: limits.readBytes, maxBytes: limits.readPdfBytes, load });
    ledger?.record(call.actor, target.key, { kind: "present", version: stream.info.version });
    return output;
  }
  if (args.pages !== undefined) {
    await stream.close();
    throw new ToolError("TOOL_INVALID_ARGUMENTS", `pages applies to PDF files only, and "${shown}" is not one; use offset and limit`);
  }
  let view: ReadWindow;
  try {
    const image = sniffImage(head);
    const output = image
      ? await readImage(stream, chunks, shown, image, limits)
      : isNotebookPath(target.displayPath)
        ? await readNotebook(stream, chunks, shown, { offset, limit, limits })
        : { notImage: chunks };
    if (!("notImage" in output)) {
      await stream.close();
      ledger?.record(call.actor, target.key, { kind: "present", version: stream.info.version });
      return output;
    }
    view = await readWindow(output.notImage, {
      offset,
      limit,
      maxLineChars: limits.readLineChars,
      maxBytes: limits.readBytes,
      path: shown,
    });
  } catch (error) {
    await stream.close();
    if (isFsError(error, "FS_NOT_TEXT")) throw notText(env, shown, error);
    throw error;
  }
  const total = view.totalLines;
  if (offset > total && !(total === 0 && offset === 1)) {
    throw new FsError(
      "FS_NOT_FOUND",
      `Cannot read "${shown}" from line ${offset}: it has ${plural(total, "line")}${total > 0 ? `; use an offset from 1 to ${total}` : ""}`,
      { details: { path: target.displayPath, totalLines: total } },
    );
  }
  ledger?.record(call.actor, target.key, { kind: "present", version: stream.info.version });
  return { content: render(view, offset, shown, limits.readLineChars), meta: meta(view, offset, shown) };
}

function render(view: ReadWindow, offset: number, shown: string, maxChars: number): string {
  const body = view.lines.map((line) => `${line.number}: ${line.text}${line.truncated ? ` … [cut at ${maxChars} characters]` : ""}`);
  const last = view.lines.at(-1)?.number ?? offset - 1;
  const total = view.totalLines;
  let footer: string;
  if (total === 0) footer = `(${shown} is empty)`;
  else if (view.byteCapped) {
    footer = `(Output capped at the byte limit: lines ${offset}-${last} of ${total} shown. Continue with offset=${last + 1}.)`;
  } else if (last < total) {
    footer = `(Lines ${offset}-${last} of ${total}. Continue with offset=${last + 1}.)`;
  } else footer = `(End of file: ${plural(total, "line")}.)`;
  const notes: string[] = [];
  if (view.lines.some((line) => /^ *\t/.test(line.text))) {
    notes.push("(Indentation in these lines uses tabs; keep them as tabs in edit strings.)");
  }
  return [...body, ...(body.length > 0 ? [""] : []), footer, ...notes].join("\n");
}

function meta(view: ReadWindow, offset: number, shown: string): Record<string, unknown> {
  return {
    path: shown,
    offset,
    lines: view.lines.length,
    totalLines: view.totalLines,
    truncated: view.byteCapped || (view.lines.at(-1)?.number ?? 0) < view.totalLines,
    ...(view.bom ? { bom: true } : {}),
  };
}

async function missing(env: ToolEnv, target: FsTarget, shown: string, call: CallContext, cause: FsError): Promise<FsError> {
  const similar = await similarNames(env, target, call);
  const parent = call.roots.show(parentPath(target.displayPath));
  const hint =
    similar.length > 0 ? `; similar names in ${parent}: ${similar.map((n) => JSON.stringify(n)).join(", ")}` : env.has("glob") ? "; use glob to find it" : "";
  return new FsError("FS_NOT_FOUND", `Cannot read "${shown}": no such file${hint}`, {
    cause,
    details: { path: target.displayPath, similar },
  });
}

// Up to three siblings whose names are close to the missing one: same name in another case, same stem with
// another extension, or a few typing mistakes away.
async function similarNames(env: ToolEnv, target: FsTarget, call: CallContext): Promise<string[]> {
  const wanted = baseName(target.displayPath);
  let names: string[];
  try {
    const parent = await env.fs.resolve(parentPath(target.displayPath), { signal: call.signal });
    const access = call.access;
    const entries = await env.fs.listDir(parent, { signal: call.signal });
    // A name the sandbox hides is not offered as a suggestion either.
    names = entries.filter((e) => !access || (access.visible(e.target.key) && access.visible(joinPath(parent.key, e.name)))).map((e) => e.name);
  } catch {
    return [];
  }
  const lower = wanted.toLowerCase();
  const stem = lower.replace(/\.[^.]*$/, "");
  const scored: [number, string][] = [];
  for (const name of names) {
    const candidate = name.toLowerCase();
    let score: number;
    if (candidate === lower) score = 0;
    else if (candidate.replace(/\.[^.]*$/, "") === stem && stem !== "") score = 1;
    else {
      const distance = editDistance(lower, candidate, 3);
      if (distance > Math.min(3, Math.max(1, Math.floor(lower.length / 3)))) continue;
      score = 1 + distance;
    }
    scored.push([score, name]);
  }
  scored.sort((a, b) => a[0] - b[0] || compareUtf8(a[1], b[1]));
  return scored.slice(0, 3).map(([, name]) => name);
}

// Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`.
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] as number;
}

function notAFile(env: ToolEnv, shown: string, cause: FsError): FsError {
  const directory = cause.details.type === "directory" || /directory/.test(cause.message);
  const ways = [...(env.has("bash") ? ["list it with bash (ls)"] : []), ...(env.has("glob") ? ["find files in it with glob"] : [])];
  const next = directory ? (ways.length > 0 ? ways.join(", or ") : "read a file inside it") : "only regular files can be read";
  const what = directory ? "a directory" : "not a regular file";
  return new FsError("FS_NOT_REGULAR_FILE", `Cannot read "${shown}": it is ${what}; ${next}`, { cause, details: cause.details });
}

function notText(env: ToolEnv, shown: string, cause: FsError): FsError {
  const reason = cause.details.reason;
  if (reason === "notebook") return cause;
  const what =
    reason === "binary"
      ? "it looks like a binary file"
      : reason === "utf-16"
        ? "it is UTF-16 text, and read shows UTF-8 only"
        : `it is not valid UTF-8 text${typeof cause.details.line === "number" ? ` (line ${cause.details.line})` : ""}`;
  const next = env.has("bash") ? "; inspect it with bash (for example file, or xxd | head)" : "";
  return new FsError("FS_NOT_TEXT", `Cannot read "${shown}": ${what}${next}`, { cause, details: cause.details });
}
