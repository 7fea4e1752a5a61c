// The open tool registry: what a tool carries besides its schema and run (traits, result schema, the kind a
// client shows it as, the permission it is asked under, how a call is titled and its change foreseen), and
// `defineTool`, through which a host adds its own tool with the guarantees the built-in ones have.
// docs/notes/0018-open-tools.md.
import type { z } from "zod";
import { FsError, isFsError } from "../fs/errors.ts";
import type { FileSystem, FsTarget } from "../fs/types.ts";
import { decodeText, encodeUtf8 } from "../text/utf8.ts";
import type { CallContext, Tool, ToolEnv, ToolLimits, ToolOutput } from "./tool.ts";
import type { ContentPart } from "./types.ts";

/** How a tool behaves, stated the way MCP's tool annotations ask. */
export interface ToolTraits {
  /** A short human-readable name. */
  readonly title: string;
  /** Changes nothing outside the call's own output. */
  readonly readOnly: boolean;
  /** May overwrite or remove what exists (not only add). */
  readonly destructive: boolean;
  /** Repeating the call with the same arguments has no further effect. */
  readonly idempotent: boolean;
  /** May reach beyond the filesystem the toolkit serves (the network, other programs' state). */
  readonly openWorld: boolean;
}

/** How a client shows a call (ACP's tool kinds). */
export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "fetch" | "think" | "other";

/** What a user is asked about before a call runs: a change to files, or a command; undefined: never asked. */
export type ToolPermission = "edit" | "execute";

/** A tool as a toolkit registers it: the facts every surface reads, and how to build it for one toolkit. */
export interface DefinedTool {
  readonly name: string;
  readonly traits: ToolTraits;
  /** JSON Schema properties of the result's `meta` (all optional: a failed call has none). */
  readonly result: Readonly<Record<string, unknown>>;
  readonly kind: ToolKind;
  readonly permission: ToolPermission | undefined;
  /** What the tool cannot work without; absent, the toolkit advises against a tool it cannot run. */
  readonly needs?: "search" | "runner" | undefined;
  /** A call in words, for a client's list of calls (`short`: one line for a note). */
  title(args: Readonly<Record<string, unknown>>, short?: boolean): string;
  /**
   * The text of the file at `args.path` after the call, foreseen from its text before (null: absent), to show
   * the change before it is made; null when the call removes the file; undefined when it cannot be foreseen.
   */
  preview?(before: string | null, args: Readonly<Record<string, unknown>>, path: string): string | null | undefined;
  /** Builds the tool for one toolkit. */
  create(env: ToolEnv): Tool<Record<string, unknown>>;
}

/** What a host tool's `run` is given: the call's circumstances and the toolkit's guarded file access. */
export interface ToolContext {
  readonly signal: AbortSignal | undefined;
  /** Absolute base for relative paths. */
  readonly cwd: string;
  /** Whose call this is (see ToolCallOptions.actor). */
  readonly actor: unknown;
  readonly limits: ToolLimits;
  /** The provider, for what the helpers below do not cover; its calls get no read-before-write or sandbox check. */
  readonly fs: FileSystem;
  /** How a path is shown to the model (relative to the workspace root it is in). */
  show(path: string): string;
  /**
   * A text file's content, read as the read tool reads it: under the sandbox's read scope and deny list, and
   * recorded for read-before-write. Defaults to the call's `path`.
   */
  readText(path?: string): Promise<{ readonly path: string; readonly text: string }>;
  /**
   * Replaces (or creates) a text file as write does: an existing file only if this actor read it and it has
   * not changed since, through the sandbox's fence. Defaults to the call's `path`.
   */
  writeText(text: string, path?: string): Promise<{ readonly path: string; readonly operation: "create" | "update" }>;
}

/** What a host tool returns: its text, or the text with meta and further content parts. */
export type HostToolOutput = string | { readonly content: string; readonly meta?: Record<string, unknown>; readonly parts?: readonly ContentPart[] };

