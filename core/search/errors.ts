/** The closed set of search error codes. */
export const SEARCH_ERROR_CODES = [
  "SEARCH_INVALID_PATTERN",
  "SEARCH_FAILED",
  "SEARCH_RAW_OUTPUT_OVERFLOW",
  "SEARCH_ABORTED",
] as const;

export type SearchErrorCode = (typeof SEARCH_ERROR_CODES)[number];

/** A failed search: a stable code plus a message that tells the model what to do next. */
export class SearchError extends Error {
  override readonly name = "SearchError";
  readonly code: SearchErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: SearchErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details ?? {};
  }
}

const codes: ReadonlySet<string> = new Set(SEARCH_ERROR_CODES);

/** True for a SearchError, also one from another copy of this library. */
export function isSearchError(value: unknown, code?: SearchErrorCode): value is SearchError {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { name?: unknown; code?: unknown };
  if (candidate.name !== "SearchError" || typeof candidate.code !== "string" || !codes.has(candidate.code)) return false;
  return code === undefined || candidate.code === code;
}
