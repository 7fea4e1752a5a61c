/**
 * toolfs: the model-facing file tools (`createToolkit`), the provider seam a backend implements
 * (`FileSystem`, or `FsDriver` through `createFileSystem`), search over it (`createEngineBackend`, or
 * ripgrep through `createRipgrepBackend`), spill stores, process runners, and the error families with their
 * codes. Backends live under their own entry points (`toolfs/node`, `toolfs/deno`, `toolfs/memory`);
 * the MCP server under `toolfs/mcp`, agent-SDK tool sets under `toolfs/ai` and `toolfs/openai-agents`, the
 * ACP agent under `toolfs/acp`, the conformance suite under `toolfs/conformance`.
 *
 * This is the package's public surface; `core/mod.ts` is the internal barrel the adapters share.
 *
 * @module
 */

// The toolkit.
export {
  approvalMessage,
  approvalText,
  createToolkit,
  DEFAULT_BASH_ENV,
  defineTool,
  DEFAULT_LIMITS,
  resultJsonSchema,
  strictToolSchema,
  structuredResult,
  TOOL_ERROR_CODES,
  TOOL_TRAITS,
  ToolError,
} from "./tools/mod.ts";
export type {
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalText,
  ContentPart,
  DefinedTool,
  HostToolOutput,
  PdfDocument,
  PdfLibrary,
  PdfLoader,
  PdfTextItem,
  SandboxOptions,
  StrictToolSchema,
  Toolkit,
  ToolkitOptions,
  ToolCallOptions,
  ToolContext,
  ToolDefinition,
  ToolErrorCode,
  ToolKind,
  ToolLimits,
  ToolName,
  ToolPermission,
  ToolResult,
  ToolSpec,
  ToolTraits,
} from "./tools/mod.ts";
export { SANDBOX_MODES } from "./policy/mod.ts";
export type { SandboxMode, SandboxRule } from "./policy/mod.ts";

// The provider seam.
export { createFileSystem, FS_ERROR_CODES, FsError, isFsError } from "./fs/mod.ts";
export type {
  CreateFileSystemOptions,
  FileSystem,
  FsBytes,
  FsCapabilities,
  FsDirEntry,
  FsDirectory,
  FsDriver,
  FsDriverHandle,
  FsDriverStat,
  FsEntryType,
  FsErrorCode,
  FsErrorDetails,
  FsFence,
  FsFileType,
  FsInfo,
  FsMkdirOptions,
  FsMkdirResult,
  FsMoveOptions,
  FsMoveResult,
  FsMutationGuard,
  FsMutationOptions,
  FsPathInfo,
  FsProcessInfo,
  FsReadStream,
  FsRemoveOptions,
  FsRemoveResult,
  FsResolveOptions,
  FsSignalOptions,
  FsStagedFile,
  FsTarget,
  FsTargetKey,
  FsVersion,
  FsWriteGuard,
  FsWriteOptions,
  FsWriteResult,
} from "./fs/mod.ts";

// The overlay: a copy-on-write provider over any other, its change set, patch, checkpoints and guarded commit.
export { createOverlayProvider, createOverlayUpper, isOverlayError, OVERLAY_ERROR_CODES, OverlayError } from "./fs/mod.ts";
export type {
  OverlayChange,
  OverlayChangesOptions,
  OverlayCheckpointInfo,
  OverlayCommitOptions,
  OverlayCommitResult,
  OverlayConflict,
  OverlayConflictReason,
  OverlayErrorCode,
  OverlayFileSystem,
  OverlayOptions,
  OverlayPatchOptions,
  OverlayUpper,
} from "./fs/mod.ts";

// apply_patch's format (OpenAI Codex's): parse a patch, plan it against files' texts, its error family.
export { isPatchError, PATCH_ERROR_CODES, parsePatch, PatchError, planPatch } from "./text/patch/mod.ts";
export type {
  FileDiff,
  Hunk,
  HunkLine,
  PatchErrorCode,
  PatchErrorDetails,
  PatchOperation,
  PatchPlan,
  PatchProblem,
  PlannedChange,
  PlanOptions,
  ReadPatchedFile,
} from "./text/patch/mod.ts";
export type { PatchedFile } from "./tools/mod.ts";

// Text helpers for hosts that read and write through the seam themselves.
export { decodeText, encodeUtf8 } from "./text/mod.ts";
export type { DecodedText, DecodeOptions, NotTextReason } from "./text/mod.ts";

// Search.
export {
  createEngineBackend,
  createOverlaySearchBackend,
  createRipgrepBackend,
  fromWholeResults,
  isSearchError,
  SEARCH_ERROR_CODES,
  searchFiles,
  SearchError,
  searchGrep,
  withFallback,
} from "./search/mod.ts";
export type {
  FilesRequest,
  FilesResult,
  GlobArg,
  GrepEvent,
  GrepFile,
  GrepLine,
  GrepRequest,
  GrepResult,
  GrepSubmatch,
  ResultSink,
  RipgrepBackendOptions,
  SearchBackend,
  SearchErrorCode,
  SearchFallback,
  StreamOutcome,
  WholeResultBackend,
  WholeSearchBackend,
} from "./search/mod.ts";

// Spill stores.
export { createFsSpillStore, createMemorySpillStore, spillDirectoryIn } from "./spill/mod.ts";
export type { MemorySpillStore, SpillReceipt, SpillRequest, SpillStore } from "./spill/mod.ts";

// Processes.
export { BoundedCollector, createProcessRunner, HeadTailCollector, isProcessError, PROCESS_ERROR_CODES, ProcessError } from "./process/mod.ts";
export type {
  BoundedCollectorOptions,
  HeadTailCollectorOptions,
  OutputSink,
  ProcessDriver,
  ProcessErrorCode,
  ProcessResult,
  ProcessRunner,
  ProcessRunnerOptions,
  ProcessSpec,
  StopReason,
} from "./process/mod.ts";

// The base of every error family.
export { CodedError } from "./errors/mod.ts";
export type { CodedErrorOptions } from "./errors/mod.ts";
