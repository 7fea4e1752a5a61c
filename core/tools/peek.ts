// Looking at a stream's first bytes without losing them: read decides what a file is (a PDF, an image, text)
// from its start, then hands the same chunks, from the first, to whatever reads it.
import { concatBytes } from "../text/utf8.ts";

/** The first `want` bytes of a stream (fewer at its end), and every chunk from the start for whoever reads on. */
export async function peekStream(stream: AsyncIterable<Uint8Array>, want: number): Promise<{ head: Uint8Array; chunks: AsyncIterable<Uint8Array> }> {
  const iterator = stream[Symbol.asyncIterator]();
  const held: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < want) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    size += next.value.length;
    // A stream may hand out one buffer again and again, so a chunk held across another read is copied; one that
    // completes the head is yielded before the next read and is kept as it is.
    held.push(size < want ? next.value.slice() : next.value);
  }
  const head = concatBytes(held).subarray(0, want);
  // A reader that stops early closes the stream through it.
  async function* chunks(): AsyncGenerator<Uint8Array> {
    let finished = done;
    try {
      yield* held;
      while (!finished) {
        const next = await iterator.next();
        if (next.done) finished = true;
        else yield next.value;
      }
    } finally {
      if (!finished) await iterator.return?.();
    }
  }
  return { head: head.slice(), chunks: chunks() };
}
