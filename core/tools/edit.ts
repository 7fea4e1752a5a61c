import { z } from "zod";
import { FsError, isFsError } from "../fs/errors.ts";
import type { FsVersion } from "../fs/types.ts";
import { editDiff } from "../text/diff.ts";
import { applyEdit, encodeEdit } from "../text/edit.ts";
import { decodeText } from "../text/utf8.ts";
import { type CallContext, otherRoots, plural, type Tool, type ToolEnv, type ToolOutput } from "./tool.ts";
import { COARSE, explainWriteFailure } from "./write.ts";

export interface EditArgs {
  readonly path: string;
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all?: boolean | undefined;
}

/** `edit`: replace exact text in a file the actor has read, keeping every other byte. */
export function editTool(env: ToolEnv): Tool<EditArgs> {
  return {
    name: "edit",
    mutates: true,
    sequenced: true,
    description:
      `Replace exact text in a file${env.ledger ? " read in this session" : ""}. old_string must match the file exactly ` +
      "(CRLF and LF are treated alike) and occur once, unless replace_all is true. Everything else in the file stays byte for byte.",
    schema: z
      .object({
        path: z
          .string()
          .min(1)
          .describe(`File path, absolute or relative to the working directory${otherRoots(env.roots)}`),
        old_string: z
          .string()
          .min(1)
          .describe(env.has("read") ? "Exact text to replace, copied from read output without the line numbers" : "Exact text to replace"),
        new_string: z.string().describe("Replacement text; empty deletes old_string"),
        replace_all: z.boolean().optional().describe("Replace every occurrence (default false)"),
      })
      .strict()
      .refine((args) => args.old_string !== args.new_string, { message: "old_string and new_string are identical; nothing would change" }),
    guidance:
      "edit replaces old_string with new_string literally. " +
      (env.has("read") ? 'Copy old_string from read output without the "N: " prefix, keeping' : "Keep") +
      " tabs and spaces exactly; include enough lines to make it unique or set replace_all.",
    run: (args, call) => runEdit(env, args, call),
  };
}

async function runEdit(env: ToolEnv, args: EditArgs, call: CallContext): Promise<ToolOutput> {
  const { fs, ledger, limits } = env;
  const target = call.target ?? (await fs.resolve(args.path, { cwd: call.cwd, signal: call.signal }));
  const shown = call.roots.show(target.displayPath);
  const seen = ledger?.observed(call.actor, target.key);
  if (ledger && !seen) {
    throw new FsError("FS_NOT_OBSERVED", `Cannot edit "${shown}": it has not been read in this session; read it first`, {
      details: { path: target.displayPath },
    });
  }
  if (seen?.kind === "absent") {
    throw new FsError("FS_NOT_FOUND", `Cannot edit "${shown}": it did not exist when last read${env.has("write") ? "; create it with write" : ""}`, {
      details: { path: target.displayPath },
    });
  }
  let bytes: Uint8Array;
  let version: FsVersion;
  try {
    ({ bytes, version } = await fs.readBytes(target, { maxBytes: limits.editMaxBytes, signal: call.signal }));
  } catch (error) {
    if (isFsError(error, "FS_NOT_FOUND")) {
      throw new FsError("FS_STALE_VERSION", `Cannot edit "${shown}": it no longer exists; read it again`, {
        cause: error,
        details: { path: target.displayPath },
      });
    }
    if (isFsError(error, "FS_TOO_LARGE")) {
      throw new FsError(
        "FS_TOO_LARGE",
        `Cannot edit "${shown}": it is larger than ${limits.editMaxBytes} bytes, the most edit loads; change it with a streaming tool instead`,
        { cause: error, details: error.details },
      );
    }
    throw error;
  }
  if (seen && seen.version !== version) {
    throw new FsError("FS_STALE_VERSION", `Cannot edit "${shown}": it changed since it was read; read it again, then retry`, {
      details: { path: target.displayPath },
    });
  }
  const { text, bom } = decodeText(bytes, { path: shown });
  const result = applyEdit(text, { oldString: args.old_string, newString: args.new_string, replaceAll: args.replace_all ?? false, path: shown });
  const guard = { kind: "replaceIfVersion", version } as const;
  let written;
  try {
    written = await fs.write(target, encodeEdit(bytes, bom, result), { guard, signal: call.signal, fence: call.fence });
  } catch (error) {
    // The provider words its refusals as a write's; this call is an edit.
    if (isFsError(error, "FS_STALE_VERSION") && error.message.startsWith("Cannot write ")) {
      const message = `Cannot edit ${error.message.slice("Cannot write ".length)}`;
      throw explainWriteFailure(new FsError("FS_STALE_VERSION", message, { cause: error, details: error.details }), shown, guard);
    }
    throw explainWriteFailure(error, shown, guard);
  }
  ledger?.record(call.actor, target.key, { kind: "present", version: written.version });
  const diff = editDiff(shown, result, { maxBytes: limits.diffBytes });
  const lines = [...new Set(result.spans.map((s) => s.line))];
  const where = lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.slice(0, 10).join(", ")}${lines.length > 10 ? ", …" : ""}`;
  const summary = `Edited ${shown}: replaced ${plural(result.spans.length, "occurrence")} at ${where} (+${diff.added} -${diff.removed} lines${diff.coarse ? COARSE : ""}).`;
  return {
    content: diff.text === "" ? summary : `${summary}\n\n${diff.text}`,
    meta: {
      path: shown,
      replacements: result.spans.length,
      lines,
      added: diff.added,
      removed: diff.removed,
      ...(diff.text ? { diff: diff.text } : {}),
      ...(diff.coarse ? { coarse: true } : {}),
    },
  };
}
