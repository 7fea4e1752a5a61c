// The built-in tools as the registry holds them: each one's factory with its traits, result schema, the kind
// and permission a client shows and asks under, and how a call is titled and its change foreseen.
import { applyEdit } from "../text/edit.ts";
import { applyPatchTool } from "./apply-patch.ts";
import { bashTool } from "./bash.ts";
import { type DefinedTool, pathTitle } from "./define.ts";
import { deleteTool, moveTool } from "./delete-move.ts";
import { editTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { readTool } from "./read.ts";
import type { Tool, ToolEnv } from "./tool.ts";
import { writeTool } from "./write.ts";

/** The built-in tools' names. */
export type ToolName = "read" | "write" | "edit" | "glob" | "grep" | "bash" | "apply_patch" | "delete" | "move";

const count = { type: "integer", minimum: 0 } as const;
const text = { type: "string" } as const;
const flag = { type: "boolean" } as const;

// The longest bash command a title shows whole; past it, the start and a count of what is left out.
const COMMAND_TITLE_CHARS = 2000;

const string = (args: Readonly<Record<string, unknown>>, key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
const factory = <A>(create: (env: ToolEnv) => Tool<A>) => create as unknown as (env: ToolEnv) => Tool<Record<string, unknown>>;

// The files a patch names, from its header lines, for a title (the patch is parsed only when run).
function patchFiles(input: string): string[] {
  const files: string[] = [];
  for (const match of input.matchAll(/^\s*\*\*\* (Add|Update|Delete) File: *(.+?)\s*$|^\s*\*\*\* Move to: *(.+?)\s*$/gm)) {
    if (match[3] !== undefined) files[files.length - 1] = `${files.at(-1)} -> ${match[3]}`;
    else files.push(`${(match[1] as string).toLowerCase()} ${match[2]}`);
  }
  return files;
}

function searchTitle(name: string, args: Readonly<Record<string, unknown>>): string {
  const where = string(args, "path") === undefined ? "" : ` in ${string(args, "path")}`;
  const include = string(args, "include") === undefined ? "" : ` (${string(args, "include")})`;
  return `${name} ${JSON.stringify(string(args, "pattern") ?? "")}${where}${include}`;
}

/**
 * The traits: write replaces a file whole, so a repeat leaves the same bytes; edit can apply again when
 * new_string contains old_string, so it is not idempotent. bash runs any program, which can reach the
 * network, so it is the one tool that is open-world.
 */
export const BUILTIN_TOOLS: Readonly<Record<ToolName, DefinedTool>> = {
  read: {
    name: "read",
    traits: { title: "Read file", readOnly: true, destructive: false, idempotent: true, openWorld: false },
    result: { path: text, offset: { type: "integer", minimum: 1 }, lines: count, totalLines: count, truncated: flag, bom: flag },
    kind: "read",
    permission: undefined,
    title: (args) => pathTitle("read", args),
    create: factory(readTool),
  },
  write: {
    name: "write",
    traits: { title: "Write file", readOnly: false, destructive: true, idempotent: true, openWorld: false },
    result: {
      path: text,
      operation: { type: "string", enum: ["create", "update"] },
      bytes: count,
      lines: count,
      added: count,
      removed: count,
      diff: text,
      coarse: flag,
    },
    kind: "edit",
    permission: "edit",
    title: (args) => pathTitle("write", args),
    preview: (_before, args) => string(args, "content"),
    create: factory(writeTool),
  },
  edit: {
    name: "edit",
    traits: { title: "Edit file", readOnly: false, destructive: true, idempotent: false, openWorld: false },
    result: {
      path: text,
      replacements: count,
      lines: { type: "array", items: { type: "integer", minimum: 1 } },
      added: count,
      removed: count,
      diff: text,
      coarse: flag,
    },
    kind: "edit",
    permission: "edit",
    title: (args) => pathTitle("edit", args),
    preview: (before, args, path) => {
      const oldString = string(args, "old_string");
      const newString = string(args, "new_string");
      if (before === null || oldString === undefined || newString === undefined) return undefined;
      try {
        return applyEdit(before, { oldString, newString, replaceAll: args.replace_all === true, path }).text;
      } catch {
        // The edit will fail with its own error once run; there is nothing to preview.
        return undefined;
      }
    },
    create: factory(editTool),
  },
  glob: {
    name: "glob",
    traits: { title: "Find files", readOnly: true, destructive: false, idempotent: true, openWorld: false },
    result: {
      shape: { const: "paths" },
      root: text,
      paths: { type: "array", items: text },
      truncated: flag,
      total: count,
      lowerBound: flag,
      spill: text,
      searchedBy: text,
    },
    kind: "search",
    permission: undefined,
    needs: "search",
    title: (args) => searchTitle("glob", args),
    create: factory(globTool),
  },
  grep: {
    name: "grep",
    traits: { title: "Search file contents", readOnly: true, destructive: false, idempotent: true, openWorld: false },
    result: {
      shape: { const: "matches" },
      files: {
        type: "array",
        items: {
          type: "object",
          properties: {
            path: text,
            matches: {
              type: "array",
              items: { type: "object", properties: { lineNumber: { type: "integer", minimum: 1 }, line: text }, required: ["lineNumber", "line"] },
            },
          },
          required: ["path", "matches"],
        },
      },
      truncated: flag,
      total: count,
      lowerBound: flag,
      spill: text,
      searchedBy: text,
    },
    kind: "search",
    permission: undefined,
    needs: "search",
    title: (args) => searchTitle("grep", args),
    create: factory(grepTool),
  },
  apply_patch: {
    name: "apply_patch",
    traits: { title: "Apply patch", readOnly: false, destructive: true, idempotent: false, openWorld: false },
    result: {
      files: {
        type: "array",
        items: {
          type: "object",
          properties: {
            path: text,
            operation: { type: "string", enum: ["add", "update", "delete", "move"] },
            from: text,
            diff: text,
            added: count,
            removed: count,
          },
          required: ["path", "operation", "diff", "added", "removed"],
        },
      },
    },
    kind: "edit",
    permission: "edit",
    title: (args, short) => {
      const input = string(args, "input") ?? "";
      const files = patchFiles(input);
      const head =
        files.length === 0 ? "apply_patch" : `apply_patch: ${files.slice(0, 3).join(", ")}${files.length > 3 ? ` and ${files.length - 3} more` : ""}`;
      if (short) return head;
      // The user approves what the title shows: the patch itself, as bash shows its command.
      const patch =
        input.length > COMMAND_TITLE_CHARS ? `${input.slice(0, COMMAND_TITLE_CHARS)}… [${input.length - COMMAND_TITLE_CHARS} more characters]` : input;
      return `${head}\n${patch}`;
    },
    create: factory(applyPatchTool),
  },
  delete: {
    name: "delete",
    traits: { title: "Delete file", readOnly: false, destructive: true, idempotent: false, openWorld: false },
    result: { path: text, type: { type: "string", enum: ["file", "directory", "symlink", "other"] } },
    kind: "delete",
    permission: "edit",
    title: (args) => `delete ${string(args, "path") ?? ""}`,
    // Nothing is left: a client shows the file going away.
    preview: () => null,
    create: factory(deleteTool),
  },
  move: {
    name: "move",
    traits: { title: "Move file", readOnly: false, destructive: true, idempotent: false, openWorld: false },
    result: { from: text, to: text, type: { type: "string", enum: ["file", "directory", "symlink", "other"] } },
    kind: "move",
    permission: "edit",
    title: (args) => `move ${string(args, "from") ?? ""} to ${string(args, "to") ?? ""}`,
    create: factory(moveTool),
  },
  bash: {
    name: "bash",
    traits: { title: "Run bash command", readOnly: false, destructive: true, idempotent: false, openWorld: true },
    result: { exitCode: { type: ["integer", "null"] }, signal: { type: ["string", "null"] }, timedOut: flag, outputBytes: count, omittedBytes: count },
    kind: "execute",
    permission: "execute",
    needs: "runner",
    title: (args, short) => {
      const whole = string(args, "command") ?? "";
      if (short) {
        const command = whole.split("\n")[0]!;
        return `bash ${JSON.stringify(command.length > 80 ? `${command.slice(0, 79)}…` : command || "bash")}`;
      }
      // The user approves what the title shows: every line of the command, not the first.
      return whole.length > COMMAND_TITLE_CHARS
        ? `${whole.slice(0, COMMAND_TITLE_CHARS)}… [${whole.length - COMMAND_TITLE_CHARS} more characters]`
        : whole || "bash";
    },
    create: factory(bashTool),
  },
};

/** The built-in tool of that name, whether or not a toolkit registered it (to title a call to one it did not). */
export function builtinTool(name: string): DefinedTool | undefined {
  return Object.hasOwn(BUILTIN_TOOLS, name) ? BUILTIN_TOOLS[name as ToolName] : undefined;
}
