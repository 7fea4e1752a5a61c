import { throwIfAborted } from "./errors.ts";
import type { FsWriteData } from "./types.ts";

// The content of one write as the driver consumes it: a whole buffer is one chunk; a stream is read once, checked
// for type and abort on every chunk, and its iterator closed if the write ends before the stream does.
export class WriteSource implements AsyncIterable<Uint8Array> {
  readonly #data: FsWriteData;
  readonly #signal: AbortSignal | undefined;
  readonly #path: string;
  #iterator: AsyncIterator<Uint8Array> | undefined;
  #done = false;

  constructor(data: FsWriteData, signal: AbortSignal | undefined, path: string) {
    if (!(data instanceof Uint8Array) && typeof (data as Partial<AsyncIterable<Uint8Array>>)?.[Symbol.asyncIterator] !== "function") {
      throw new TypeError("write data must be a Uint8Array or an AsyncIterable of Uint8Array chunks");
    }
    this.#data = data;
    this.#signal = signal;
    this.#path = path;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array, void, undefined> {
    if (this.#iterator || this.#done) throw new Error("a write source can be consumed only once");
    if (this.#data instanceof Uint8Array) {
      this.#done = true;
      yield this.#data;
      return;
    }
    const iterator = (this.#iterator = this.#data[Symbol.asyncIterator]());
    for (;;) {
      throwIfAborted(this.#signal, this.#path);
      const next = await iterator.next();
      if (next.done) {
        this.#done = true;
        return;
      }
      if (!(next.value instanceof Uint8Array)) throw new TypeError("write data chunks must be Uint8Arrays");
      yield next.value;
    }
  }

  async close(): Promise<void> {
    if (this.#done || this.#data instanceof Uint8Array) return;
    this.#done = true;
    const iterator = this.#iterator ?? this.#data[Symbol.asyncIterator]();
    await iterator.return?.().catch(() => undefined);
  }
}
