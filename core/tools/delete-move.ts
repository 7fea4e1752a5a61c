// `delete` and `move`: the seam's remove and move for models that do not use apply_patch (and where bash is not
// offered). A file is deleted or moved only at the version this actor read; a directory or a symlink needs no
// read (docs/notes/0022-patch-delete-move-tools.md says why).
import { z } from "zod";
import { FsError, isFsError } from "../fs/errors.ts";
import type { FsEntryType, FsMutationGuard, FsTarget } from "../fs/types.ts";
import { type CallContext, otherRoots, type Tool, type ToolEnv, type ToolOutput } from "./tool.ts";

export interface DeleteArgs {
  readonly path: string;
}

export interface MoveArgs {
  readonly from: string;
  readonly to: string;
}

const WHAT: Readonly<Record<FsEntryType, string>> = { file: "file", directory: "directory", symlink: "symbolic link", other: "special file" };

export function deleteTool(env: ToolEnv): Tool<DeleteArgs> {
  return {
    name: "delete",
    mutates: true,
    sequenced: true,
    description: `Delete a file${env.ledger ? " (read it first)" : ""}, a symlink (not its target) or an empty directory.`,
    schema: z
      .object({
        path: z
          .string()
          .min(1)
          .describe(`Path to delete${otherRoots(env.roots)}`),
      })
      .strict(),
    guidance: "",
    run: (args, call) => runDelete(env, args, call),
  };
}

export function moveTool(env: ToolEnv): Tool<MoveArgs> {
  return {
    name: "move",
    mutates: true,
    sequenced: false,
    paths: ["from", "to"],
    description: `Move or rename a file${env.ledger ? " (read it first)" : ""} or a directory; the destination must not exist.`,
    schema: z
      .object({
        from: z
          .string()
          .min(1)
          .describe(`Current path${otherRoots(env.roots)}`),
        to: z.string().min(1).describe("New path"),
      })
      .strict(),
    guidance: "",
    run: (args, call) => runMove(env, args, call),
  };
}

async function runDelete(env: ToolEnv, args: DeleteArgs, call: CallContext): Promise<ToolOutput> {
  const target = call.target ?? (await env.fs.resolve(args.path, { cwd: call.cwd, signal: call.signal }));
  const shown = call.roots.show(target.displayPath);
  call.access?.check(target, "delete");
  const type = await entryType(env, target, shown, call, "delete");
  const guard = type === "file" ? readGuard(env, target, shown, call, "delete") : undefined;
  try {
    await env.fs.remove(target, { directory: type === "directory", signal: call.signal, fence: call.fence, ...(guard ? { guard } : {}) });
  } catch (error) {
    throw explain(error, shown, "delete");
  }
  if (type === "file") env.ledger?.record(call.actor, target.key, { kind: "absent" });
  return { content: `Deleted ${shown} (${WHAT[type]}).`, meta: { path: shown, type } };
}

async function runMove(env: ToolEnv, args: MoveArgs, call: CallContext): Promise<ToolOutput> {
  const opts = { cwd: call.cwd, signal: call.signal };
  const from = await env.fs.resolve(args.from, opts);
  const to = await env.fs.resolve(args.to, opts);
  const shown = call.roots.show(from.displayPath);
  const shownTo = call.roots.show(to.displayPath);
  call.access?.check(from, "move");
  call.access?.check(to, "move to");
  const type = await entryType(env, from, shown, call, "move");
  const guard = type === "file" ? readGuard(env, from, shown, call, "move") : undefined;
  let moved;
  try {
    moved = await env.fs.move(from, to, { parents: true, signal: call.signal, fence: call.fence, ...(guard ? { guard } : {}) });
  } catch (error) {
    if (isFsError(error, "FS_EXISTS") && !/same entry/.test(error.message)) {
      throw new FsError("FS_EXISTS", `Cannot move "${shown}" to "${shownTo}": "${shownTo}" already exists; delete it first or choose another name`, {
        cause: error,
        details: error.details,
      });
    }
    throw explain(error, shown, "move");
  }
  if (type === "file") {
    env.ledger?.record(call.actor, from.key, { kind: "absent" });
    if (moved.version !== undefined) env.ledger?.record(call.actor, moved.destination.key, { kind: "present", version: moved.version });
  }
  return { content: `Moved ${shown} to ${shownTo} (${WHAT[type]}).`, meta: { from: shown, to: shownTo, type } };
}

// The entry itself (a final symlink not followed), or FS_NOT_FOUND.
async function entryType(env: ToolEnv, target: FsTarget, shown: string, call: CallContext, verb: string): Promise<FsEntryType> {
  const info = await env.fs.lstat(target.displayPath, { signal: call.signal });
  if (!info) throw new FsError("FS_NOT_FOUND", `Cannot ${verb} "${shown}": nothing has that name`, { details: { path: target.displayPath } });
  return info.type;
}

// A file goes only at the version this actor read (without the read-before-write policy: whatever is there).
function readGuard(env: ToolEnv, target: FsTarget, shown: string, call: CallContext, verb: string): FsMutationGuard | undefined {
  if (!env.ledger) return undefined;
  const seen = env.ledger.observed(call.actor, target.key);
  if (seen?.kind !== "present") {
    throw new FsError("FS_NOT_OBSERVED", `Cannot ${verb} "${shown}": it has not been read in this session; read it first`, {
      details: { path: target.displayPath },
    });
  }
  return { kind: "ifVersion", version: seen.version };
}

function explain(error: unknown, shown: string, verb: string): unknown {
  if (isFsError(error, "FS_STALE_VERSION")) {
    return new FsError("FS_STALE_VERSION", `Cannot ${verb} "${shown}": it changed since it was read; read it again, then retry`, {
      cause: error,
      details: error.details,
    });
  }
  if (isFsError(error, "FS_NOT_EMPTY")) {
    return new FsError("FS_NOT_EMPTY", `Cannot ${verb} "${shown}": the directory is not empty; delete what it holds first`, {
      cause: error,
      details: error.details,
    });
  }
  return error;
}
