/**
 * Search: the backend seam shared by the ripgrep process backend and the pure-TypeScript engine, and the
 * search error codes.
 *
 * @module
 */
export type {
  FilesRequest,
  FilesResult,
  GlobArg,
  GrepFile,
  GrepLine,
  GrepRequest,
  GrepResult,
  GrepSubmatch,
  SearchBackend,
  SearchData,
  SearchScope,
} from "./backend.ts";
export { isSearchError, SEARCH_ERROR_CODES, SearchError } from "./errors.ts";
export type { SearchErrorCode } from "./errors.ts";
export { createEngineBackend } from "./engine/mod.ts";
