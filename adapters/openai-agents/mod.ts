/**
 * The toolkit for the OpenAI Agents SDK (`@openai/agents` 0.20): function tools with the toolkit's
 * descriptions, in strict mode by default (optional fields become required nullable ones, and the nulls are
 * dropped before the toolkit sees the call), and an `Editor` for `applyPatchTool` that publishes each file
 * operation through the provider's guarded, atomic write. `@openai/agents` is an optional peer dependency,
 * loaded only by this entry point.
 *
 * @module
 */
import { type ApplyPatchResult, applyDiff, type Editor, type FunctionTool, tool } from "@openai/agents";
import {
  applyLineEnding,
  decodeText,
  detectLineEnding,
  encodeUtf8,
  type FileSystem,
  type FsFence,
  isFsError,
  normalizeLineEndings,
  relativeWithin,
  resultText,
  resolvePath,
  resolveSandbox,
  rulesFence,
  type SandboxMode,
  sandboxPolicy,
  strictToolSchema,
  type Toolkit,
  type ToolResult,
  withUtf8Bom,
} from "../../core/mod.ts";

export interface OpenAIAgentsToolsOptions {
  /** Default true: the schemas are made strict-compatible rather than strict turned off. */
  readonly strict?: boolean;
  /** Whose reads authorize whose writes; default: a new actor for this set of tools. */
  readonly actor?: unknown;
  /** Absolute directory relative paths start from; default: the toolkit's workspace. */
  readonly cwd?: string;
}

/**
 * The toolkit's registered tools as Agents SDK function tools. The model reads each result's text (and its images, as image outputs); the
 * result's meta and error code travel as the tool output item's custom data, for UIs and traces.
 */
export function createOpenAIAgentsTools(toolkit: Toolkit, options?: OpenAIAgentsToolsOptions): FunctionTool[] {
  const strict = options?.strict ?? true;
  const actor = options?.actor ?? Symbol("toolfs OpenAI Agents tools");
  // Results by call id, held from the call until its output item is emitted.
  const results = new Map<string, ToolResult>();
  return toolkit.definitions.map((definition) => {
    const variant = strict ? strictToolSchema(definition.inputSchema) : undefined;
    const run = async (input: unknown, signal: AbortSignal | undefined, callId: string | undefined): Promise<AgentsToolOutput> => {
      const result = await toolkit.call(definition.name, variant ? variant.toInput(input) : input, {
        actor,
        ...(signal ? { signal } : {}),
        ...(options?.cwd ? { cwd: options.cwd } : {}),
      });
      if (callId !== undefined) results.set(callId, result);
      return agentsOutput(result);
    };
    const customDataExtractor = ({ toolCall }: { toolCall: { callId: string } }) => {
      const result = results.get(toolCall.callId);
      results.delete(toolCall.callId);
      return result ? { toolfs: { isError: result.isError, meta: result.meta, ...(result.error ? { error: result.error } : {}) } } : undefined;
    };
    const execute = (input: unknown, _context: unknown, details?: { signal?: AbortSignal; toolCall?: { callId: string } }) =>
      run(input, details?.signal, details?.toolCall?.callId);
    if (variant) {
      return tool({
        name: definition.name,
        description: definition.description,
        parameters: variant.schema as never,
        strict: true,
        execute,
        customDataExtractor,
      }) as FunctionTool;
    }
    return tool({
      name: definition.name,
      description: definition.description,
      // Non-strict schemas must admit properties the schema does not name; the toolkit refuses them itself.
      parameters: { ...definition.inputSchema, additionalProperties: true } as never,
      strict: false,
      execute,
      customDataExtractor,
    }) as FunctionTool;
  });
}

type AgentsToolOutput = string | ({ type: "text"; text: string } | { type: "image"; image: { data: string; mediaType: string } })[];

// A result without images is its text, as before; with images, the text (links in words) then each image as
// the SDK's image output, which it sends as an input_image data URL.
function agentsOutput(result: ToolResult): AgentsToolOutput {
  const images = (result.parts ?? []).flatMap((part) => (part.type === "image" ? [part] : []));
  if (images.length === 0) return resultText(result);
  const text = resultText({ content: result.content, parts: (result.parts ?? []).filter((part) => part.type !== "image") });
  return [{ type: "text", text }, ...images.map((part) => ({ type: "image" as const, image: { data: part.data, mediaType: part.mediaType } }))];
}

