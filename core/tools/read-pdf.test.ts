import { describe, expect, test } from "vitest";
import { minimalPdf } from "../../conformance/pdf.ts";
import type { FsReadStream, FsVersion } from "../fs/types.ts";
import { loadUnpdf, parsePages, readPdf, sniffPdf } from "./read-pdf.ts";
import { ToolError } from "./types.ts";

// A stream handing out `size`-byte chunks through one reused buffer, as a provider may under reuseBuffer,
// recording whether it was closed and whether its iterator was finished early.
function fakeStream(bytes: Uint8Array, size: number, declared = bytes.length) {
  const state = { closed: 0, returned: 0, pulled: 0 };
  const buffer = new Uint8Array(size);
  const stream: FsReadStream = {
    info: { type: "file", size: declared, mtimeMs: 0, version: "v1" as FsVersion },
    close: async () => void state.closed++,
    [Symbol.asyncIterator]() {
      let offset = 0;
      return {
        async next() {
          if (offset >= bytes.length) return { done: true, value: undefined };
          const n = Math.min(size, bytes.length - offset);
          buffer.set(bytes.subarray(offset, offset + n));
          offset += n;
          state.pulled++;
          return { done: false, value: buffer.subarray(0, n) };
        },
        async return() {
          state.returned++;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { stream, state };
}

async function drain(chunks: AsyncIterable<Uint8Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of chunks) out.push(...chunk);
  return out;
}

describe("sniffPdf", () => {
  test("sees %PDF- across one-byte chunks from a reused buffer, and replays every byte in order", async () => {
    const bytes = minimalPdf(["x"]);
    const { stream } = fakeStream(bytes, 1);
    const { pdf, chunks } = await sniffPdf(stream);
    expect(pdf).toBe(true);
    expect(await drain(chunks)).toEqual([...bytes]);
  });

  test("text, a short file and an empty one are not PDFs and lose no byte", async () => {
    for (const text of ["hello %PDF-\n", "%PDF", "", "%pdf-1.4\n"]) {
      const bytes = new TextEncoder().encode(text);
      const { pdf, chunks } = await sniffPdf(fakeStream(bytes, 2).stream);
      expect(pdf, text).toBe(false);
      expect(await drain(chunks)).toEqual([...bytes]);
    }
  });

  test("a consumer that stops early finishes the underlying iterator", async () => {
    const { stream, state } = fakeStream(new Uint8Array(100).fill(0x61), 10);
    const { chunks } = await sniffPdf(stream);
    for await (const _ of chunks) break;
    expect(state.returned).toBe(1);
    expect(state.pulled).toBe(1);
  });
});

describe("parsePages", () => {
  test("a page, a range, a range to the end; nothing else", () => {
    expect(parsePages("3")).toEqual({ first: 3, last: 3 });
    expect(parsePages(" 2 - 5 ")).toEqual({ first: 2, last: 5 });
    expect(parsePages("4-")).toEqual({ first: 4, last: undefined });
    for (const bad of ["0", "0-2", "5-4", "-3", "1,2", "a", "1-2-3", "1.5"]) expect(parsePages(bad), bad).toBeUndefined();
  });
});

describe("readPdf", () => {
  const options = { shown: "doc.pdf", pages: undefined, maxChars: 1000, maxBytes: 1 << 20 };

  test("a loader that fails is TOOL_UNAVAILABLE naming the package, and the stream is closed", async () => {
    const { stream, state } = fakeStream(minimalPdf(["x"]), 64);
    const { chunks } = await sniffPdf(stream);
    const missing = Object.assign(new Error("Cannot find package 'unpdf' imported from /somewhere/dist/x.js"), { code: "ERR_MODULE_NOT_FOUND" });
    const error = await readPdf(stream, chunks, { ...options, load: () => Promise.reject(missing) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe("TOOL_UNAVAILABLE");
    expect((error as ToolError).details).toEqual({ path: "doc.pdf", package: "unpdf" });
    expect((error as ToolError).message).not.toContain("/somewhere");
    expect(state.closed).toBeGreaterThan(0);
  });

  test("a file that grows past the limit while it is read stops there: FS_TOO_LARGE, closed, nothing parsed", async () => {
    const bytes = minimalPdf(["x"]);
    const { stream, state } = fakeStream(bytes, 16, 100);
    const { chunks } = await sniffPdf(stream);
    let parsed = 0;
    const load = async () => ({
      getDocumentProxy: () => {
        parsed++;
        return Promise.reject(new Error("unreachable"));
      },
    });
    const error = await readPdf(stream, chunks, { ...options, maxBytes: 200, load }).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("FS_TOO_LARGE");
    expect(state.pulled).toBeLessThanOrEqual(Math.ceil(201 / 16));
    expect([parsed, state.closed > 0]).toEqual([0, true]);
  });

  test("the default loader is unpdf, and it reads the hand-written PDF", async () => {
    const { stream } = fakeStream(minimalPdf(["alpha", "beta"]), 4096);
    const { chunks } = await sniffPdf(stream);
    const result = await readPdf(stream, chunks, { ...options, pages: "2", load: loadUnpdf });
    expect(result.content).toBe("--- page 2 ---\nbeta\n\n(End of document: 2 pages.)");
  });
});
