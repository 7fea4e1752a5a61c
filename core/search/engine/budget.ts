// The budgets every search honours between entries: the caller's signal, a deadline and a cap on the bytes
// ripgrep would have printed.
import type { SearchScope } from "../backend.ts";
import { SearchError } from "../errors.ts";

export class Budget {
  readonly signal: AbortSignal | undefined;
  readonly #deadline: number;
  readonly #timeoutMs: number | undefined;
  readonly #maxOutputBytes: number;
  #outputBytes = 0;

  constructor(scope: SearchScope) {
    this.signal = scope.signal;
    this.#timeoutMs = scope.timeoutMs;
    this.#deadline = scope.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + scope.timeoutMs;
    this.#maxOutputBytes = scope.maxOutputBytes ?? Number.POSITIVE_INFINITY;
  }

  /** Throws SEARCH_ABORTED once the signal fired or the deadline passed. */
  check(): void {
    if (this.signal?.aborted) {
      throw new SearchError("SEARCH_ABORTED", "The search was cancelled before it finished.", { cause: this.signal.reason });
    }
    if (Date.now() >= this.#deadline) {
      throw new SearchError(
        "SEARCH_ABORTED",
        `The search did not finish within ${this.#timeoutMs} ms; narrow the path or the pattern and try again.`,
        { details: { timeoutMs: this.#timeoutMs } },
      );
    }
  }

  /** Counts output bytes; throws SEARCH_RAW_OUTPUT_OVERFLOW past the cap. */
  spend(bytes: number): void {
    this.#outputBytes += bytes;
    if (this.#outputBytes > this.#maxOutputBytes) {
      throw new SearchError(
        "SEARCH_RAW_OUTPUT_OVERFLOW",
        `The search produced more than ${this.#maxOutputBytes} bytes of raw output; narrow the path, the glob or the pattern.`,
        { details: { maxOutputBytes: this.#maxOutputBytes } },
      );
    }
  }
}
