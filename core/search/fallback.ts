import type { SearchBackend, SearchFallback, StreamOutcome, WholeSearchBackend } from "./backend.ts";
import { isSearchError } from "./errors.ts";
import { streamMatches, streamPaths, withWholeResults } from "./stream.ts";

/**
 * A backend that uses `primary` until it reports itself unavailable (a `SEARCH_FAILED` with
 * `details.unavailable`, such as ripgrep missing from the installation), then `fallback` from that call on.
 * Every other failure is the primary's answer and is passed on as it is. Each outcome from the fallback says
 * so (`fallback`: the primary's name and why it could not run), for the tools to show.
 */
export function withFallback(primary: SearchBackend, fallback: SearchBackend): WholeSearchBackend {
  let taken: SearchFallback | undefined;
  const attempt = async (call: (backend: SearchBackend) => Promise<StreamOutcome>): Promise<StreamOutcome> => {
    if (!taken) {
      try {
        return await call(primary);
      } catch (error) {
        if (!isSearchError(error, "SEARCH_FAILED") || error.details.unavailable !== true) throw error;
        taken = { from: primary.name, reason: error.message };
      }
    }
    return { ...(await call(fallback)), fallback: taken };
  };
  return withWholeResults({
    get name() {
      return taken ? fallback.name : primary.name;
    },
    // The fallback takes over only when the primary could not start, so a guard both keep is kept.
    get readableGuard() {
      return primary.readableGuard && fallback.readableGuard ? (taken ? fallback : primary).readableGuard : undefined;
    },
    // An unavailable backend fails before it delivers anything, so the fallback's stream starts clean.
    streamFiles: (request, sink) => attempt((backend) => streamPaths(backend, request, sink)),
    streamGrep: (request, sink) => attempt((backend) => streamMatches(backend, request, sink)),
  });
}
