// The budgets every search honours: the caller's signal, a deadline and a cap on the bytes ripgrep would
// have printed. The engine's work is synchronous between its awaits, and a provider's promises settle as
// microtasks, so without help a timer (a timeout, an abort scheduled by the host) could not run until the
// whole search was over. The engine therefore reports its work here (`pace`) and pauses on a macrotask
// every few milliseconds of it (docs/notes/0014-bounded-search.md).
import type { ResultSink, SearchScope } from "../backend.ts";
import { SearchError } from "../errors.ts";
import { SEARCH_MAX_OUTPUT_BYTES } from "../limits.ts";
import { globSteps } from "./glob.ts";

/** Work units between looks at the clock and the signal. */
const CHECK_UNITS = 16_384;
/** Pause on a macrotask once this much time has passed since the last pause. */
const PAUSE_MS = 25;
/** ... or once this much work has, whatever the clock says, so a pause is certain in a long search. */
const PAUSE_UNITS = 1 << 23;

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
  // One match message (a line and its submatches) is built whole before it is delivered, so even a streamed
  // search, which has no output cap, bounds it.
  readonly #maxMessageBytes: number;
  #outputBytes = 0;
  #messageBytes = 0;
  #unchecked = 0;
  #sincePause = 0;
  #pausedAt = performance.now();
  #globSteps = globSteps();

  /** `whole`: the caller holds the entire result, so the default output cap applies (as for ripgrep). */
  constructor(scope: SearchScope, whole: boolean) {
    this.signal = scope.signal;
    this.#timeoutMs = scope.timeoutMs;
    this.#deadline = scope.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + scope.timeoutMs;
    this.#maxOutputBytes = scope.maxOutputBytes ?? (whole ? SEARCH_MAX_OUTPUT_BYTES : Number.POSITIVE_INFINITY);
    this.#maxMessageBytes = Math.min(this.#maxOutputBytes, SEARCH_MAX_OUTPUT_BYTES);
  }

  /** Throws SEARCH_ABORTED once the signal fired or the deadline passed. */
  check(): void {
    if (this.signal?.aborted) {
      throw new SearchError("SEARCH_ABORTED", "The search was cancelled before it finished.", { cause: this.signal.reason });
    }
    if (Date.now() >= this.#deadline) {
      throw new SearchError("SEARCH_ABORTED", `The search did not finish within ${this.#timeoutMs} ms; narrow the path or the pattern and try again.`, {
        details: { timeoutMs: this.#timeoutMs },
      });
    }
  }

  /**
   * Counts `units` of work (about one per byte or path character looked at, plus the glob matchers' steps).
   * Every so often it checks the signal and the deadline, and when a pause is due it returns a promise that
   * settles on a later macrotask; the caller awaits it. Usually it returns undefined, so the hot loops pay no
   * promise.
   */
  pace(units: number): Promise<void> | undefined {
    this.#unchecked += units;
    if (this.#unchecked < CHECK_UNITS) return undefined;
    const steps = globSteps();
    this.#sincePause += this.#unchecked + (steps - this.#globSteps);
    this.#globSteps = steps;
    this.#unchecked = 0;
    this.check();
    if (this.#sincePause < PAUSE_UNITS && performance.now() - this.#pausedAt < PAUSE_MS) return undefined;
    return this.#pause();
  }

  async #pause(): Promise<void> {
    // A timer, not a microtask: timers and I/O callbacks (an abort, the host's own timeout) run before it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#sincePause = 0;
    this.#pausedAt = performance.now();
    this.check();
  }

  /** Output bytes that may still be spent before a cap is passed (for the current message too). */
  get remainingOutput(): number {
    return Math.min(this.#maxOutputBytes - this.#outputBytes, this.#maxMessageBytes - this.#messageBytes);
  }

  /** Starts counting a new match message against the per-message cap. */
  beginMessage(): void {
    this.#messageBytes = 0;
  }

  /** Counts output bytes; throws SEARCH_RAW_OUTPUT_OVERFLOW past the cap. */
  spend(bytes: number): void {
    this.#outputBytes += bytes;
    this.#messageBytes += bytes;
    if (this.#messageBytes > this.#maxMessageBytes && this.#outputBytes <= this.#maxOutputBytes) {
      throw new SearchError(
        "SEARCH_RAW_OUTPUT_OVERFLOW",
        `One matching line would take more than ${this.#maxMessageBytes} bytes of raw output (an extremely long line, or one with very many matches); narrow the path, the glob or the pattern.`,
        { details: { maxMessageBytes: this.#maxMessageBytes } },
      );
    }
    if (this.#outputBytes > this.#maxOutputBytes) {
      throw new SearchError(
        "SEARCH_RAW_OUTPUT_OVERFLOW",
        `The search produced more than ${this.#maxOutputBytes} bytes of raw output; narrow the path, the glob or the pattern.`,
        { details: { maxOutputBytes: this.#maxOutputBytes } },
      );
    }
  }
}
