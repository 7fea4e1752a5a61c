// Reusable output sinks. Each keeps a bounded number of bytes whatever the process writes, and counts what it
// did not keep, so a consumer can say exactly how much was left out. Stored parts are copied: a runtime's chunk
// may be a view into a much larger buffer, and keeping the view would keep the whole buffer alive.
import { completeUtf8Prefix, concatBytes } from "../text/utf8.ts";
import type { OutputSink } from "./types.ts";

// Output is shown as the program wrote it: a U+FEFF at the start of the output, or of the kept tail, is a
// character of that output, not a byte-order mark to drop.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

export interface BoundedCollectorOptions {
  /** Bytes kept from the start; later output is only counted. */
  readonly maxBytes: number;
  /** Ask the runner to stop the process as soon as the output exceeds `maxBytes`. */
  readonly stopOnOverflow?: boolean;
}

/** Keeps the first `maxBytes` bytes of output, for output that is useless once incomplete (parsed output). */
export class BoundedCollector implements OutputSink {
  readonly #max: number;
  readonly #stopOnOverflow: boolean;
  readonly #chunks: Uint8Array[] = [];
  #kept = 0;
  #total = 0;

  constructor(options: BoundedCollectorOptions) {
    this.#max = checkBudget("maxBytes", options.maxBytes);
    this.#stopOnOverflow = options.stopOnOverflow ?? false;
  }

  write(chunk: Uint8Array): "stop" | void {
    this.#total += chunk.length;
    const room = this.#max - this.#kept;
    if (room > 0 && chunk.length > 0) {
      const part = chunk.slice(0, Math.min(room, chunk.length));
      this.#chunks.push(part);
      this.#kept += part.length;
    }
    if (this.#stopOnOverflow && this.overflowed) return "stop";
  }

  /** Every byte written, kept or not. */
  get totalBytes(): number {
    return this.#total;
  }

  /** True once more than `maxBytes` was written: what is kept is not the whole output. */
  get overflowed(): boolean {
    return this.#total > this.#max;
  }

  bytes(): Uint8Array {
    return concatBytes(this.#chunks);
  }

  /** The kept bytes as UTF-8; invalid sequences become U+FFFD. */
  text(): string {
    return decoder.decode(this.bytes());
  }
}

export interface HeadTailCollectorOptions {
  /** Bytes kept from the start of the output. */
  readonly headBytes: number;
  /** Bytes kept from the end of the output. */
  readonly tailBytes: number;
}

/**
 * Keeps the first `headBytes` and the last `tailBytes` of output and counts the bytes between them: the
 * beginning says what a command started doing, the end how it finished. Pass one collector as both stdout and
 * stderr to keep them interleaved in arrival order.
 */
export class HeadTailCollector implements OutputSink {
  readonly #headMax: number;
  readonly #tailMax: number;
  readonly #head: Uint8Array[] = [];
  #headKept = 0;
  #tail: Uint8Array[] = [];
  #tailKept = 0;
  #total = 0;
  // The byte just before the kept tail, once bytes were dropped there: tells whether the tail starts a line.
  #beforeTail: number | undefined;

  constructor(options: HeadTailCollectorOptions) {
    this.#headMax = checkBudget("headBytes", options.headBytes);
    this.#tailMax = checkBudget("tailBytes", options.tailBytes);
  }

  write(chunk: Uint8Array): void {
    this.#total += chunk.length;
    let rest = chunk;
    const room = this.#headMax - this.#headKept;
    if (room > 0 && rest.length > 0) {
      const part = rest.slice(0, Math.min(room, rest.length));
      this.#head.push(part);
      this.#headKept += part.length;
      rest = rest.subarray(part.length);
    }
    if (rest.length === 0 || this.#tailMax === 0) return;
    // Only the last tailBytes of a large chunk can survive, so copy no more than that.
    const start = Math.max(0, rest.length - this.#tailMax);
    if (start > 0) this.#beforeTail = rest[start - 1];
    const part = rest.slice(start);
    this.#tail.push(part);
    this.#tailKept += part.length;
    while (this.#tailKept > this.#tailMax) {
      const first = this.#tail[0]!;
      const excess = this.#tailKept - this.#tailMax;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailKept -= first.length;
        this.#beforeTail = first[first.length - 1];
      } else {
        this.#beforeTail = first[excess - 1];
        this.#tail[0] = first.slice(excess);
        this.#tailKept -= excess;
      }
    }
  }

  get totalBytes(): number {
    return this.#total;
  }

  /** Bytes written between the kept head and the kept tail. */
  get omittedBytes(): number {
    return this.#total - this.#headKept - this.#tailKept;
  }

  head(): Uint8Array {
    return concatBytes(this.#head);
  }

  tail(): Uint8Array {
    return concatBytes(this.#tail);
  }

  /**
   * The output as UTF-8 text, with `marker(n)` standing for the `n` bytes left out. The cut never splits a
   * character: a partial one on either side of it is left out too, and counted. With `wholeLines`, the marker
   * gets a line of its own and a line the cut split is left out the same way, so the text around the marker is
   * whole lines; a part keeps its split line when dropping it would cost more than half of that part.
   */
  text(marker: (omittedBytes: number) => string = defaultMarker, options?: { readonly wholeLines?: boolean }): string {
    const head = this.head();
    const tail = this.tail();
    if (this.omittedBytes === 0) return decoder.decode(concatBytes([head, tail]));
    let headEnd = completeUtf8Prefix(head);
    let tailStart = firstCharStart(tail);
    if (options?.wholeLines) {
      const lastBreak = head.lastIndexOf(NEWLINE);
      if (lastBreak >= 0 && head.length - (lastBreak + 1) <= head.length / 2) headEnd = lastBreak + 1;
      const firstBreak = tail.indexOf(NEWLINE);
      if (this.#beforeTail !== NEWLINE && firstBreak >= 0 && firstBreak + 1 <= tail.length / 2) tailStart = firstBreak + 1;
    }
    const omitted = this.omittedBytes + (head.length - headEnd) + tailStart;
    const before = decoder.decode(head.subarray(0, headEnd));
    const after = decoder.decode(tail.subarray(tailStart));
    if (!options?.wholeLines) return before + marker(omitted) + after;
    return `${before}${before === "" || before.endsWith("\n") ? "" : "\n"}${marker(omitted)}\n${after}`;
  }
}

const NEWLINE = 0x0a;

function defaultMarker(omittedBytes: number): string {
  return `\n[... ${omittedBytes} bytes omitted ...]\n`;
}

function checkBudget(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
  return value;
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** Offset of the first byte that does not continue a sequence the cut began before it. */
function firstCharStart(bytes: Uint8Array): number {
  let i = 0;
  while (i < Math.min(3, bytes.length) && isContinuation(bytes[i]!)) i++;
  return i;
}
