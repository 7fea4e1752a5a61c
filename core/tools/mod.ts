/**
 * The model-facing tools: a toolkit over a provider with read, write and edit, glob and grep over a search
 * backend, bash over a process runner, the read-before-write policy, the sandbox fence with one-time
 * escalation, and the system-prompt guidance.
 *
 * @module
 */
export { approvalMessage, approvalText } from "./approval.ts";
export type { ApprovalOutcome, ApprovalRequest, ApprovalText } from "./approval.ts";
export { bashOffer, createToolkit } from "./toolkit.ts";
export { DEFAULT_BASH_ENV } from "./bash.ts";
export type { BashOffer, SandboxOptions, Toolkit, ToolkitOptions, ToolName } from "./toolkit.ts";
export { DEFAULT_LIMITS } from "./tool.ts";
export type { ToolLimits } from "./tool.ts";
export { partText, resultText, TOOL_ERROR_CODES, textParts, ToolError } from "./types.ts";
export type { ContentPart, ToolCallOptions, ToolDefinition, ToolErrorCode, ToolResult } from "./types.ts";
export { defineTool, pathTitle } from "./define.ts";
export { builtinTool } from "./builtins.ts";
export type { DefinedTool, HostToolOutput, ToolContext, ToolKind, ToolPermission, ToolSpec } from "./define.ts";
export { resultJsonSchema, structuredResult, TOOL_TRAITS } from "./traits.ts";
export type { ToolTraits } from "./traits.ts";
export { strictToolSchema } from "./strict.ts";
export type { StrictToolSchema } from "./strict.ts";
export type { ApplyPatchArgs, PatchedFile } from "./apply-patch.ts";
export type { DeleteArgs, MoveArgs } from "./delete-move.ts";
export type { PdfDocument, PdfLibrary, PdfLoader, PdfTextItem } from "./read-pdf.ts";
