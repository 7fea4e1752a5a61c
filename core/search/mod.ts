/**
 * Search: the backend seam shared by the ripgrep process backend and the pure-TypeScript engine, the
 * search error codes, and the backend that runs ripgrep through a process runner.
 *
 * @module
 */
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
  SearchBackend,
  SearchConfinement,
  SearchData,
  SearchFallback,
  SearchScope,
  StreamOutcome,
  WholeResults,
  WholeSearchBackend,
} from "./backend.ts";
export { isSearchError, SEARCH_ERROR_CODES, SearchError } from "./errors.ts";
export type { SearchErrorCode } from "./errors.ts";
export { EntrySampler, sampleAcrossEntries, topLevelEntry } from "./sample.ts";
export type { EntrySample, EntrySamplerLimits, StreamedSample } from "./sample.ts";
export {
  collectMatches,
  collectPaths,
  fromWholeResults,
  GrepCollector,
  grepEvents,
  searchFiles,
  searchGrep,
  streamMatches,
  streamPaths,
  withWholeResults,
} from "./stream.ts";
export type { SearchOutcome, WholeResultBackend } from "./stream.ts";
export {
  createRipgrepBackend,
  RIPGREP_MAX_OUTPUT_BYTES,
  RIPGREP_MEMORY_LIMIT_BYTES,
  RIPGREP_STDERR_MAX_BYTES,
  RIPGREP_TIMEOUT_MS,
  ripgrepFilesArgs,
  ripgrepGrepArgs,
} from "./ripgrep.ts";
export type { RipgrepBackendOptions } from "./ripgrep.ts";
export { createEngineBackend } from "./engine/mod.ts";
export { withFallback } from "./fallback.ts";
export { createOverlaySearchBackend } from "./overlay.ts";
