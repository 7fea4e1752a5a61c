import { z } from "zod";
import { FsError, isFsError } from "../fs/errors.ts";
import type { FsTarget, FsVersion, FsWriteGuard } from "../fs/types.ts";
import { withUtf8Bom } from "../text/bom.ts";
import { unifiedDiff } from "../text/diff.ts";
import { applyLineEnding, detectLineEnding } from "../text/eol.ts";
import { decodeText, encodeUtf8 } from "../text/utf8.ts";
import { type CallContext, otherRoots, plural, type Tool, type ToolEnv, type ToolOutput } from "./tool.ts";

export interface WriteArgs {
  readonly path: string;
  readonly content: string;
}

/** `write`: create a file, or replace one the actor has read and that has not changed since. */
export function writeTool(env: ToolEnv): Tool<WriteArgs> {
  return {
    name: "write",
    mutates: true,
    sequenced: true,
    description:
      "Create a file or replace its whole content (UTF-8). " +
      (env.ledger ? "Replacing an existing file requires having read it in this session, unchanged since. " : "") +
      "An existing file keeps its line-ending style and byte-order mark.",
    schema: z
      .object({
        path: z
          .string()
          .min(1)
          .describe(`File path, absolute or relative to the working directory${otherRoots(env.roots)}`),
        content: z.string().describe("The complete new content"),
      })
      .strict(),
    guidance:
      `write creates a file or replaces all of it${env.ledger ? "; to replace an existing file, read it first" : ""}.` +
      (env.has("edit") ? " Use edit to change part of a file." : ""),
    run: (args, call) => runWrite(env, args, call),
  };
}

/** What write learned about the file it replaces: its text for the diff, and its conventions. */
interface Previous {
  readonly version: FsVersion;
  readonly text: string | undefined;
  readonly crlf: boolean;
  readonly bom: boolean;
}

async function runWrite(env: ToolEnv, args: WriteArgs, call: CallContext): Promise<ToolOutput> {
  const { fs, ledger } = env;
  const target = call.target ?? (await fs.resolve(args.path, { cwd: call.cwd, signal: call.signal }));
  const shown = call.roots.show(target.displayPath);
  const guard: FsWriteGuard | undefined = ledger?.writeGuard(call.actor, target.key);
  const previous = guard?.kind === "createIfAbsent" ? undefined : await inspectPrevious(env, target, shown, call);
  if (guard?.kind === "replaceIfVersion" && previous && previous.version !== guard.version) {
    throw new FsError("FS_STALE_VERSION", `Cannot write "${shown}": it changed since it was read; read it again, then retry`, {
      details: { path: target.displayPath },
    });
  }
  let text = args.content;
  const kept: string[] = [];
  if (previous?.crlf && !text.includes("\r\n") && text.includes("\n")) {
    text = applyLineEnding(text, "\r\n");
    kept.push("CRLF line endings");
  }
  let bytes = encodeUtf8(text);
  if (previous?.bom && !text.startsWith("\uFEFF")) {
    bytes = withUtf8Bom(bytes, true);
    kept.push("byte-order mark");
  }
  let result;
  try {
    result = await fs.write(target, bytes, { guard, signal: call.signal, fence: call.fence });
  } catch (error) {
    throw explainWriteFailure(error, shown, guard);
  }
  ledger?.record(call.actor, target.key, { kind: "present", version: result.version });
  const lines = countLines(args.content);
  if (result.operation === "create") {
    return {
      content: `Created ${shown} (${plural(lines, "line")}, ${plural(bytes.length, "byte")}).`,
      meta: { path: shown, operation: "create", bytes: bytes.length, lines },
    };
  }
  const note = kept.length > 0 ? ` Kept the file's ${kept.join(" and ")}.` : "";
  if (previous?.text === undefined) {
    return {
      content: `Replaced ${shown} (${plural(lines, "line")}, ${plural(bytes.length, "byte")}; the old content was too large or not text to diff).${note}`,
      meta: { path: shown, operation: "update", bytes: bytes.length, lines },
    };
  }
  const diff = unifiedDiff(shown, previous.text, text, { maxBytes: env.limits.diffBytes });
  const summary =
    diff.text === "" && diff.skipped === undefined
      ? `Rewrote ${shown} with identical content.${note}`
      : `Updated ${shown}: ${diff.skipped ? `diff skipped (${diff.skipped})` : `+${diff.added} -${diff.removed} lines${diff.coarse ? COARSE : ""}`}.${note}`;
  return {
    content: diff.text === "" ? summary : `${summary}\n\n${diff.text}`,
    meta: {
      path: shown,
      operation: "update",
      bytes: bytes.length,
      lines,
      added: diff.added,
      removed: diff.removed,
      ...(diff.text ? { diff: diff.text } : {}),
      ...(diff.coarse ? { coarse: true } : {}),
    },
  };
}

/** Said when the diff is one replaced block rather than a line-by-line match (see DiffSummary.coarse). */
export const COARSE = ", shown as one block (too different to match line by line)";

// The current file, when there is one: its version (the guard), and, when small enough to load, its text
// for the diff plus the conventions the new content should keep.
async function inspectPrevious(env: ToolEnv, target: FsTarget, shown: string, call: CallContext): Promise<Previous | undefined> {
  const { fs, limits } = env;
  try {
    const { bytes, version } = await fs.readBytes(target, { maxBytes: limits.writeDiffMaxBytes, signal: call.signal });
    try {
      const { text, bom } = decodeText(bytes);
      return { version, text, bom, crlf: detectLineEnding(text) === "\r\n" };
    } catch {
      return { version, text: undefined, bom: false, crlf: false };
    }
  } catch (error) {
    if (isFsError(error, "FS_NOT_FOUND")) {
      if (env.ledger) {
        throw new FsError("FS_STALE_VERSION", `Cannot write "${shown}": it was deleted after it was read; read it again, then retry`, {
          cause: error,
          details: { path: target.displayPath },
        });
      }
      return undefined;
    }
    if (isFsError(error, "FS_TOO_LARGE")) return sampledPrevious(env, target, call);
    throw error;
  }
}

// A file too large to diff still keeps its conventions: sample its beginning.
async function sampledPrevious(env: ToolEnv, target: FsTarget, call: CallContext): Promise<Previous> {
  const stream = await env.fs.readStream(target, { signal: call.signal, chunkSize: 64 * 1024 });
  try {
    for await (const chunk of stream) {
      const sample = new TextDecoder().decode(chunk);
      return {
        version: stream.info.version,
        text: undefined,
        bom: chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf,
        crlf: detectLineEnding(sample) === "\r\n",
      };
    }
    return { version: stream.info.version, text: undefined, bom: false, crlf: false };
  } finally {
    await stream.close();
  }
}

/** Adds the next step to guard failures; everything else passes through. */
export function explainWriteFailure(error: unknown, shown: string, guard: FsWriteGuard | undefined): unknown {
  if (isFsError(error, "FS_NOT_OBSERVED") && guard?.kind === "createIfAbsent") {
    return new FsError("FS_NOT_OBSERVED", `Cannot write "${shown}": it already exists and has not been read in this session; read it first, then write`, {
      cause: error,
      details: error.details,
    });
  }
  if (isFsError(error, "FS_STALE_VERSION") && !/read it again/.test(error.message)) {
    return new FsError("FS_STALE_VERSION", `${error.message}; read it again, then retry`, { cause: error, details: error.details });
  }
  return error;
}

function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return text.endsWith("\n") ? lines : lines + 1;
}
