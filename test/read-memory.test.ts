// read keeps memory bounded whatever the file's size: an instrumented stream serves a large file chunk by chunk
// and, before handing out each chunk, measures what the reader still holds (the heap and ArrayBuffer bytes
// left after a full garbage collection, above what was held before the read). A reader that buffered the file,
// as bytes or as text, would hold its size; the bound is a small fraction of it. Bytes, not timings: the
// result does not depend on the machine's speed or load.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createToolkit, type FileSystem, type FsReadStream } from "../core/mod.ts";
import { countLineFeeds } from "../core/text/lines.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const MiB = 1024 * 1024;
const FILE_BYTES = 128 * MiB;
const CHUNK = 64 * 1024;
/** What the reader may hold at once, above its baseline: the window's own lines plus a few chunks. */
const BOUND = 8 * MiB;
const LINE = "2026-11-30T12:00:00Z INFO request handled path=/api/items/42 status=200 duration_ms=17 bytes=4096\n";

function held(): number {
  // V8 frees dead ArrayBuffers' memory concurrently after a collection; the second collection waits for that.
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

interface Measured {
  readonly stream: FsReadStream;
  /** The most held above the baseline, at any chunk boundary. */
  peak(): number;
  chunks(): number;
}

// FILE_BYTES of LINEs (the last one cut short), as fresh chunks the reader may keep or drop, or, when the
// reader says it copies what it keeps (reuseBuffer), as one buffer overwritten for every chunk, so that a view
// kept instead of a copy shows up as garbled lines.
function measuredStream(info: FsReadStream["info"], baseline: number, reuse: boolean): Measured {
  const template = new TextEncoder().encode(LINE.repeat(Math.ceil(CHUNK / LINE.length) + 1));
  const shared = new Uint8Array(CHUNK);
  let peak = 0;
  let served = 0;
  const stream: FsReadStream = {
    info,
    close: async () => {},
    async *[Symbol.asyncIterator]() {
      for (let offset = 0; offset < FILE_BYTES; offset += CHUNK) {
        // Every 8 MiB, to keep the collections few, and once more after the last chunk: a reader that buffers
        // the file holds all of it by then, whichever way it does it.
        if (served % 128 === 0) peak = Math.max(peak, held() - baseline);
        const length = Math.min(CHUNK, FILE_BYTES - offset);
        const start = offset % LINE.length;
        served++;
        if (!reuse) yield template.slice(start, start + length);
        else {
          shared.set(template.subarray(start, start + length));
          yield shared.subarray(0, length);
        }
      }
      peak = Math.max(peak, held() - baseline);
    },
  };
  return { stream, peak: () => peak, chunks: () => served };
}

// The memory provider, except that big.log streams through the instrumented stream.
function instrumented(fs: FileSystem, measure: (info: FsReadStream["info"], reuse: boolean) => Measured): { fs: FileSystem; last(): Measured | undefined } {
  let last: Measured | undefined;
  const proxy = new Proxy(fs, {
    get(target, key) {
      if (key === "readStream") {
        return async (...args: Parameters<FileSystem["readStream"]>) => {
          const real = await target.readStream(...args);
          await real.close();
          last = measure(real.info, args[1]?.reuseBuffer === true);
          return last.stream;
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { fs: proxy, last: () => last };
}

describe("read holds a bounded number of bytes at once", () => {
  const lines = FILE_BYTES / LINE.length;

  test.for([
    ["the last window", Math.floor(lines) - 1999, undefined],
    ["the first window", 1, undefined],
    ["a window in the middle", Math.floor(lines / 2), 500],
  ] as const)("%s of a 128 MiB file", async ([, offset, limit]) => {
    countLineFeeds(new Uint8Array(16)); // its working memory is allocated once, before the baseline
    let baseline = 0;
    const { fs, last } = instrumented(createMemoryProvider({ cwd: "/w", files: { "big.log": "x\n" } }), (info, reuse) => measuredStream(info, baseline, reuse));
    const kit = createToolkit({ fs });
    // The same read once before measuring, so that compiled code and caches count in the baseline.
    expect((await kit.call("read", { path: "big.log", offset, ...(limit === undefined ? {} : { limit }) })).isError).toBe(false);
    baseline = held();
    const result = await kit.call("read", { path: "big.log", offset, ...(limit === undefined ? {} : { limit }) });
    expect(result.isError, result.content.slice(0, 300)).toBe(false);
    expect(result.content).toContain(`of ${Math.ceil(lines)}`);
    const shown = result.content.split("\n").filter((line) => /^\d+: /.test(line));
    expect(shown.length).toBeGreaterThan(100);
    const text = LINE.slice(0, -1);
    expect(
      shown.filter((line) => !line.endsWith(`: ${text}`) && !text.startsWith(line.replace(/^\d+: /, ""))),
      "garbled lines",
    ).toEqual([]);
    const measured = last()!;
    expect(measured.chunks()).toBe(FILE_BYTES / CHUNK);
    expect(measured.peak(), `held ${(measured.peak() / MiB).toFixed(1)} MiB at once`).toBeLessThan(BOUND);
  });
});
