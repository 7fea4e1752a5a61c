import type { SearchBackend } from "./backend.ts";
import { isSearchError } from "./errors.ts";
import { streamMatches, streamPaths } from "./stream.ts";

/**
 * A backend that uses `primary` until it reports itself unavailable (a `SEARCH_FAILED` with
 * `details.unavailable`, such as ripgrep missing from the installation), then `fallback` from that call on.
 * Every other failure is the primary's answer and is passed on as it is.
 */
export function withFallback(primary: SearchBackend, fallback: SearchBackend): SearchBackend {
  let current = primary;
  const attempt = async <T>(call: (backend: SearchBackend) => Promise<T>): Promise<T> => {
    if (current === fallback) return call(fallback);
    try {
      return await call(primary);
    } catch (error) {
      if (!isSearchError(error, "SEARCH_FAILED") || error.details.unavailable !== true) throw error;
      current = fallback;
      return call(fallback);
    }
  };
  return {
    get name() {
      return current.name;
    },
    // The fallback takes over only when the primary could not start, so a guard both keep is kept.
    get readableGuard() {
      return primary.readableGuard && fallback.readableGuard ? current.readableGuard : undefined;
    },
    files: (request) => attempt((backend) => backend.files(request)),
    grep: (request) => attempt((backend) => backend.grep(request)),
    // An unavailable backend fails before it delivers anything, so the fallback's stream starts clean.
    streamFiles: (request, sink) => attempt((backend) => streamPaths(backend, request, sink)),
    streamGrep: (request, sink) => attempt((backend) => streamMatches(backend, request, sink)),
  };
}
