// The budgets every search honours between entries: the caller's signal, a deadline and a cap on the bytes
// ripgrep would have printed.
import type { ResultSink, SearchScope } from "../backend.ts";
import { SearchError } from "../errors.ts";

/** Thrown through the walk when the sink said "stop"; the backend turns it into a stopped outcome. */
export class SinkStopped extends Error {}

/** Hands an item to the sink, ending the search when the sink has all it wants. */
export function deliver<T>(sink: ResultSink<T>, item: T): void {
  if (sink.push(item) === "stop") throw new SinkStopped("the consumer stopped the search");
}

/** Waits while the sink is behind. */
export async function keepPace<T>(sink: ResultSink<T>): Promise<void> {
  const wait = sink.ready?.();
  if (wait) await wait;
}

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
