import { CodedError, codedErrorGuard } from "../errors/mod.ts";

/** The closed set of search error codes. */
export const SEARCH_ERROR_CODES = ["SEARCH_INVALID_PATTERN", "SEARCH_FAILED", "SEARCH_RAW_OUTPUT_OVERFLOW", "SEARCH_ABORTED"] as const;

export type SearchErrorCode = (typeof SEARCH_ERROR_CODES)[number];

/** A failed search: a stable code plus a message that tells the model what to do next. */
export class SearchError extends CodedError<SearchErrorCode> {
  override readonly name = "SearchError";
}

/** True for a SearchError, also one from another copy of this library. */
export const isSearchError: (value: unknown, code?: SearchErrorCode) => value is SearchError = codedErrorGuard<SearchError>("SearchError", SEARCH_ERROR_CODES);
