import { CodedError } from "../errors/mod.ts";
import type { FsErrorCode } from "../fs/errors.ts";
import type { ProcessErrorCode } from "../process/errors.ts";
import type { SearchErrorCode } from "../search/errors.ts";
import type { PatchErrorCode } from "../text/patch/errors.ts";

/** What a model sees of a tool: its name, what it does, and the JSON Schema of its arguments. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

export interface ToolCallOptions {
  readonly signal?: AbortSignal;
  /** Absolute directory relative paths start from; defaults to the toolkit's workspace root. */
  readonly cwd?: string;
  /**
   * Whose reads authorize whose writes. Any value usable as a Map key (a session object, an id). Calls
   * without one share a single default actor.
   */
  readonly actor?: unknown;
}

/**
 * The codes of the toolkit's own failures (bad arguments, escalation outcomes, a cancelled command, a tool
 * that cannot run in this configuration).
 */
export const TOOL_ERROR_CODES = [
  "TOOL_UNKNOWN",
  "TOOL_INVALID_ARGUMENTS",
  "TOOL_ESCALATION_REJECTED",
  "TOOL_ESCALATION_CANCELLED",
  "TOOL_ESCALATION_UNAVAILABLE",
  "TOOL_ABORTED",
  "TOOL_UNAVAILABLE",
  "TOOL_FAILED",
] as const;

export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

/** A failure of the toolkit itself rather than of the filesystem or a search. */
export class ToolError extends CodedError<ToolErrorCode> {
  override readonly name = "ToolError";
}

/**
 * Content of a result beyond its text: an image (base64 bytes and their media type), or a link to a resource
 * (a spill of complete results). The text always stands on its own; a surface that cannot carry a part shows
 * `partText` of it instead.
 */
export type ContentPart =
  | { readonly type: "image"; readonly data: string; readonly mediaType: string; readonly alt?: string }
  | {
      readonly type: "resource_link";
      readonly uri: string;
      readonly name: string;
      readonly mediaType?: string;
      readonly description?: string;
      /**
       * True when the result's text already names this resource (a spill footer names its file): a text-only
       * surface leaves the link out rather than give the model the same path twice.
       */
      readonly inText?: boolean;
    };

/** A part in words, for a surface that cannot carry it. */
export function partText(part: ContentPart): string {
  if (part.type === "image") {
    const bytes = Math.floor((part.data.replace(/=+$/, "").length * 3) / 4);
    return `[image: ${part.mediaType}, ${bytes} bytes${part.alt ? `: ${part.alt}` : ""}]`;
  }
  return `[${part.name}](${part.uri})${part.description ? ` ${part.description}` : ""}`;
}

/** The result's text with its parts in words after it (but those it already names): what a text-only surface shows. */
export function resultText(result: { readonly content: string; readonly parts?: readonly ContentPart[] | undefined }): string {
  const parts = textParts(result.parts);
  if (parts.length === 0) return result.content;
  return [result.content, ...parts.map(partText)].join("\n");
}

/** The parts a text-only surface adds to the text: all but links the text already names. */
export function textParts(parts: readonly ContentPart[] | undefined): readonly ContentPart[] {
  return (parts ?? []).filter((part) => !(part.type === "resource_link" && part.inText));
}

/** The result of one call: the text the model reads, and data for hosts and UIs. */
export interface ToolResult {
  /** The text; complete without the parts. */
  readonly content: string;
  /** Content beyond the text, where the tool has it (a link to glob's or grep's spill); absent when there is none. */
  readonly parts?: readonly ContentPart[];
  readonly isError: boolean;
  readonly meta: Readonly<Record<string, unknown>>;
  /** On failure: the error's class name and its stable code. */
  readonly error?: { readonly name: string; readonly code: FsErrorCode | SearchErrorCode | ProcessErrorCode | PatchErrorCode | ToolErrorCode };
}