export interface ToolfsEditorOptions {
  readonly fs: FileSystem;
  /** Absolute directory relative patch paths start from, and paths are reported relative to; default fs.cwd. */
  readonly workspace?: string;
  /**
   * Confines writes as the toolkit's sandbox does; default workspace-write over the workspace. `.git` (at any
   * depth) and `protectedPaths` stay read-only, as in the toolkit.
   */
  readonly sandbox?: { readonly mode: SandboxMode; readonly writableRoots?: readonly string[]; readonly protectedPaths?: readonly string[] };
  /** Largest file an update loads; default 64 MiB. */
  readonly maxBytes?: number;
}

/**
 * An Editor for `applyPatchTool`: creates publish without replacing anything, updates replace the file only
 * if it is still the version the diff was applied to, both keep the file's BOM and line endings, and every
 * change passes the sandbox fence. An update with `moveTo` is published at the source and then moved (never
 * over an existing destination) only if it is still the version just written; a refused move restores the
 * source's bytes, so the file is either updated and moved or unchanged. A delete removes a file or a symlink
 * itself, never a folder: the SDK reads nothing before a delete, so there is no version to guard it with.
 */
export function createToolfsEditor(options: ToolfsEditorOptions): Editor {
  const { fs } = options;
  const workspace = options.workspace ?? fs.cwd;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const mode = options.sandbox?.mode ?? "workspace-write";
  const shown = (path: string) => relativeWithin(workspace, path) ?? path;
  // The toolkit's policy, so the editor protects what the toolkit's write does (.git and the rest).
  const policy = sandboxPolicy({
    mode,
    workspace: resolvePath(fs.cwd, workspace),
    writableRoots: (options.sandbox?.writableRoots ?? []).map((root) => resolvePath(fs.cwd, root)),
    protectedPaths: options.sandbox?.protectedPaths,
  });
  const fence = async (): Promise<FsFence> => rulesFence(fs, await resolveSandbox(fs, policy), mode);
  const failed = (error: unknown): ApplyPatchResult => ({ status: "failed", output: error instanceof Error ? error.message : String(error) });

  return {
    async createFile(operation) {
      try {
        const target = await fs.resolve(operation.path, { cwd: workspace });
        // A V4A create diff cannot say "no newline at end of file"; a text file ends with one.
        const created = applyDiff("", operation.diff, "create");
        const text = created === "" || created.endsWith("\n") ? created : `${created}\n`;
        await fs.write(target, encodeUtf8(text), { guard: { kind: "createIfAbsent" }, fence: await fence() });
        return { status: "completed", output: `Created ${shown(target.displayPath)}` };
      } catch (error) {
        if (isFsError(error, "FS_NOT_OBSERVED")) return failed(`Cannot create ${operation.path}: it already exists; update it instead`);
        return failed(error);
      }
    },
    async updateFile(operation) {
      try {
        const target = await fs.resolve(operation.path, { cwd: workspace });
        const destination = operation.moveTo === undefined ? undefined : await fs.resolve(operation.moveTo, { cwd: workspace });
        const { bytes, version } = await fs.readBytes(target, { maxBytes });
        const { text, bom } = decodeText(bytes, { path: target.displayPath });
        const eol = detectLineEnding(text);
        const next = applyLineEnding(applyDiff(normalizeLineEndings(text), operation.diff), eol);
        const fenced = await fence();
        const written = await fs.write(target, withUtf8Bom(encodeUtf8(next), bom), { guard: { kind: "replaceIfVersion", version }, fence: fenced });
        if (destination === undefined) return { status: "completed", output: `Updated ${shown(target.displayPath)}` };
        try {
          await fs.move(target, destination, { guard: { kind: "ifVersion", version: written.version }, parents: true, fence: fenced });
        } catch (error) {
          // Undone only while the source is still what this editor wrote; a newer writer's bytes are kept.
          await fs.write(target, bytes, { guard: { kind: "replaceIfVersion", version: written.version }, fence: fenced }).catch(() => undefined);
          if (isFsError(error, "FS_EXISTS")) return failed(`Cannot move ${operation.path} to ${operation.moveTo}: it already exists; nothing was changed`);
          return failed(error);
        }
        return { status: "completed", output: `Updated ${shown(target.displayPath)} and moved it to ${shown(destination.displayPath)}` };
      } catch (error) {
        return failed(error);
      }
    },
    async deleteFile(operation) {
      try {
        const target = await fs.resolve(operation.path, { cwd: workspace });
        await fs.remove(target, { fence: await fence() });
        return { status: "completed", output: `Deleted ${shown(target.displayPath)}` };
      } catch (error) {
        if (isFsError(error, "FS_NOT_FOUND")) return failed(`Cannot delete ${operation.path}: it does not exist`);
        return failed(error);
      }
    },
  };
}