/** A host's tool, for `defineTool`. */
export interface ToolSpec<Args extends Record<string, unknown>> {
  /** 1-64 letters, digits, `_` or `-`; unique in a toolkit. */
  readonly name: string;
  readonly description: string;
  /** Validates the arguments before `run` sees them; a failure is a TOOL_INVALID_ARGUMENTS result. */
  readonly schema: z.ZodType<Args>;
  /** One short paragraph for the system prompt. */
  readonly guidance?: string;
  /** Title defaults to the name. */
  readonly traits: Omit<ToolTraits, "title"> & { readonly title?: string };
  readonly result?: Readonly<Record<string, unknown>>;
  /** Default: "read" for a read-only tool, "execute" for an open-world one, "other" otherwise. */
  readonly kind?: ToolKind;
  /** Default: none for a read-only tool, "execute" for an open-world one, "edit" otherwise. */
  readonly permission?: ToolPermission | null;
  /**
   * The tool takes a `path` and reads or changes that file: one actor's calls of such tools on one file run
   * one at a time, in arrival order, and the path is resolved (and checked against the read scope) first.
   */
  readonly sequenced?: boolean;
  /** The tool writes (through `writeText`): it gets the sandbox's escalation fields when the sandbox confines writes. */
  readonly mutates?: boolean;
  run(args: Args, context: ToolContext): Promise<HostToolOutput>;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A host's tool, to pass among `ToolkitOptions.tools`. */
export function defineTool<Args extends Record<string, unknown>>(spec: ToolSpec<Args>): DefinedTool {
  if (typeof spec.name !== "string" || !NAME.test(spec.name))
    throw new RangeError(`defineTool: name must be 1-64 letters, digits, _ or -, got ${JSON.stringify(spec.name)}`);
  const traits: ToolTraits = { title: spec.traits.title ?? spec.name, ...spec.traits } as ToolTraits;
  const kind = spec.kind ?? (traits.readOnly ? "read" : traits.openWorld ? "execute" : "other");
  const permission = spec.permission === null ? undefined : (spec.permission ?? (traits.readOnly ? undefined : traits.openWorld ? "execute" : "edit"));
  return {
    name: spec.name,
    traits,
    result: spec.result ?? {},
    kind,
    permission,
    title: (args) => pathTitle(spec.name, args),
    create: (env) => ({
      name: spec.name,
      description: spec.description,
      schema: spec.schema as unknown as z.ZodType<Record<string, unknown>>,
      guidance: spec.guidance ?? "",
      mutates: spec.mutates === true,
      sequenced: spec.sequenced === true,
      run: async (args, call) => output(await spec.run(args as Args, context(env, args, call))),
    }),
  };
}

/** A call titled by its tool's name and the path it names, if any. */
export function pathTitle(name: string, args: Readonly<Record<string, unknown>>): string {
  return typeof args.path === "string" ? `${name} in ${args.path}` : name;
}

function output(out: HostToolOutput): ToolOutput {
  if (typeof out === "string") return { content: out, meta: {} };
  return { content: out.content, meta: out.meta ?? {}, ...(out.parts ? { parts: out.parts } : {}) };
}

function context(env: ToolEnv, args: Record<string, unknown>, call: CallContext): ToolContext {
  const { fs, ledger } = env;
  const at = async (path: string | undefined): Promise<FsTarget> => {
    if (path === undefined && call.target) return call.target;
    const given = path ?? (typeof args.path === "string" ? args.path : undefined);
    if (given === undefined) throw new RangeError("readText/writeText: no path given and the call has none");
    return await fs.resolve(call.roots.resolve(given), { cwd: call.cwd, signal: call.signal });
  };
  return {
    signal: call.signal,
    cwd: call.cwd,
    actor: call.actor,
    limits: env.limits,
    fs,
    show: (path) => call.roots.show(path),
    async readText(path) {
      const target = await at(path);
      call.access?.check(target, "read");
      const shown = call.roots.show(target.displayPath);
      const { bytes, version } = await fs.readBytes(target, { maxBytes: env.limits.editMaxBytes, ...(call.signal ? { signal: call.signal } : {}) });
      const { text } = decodeText(bytes, { path: shown });
      ledger?.record(call.actor, target.key, { kind: "present", version });
      return { path: shown, text };
    },
    async writeText(text, path) {
      const target = await at(path);
      call.access?.check(target, "write");
      const shown = call.roots.show(target.displayPath);
      const guard = ledger?.writeGuard(call.actor, target.key);
      let written;
      try {
        written = await fs.write(target, encodeUtf8(text), { guard, signal: call.signal, fence: call.fence });
      } catch (error) {
        // A createIfAbsent guard meets a file this actor never read.
        if (!isFsError(error, "FS_NOT_OBSERVED")) throw error;
        throw new FsError("FS_NOT_OBSERVED", `Cannot write "${shown}": it has not been read in this session; read it first`, {
          cause: error,
          details: { path: target.displayPath },
        });
      }
      ledger?.record(call.actor, target.key, { kind: "present", version: written.version });
      return { path: shown, operation: written.operation };
    },
  };
}
