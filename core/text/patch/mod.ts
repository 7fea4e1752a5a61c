/**
 * The runtime-neutral core of `apply_patch` (the patch format of OpenAI's Codex): parsing, finding each hunk
 * in a file, and planning a whole patch against the files' current texts before anything changes.
 *
 * @module
 */
export { applyHunks, patchText } from "./apply.ts";
export type { ApplyHunksOptions, HunkPlacement, PatchedText } from "./apply.ts";
export { isPatchError, PATCH_ERROR_CODES, PatchError } from "./errors.ts";
export type { PatchErrorCode, PatchErrorDetails, PatchProblem } from "./errors.ts";
export { parsePatch } from "./parse.ts";
export type { Hunk, HunkLine, PatchOperation } from "./parse.ts";
export { fileDiff, lexicalKey, patchRefused, planPatch } from "./plan.ts";
export type { FileDiff, PatchPlan, PlannedChange, PlanOptions, ReadPatchedFile } from "./plan.ts";
export { SEEK_PASSES } from "./seek.ts";
export type { SeekPass } from "./seek.ts";
