// read's views of what is not plain text: an image file as an image part, a Jupyter notebook as numbered
// cells (docs/notes/0024-read-media.md). Both load the file whole, under a byte bound checked before reading.
import { FsError } from "../fs/errors.ts";
import type { FsReadStream } from "../fs/types.ts";
import { fromBase64, type ImageInfo, imageInfo, toBase64 } from "../media/image.ts";
import { concatBytes } from "../text/utf8.ts";
import type { ToolLimits, ToolOutput } from "./tool.ts";
import type { ContentPart } from "./types.ts";

/** Every byte of the stream, refusing (FS_TOO_LARGE) past `limit`, before reading when the size says so. */
async function readAll(stream: FsReadStream, chunks: AsyncIterable<Uint8Array>, limit: number, tooLarge: (size: number) => FsError): Promise<Uint8Array> {
  if (stream.info.size > limit) throw tooLarge(stream.info.size);
  const kept: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.length;
    if (size > limit) throw tooLarge(size);
    kept.push(chunk.slice());
  }
  return concatBytes(kept);
}

type ImageLimits = Pick<ToolLimits, "imageBytes" | "imageMaxSide" | "imagePixels">;

/** Why an image of this size may not be sent, or undefined when it may. */
function overBound(info: ImageInfo, bytes: number, limits: ImageLimits): { reason: string; words: string } | undefined {
  if (bytes > limits.imageBytes) return { reason: "image-bytes", words: `${bytes} bytes, over the ${limits.imageBytes}-byte limit for images` };
  const side = Math.max(info.width, info.height);
  if (side > limits.imageMaxSide)
    return { reason: "image-side", words: `${info.width}x${info.height} pixels, over the ${limits.imageMaxSide}-pixel limit on a side` };
  if (info.width * info.height > limits.imagePixels) {
    return { reason: "image-pixels", words: `${info.width}x${info.height} pixels (${info.width * info.height}), over the ${limits.imagePixels}-pixel limit` };
  }
  return undefined;
}

/**
 * An image file as an image part and a line of words; FS_TOO_LARGE over a bound. Bytes that start like an
 * image but are not a well-formed one are handed back, with the rest of the stream, for the text window to
 * show or refuse as any other file (a text that begins "GIF89a" stays text; a cut PNG is a binary file).
 */
export async function readImage(
  stream: FsReadStream,
  chunks: AsyncIterable<Uint8Array>,
  shown: string,
  kind: string,
  limits: ImageLimits,
): Promise<ToolOutput | { readonly notImage: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const kept: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  // At most the byte bound and one chunk is read before a decision, whatever the file's size.
  while (size <= limits.imageBytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    kept.push(next.value.slice());
    size += next.value.length;
  }
  const bytes = concatBytes(kept);
  const info = imageInfo(bytes);
  if (!info) {
    async function* rest(): AsyncGenerator<Uint8Array> {
      yield bytes;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    }
    return { notImage: rest() };
  }
  const total = ended ? bytes.length : Math.max(stream.info.size, bytes.length);
  const over = overBound(info, total, limits);
  if (over) {
    throw new FsError("FS_TOO_LARGE", `Cannot read "${shown}": it is a ${kind} image of ${over.words} (read does not resize images)`, {
      details: { path: shown, reason: over.reason, width: info.width, height: info.height, size: total, ...(ended ? {} : { atLeast: true }) },
    });
  }
  const words = `${info.kind} image, ${info.width}x${info.height} pixels, ${bytes.length} bytes`;
  return {
    content: `${shown}: ${words}.`,
    parts: [{ type: "image", data: toBase64(bytes), mediaType: info.mediaType, alt: `${shown}: ${words}` }],
    meta: { path: shown, image: { mediaType: info.mediaType, width: info.width, height: info.height, bytes: bytes.length } },
  };
}

/** Whether read treats this path as a Jupyter notebook (then the JSON must look like one). */
export function isNotebookPath(path: string): boolean {
  return /\.ipynb$/i.test(path);
}

// Lines kept of each text output; the rest is counted.
const OUTPUT_LINES = 20;

interface NotebookOptions {
  readonly offset: number;
  readonly limit: number;
  readonly limits: Pick<ToolLimits, "imageBytes" | "imageMaxSide" | "imagePixels" | "notebookBytes" | "readBytes" | "readLineChars">;
}

interface Cell {
  readonly type: string;
  readonly source: string;
  readonly execution?: number | undefined;
  readonly outputs: readonly unknown[];
}

/** A notebook as numbered cells with bounded outputs; `offset` and `limit` count cells. */
export async function readNotebook(stream: FsReadStream, chunks: AsyncIterable<Uint8Array>, shown: string, options: NotebookOptions): Promise<ToolOutput> {
  const { limits, offset, limit } = options;
  const bytes = await readAll(stream, chunks, limits.notebookBytes, (size) => {
    return new FsError("FS_TOO_LARGE", `Cannot read "${shown}": the notebook is ${size} bytes, over the ${limits.notebookBytes}-byte limit for notebooks`, {
      details: { path: shown, reason: "notebook-bytes", size, limit: limits.notebookBytes },
    });
  });
  const cells = parseNotebook(bytes, shown);
  if (offset > cells.length && !(cells.length === 0 && offset === 1)) {
    throw new FsError("FS_NOT_FOUND", `Cannot read "${shown}" from cell ${offset}: it has ${cells.length} cell${cells.length === 1 ? "" : "s"}`, {
      details: { path: shown, totalCells: cells.length },
    });
  }
  const blocks: string[] = [];
  const parts: ContentPart[] = [];
  let used = 0;
  let imageBudget = limits.imageBytes;
  let last = offset - 1;
  let capped = false;
  for (let n = offset; n <= Math.min(cells.length, offset + limit - 1); n++) {
    const cell = cells[n - 1] as Cell;
    const cellParts: ContentPart[] = [];
    const lines = [
      `[${n}] ${cell.type}${cell.execution !== undefined ? ` (execution ${cell.execution})` : ""}`,
      ...cut(cell.source.split(/\r?\n/), limits.readLineChars),
    ];
    for (const output of cell.outputs) {
      const shownOutput = renderOutput(output, n, limits, imageBudget);
      lines.push(...shownOutput.lines);
      if (shownOutput.image) {
        imageBudget -= shownOutput.image.bytes;
        cellParts.push(shownOutput.image.part);
      }
    }
    let block = lines.join("\n");
    const size = new TextEncoder().encode(block).length + 2;
    if (used + size > limits.readBytes) {
      if (blocks.length > 0) {
        capped = true;
        break;
      }
      block = `${block.slice(0, limits.readBytes)} … [cell cut at ${limits.readBytes} bytes]`;
    }
    used += size;
    blocks.push(block);
    parts.push(...cellParts);
    last = n;
  }
  let footer: string;
  if (cells.length === 0) footer = `(${shown} has no cells)`;
  else if (last < cells.length) {
    footer = `(${capped ? "Output capped at the byte limit: cells" : "Cells"} ${offset}-${last} of ${cells.length}. Continue with offset=${last + 1}.)`;
  } else footer = `(End of notebook: ${cells.length} cell${cells.length === 1 ? "" : "s"}.)`;
  return {
    content: [...blocks, footer].join("\n\n"),
    ...(parts.length > 0 ? { parts } : {}),
    meta: { path: shown, notebook: true, offset, cells: last - offset + 1, totalCells: cells.length, truncated: last < cells.length, images: parts.length },
  };
}

function cut(lines: readonly string[], maxChars: number): string[] {
  return lines.map((line) => (line.length > maxChars ? `${line.slice(0, maxChars)} … [cut at ${maxChars} characters]` : line));
}

const joined = (value: unknown): string | undefined =>
  typeof value === "string" ? value : Array.isArray(value) && value.every((v) => typeof v === "string") ? value.join("") : undefined;

function invalid(shown: string, problem: string): FsError {
  return new FsError("FS_NOT_TEXT", `Cannot read "${shown}": it is not a valid Jupyter notebook (${problem})`, {
    details: { path: shown, reason: "notebook", problem },
  });
}

// nbformat 4: { cells: [{ cell_type, source: string | string[], outputs?, execution_count? }] }.
function parseNotebook(bytes: Uint8Array, shown: string): Cell[] {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    throw invalid(shown, error instanceof SyntaxError ? "not JSON" : "not UTF-8");
  }
  const cells = (json as { cells?: unknown } | null)?.cells;
  if (typeof json !== "object" || json === null || Array.isArray(json) || !Array.isArray(cells)) throw invalid(shown, "no cells list (nbformat 4)");
  return cells.map((cell: unknown, i) => {
    const c = cell as { cell_type?: unknown; source?: unknown; outputs?: unknown; execution_count?: unknown } | null;
    const source = joined(c?.source);
    if (typeof c !== "object" || c === null || typeof c.cell_type !== "string" || source === undefined) {
      throw invalid(shown, `cell ${i + 1} has no cell_type or source`);
    }
    return {
      type: c.cell_type,
      source,
      execution: typeof c.execution_count === "number" ? c.execution_count : undefined,
      outputs: Array.isArray(c.outputs) ? c.outputs : [],
    };
  });
}

interface ShownOutput {
  readonly lines: string[];
  readonly image?: { readonly part: ContentPart; readonly bytes: number };
}

function renderOutput(output: unknown, n: number, limits: NotebookOptions["limits"], imageBudget: number): ShownOutput {
  const o = (typeof output === "object" && output !== null ? output : {}) as Record<string, unknown>;
  if (o.output_type === "error") {
    return { lines: [`[${n}] error: ${String(o.ename ?? "Error")}: ${String(o.evalue ?? "")}`] };
  }
  const data = (typeof o.data === "object" && o.data !== null ? o.data : {}) as Record<string, unknown>;
  for (const mediaType of ["image/png", "image/jpeg"]) {
    const encoded = joined(data[mediaType]);
    if (encoded === undefined) continue;
    return imageOutput(encoded, mediaType, n, limits, imageBudget);
  }
  const text = o.output_type === "stream" ? joined(o.text) : joined(data["text/plain"]);
  if (text === undefined) {
    const kinds = Object.keys(data);
    return { lines: [`[${n}] output: ${kinds.length > 0 ? kinds.join(", ") : String(o.output_type ?? "unknown")} (not shown)`] };
  }
  const lines = text.replace(/\n$/, "").split(/\r?\n/);
  const kept = cut(lines.slice(0, OUTPUT_LINES), limits.readLineChars);
  const label = o.output_type === "stream" && o.name === "stderr" ? "stderr" : "output";
  return {
    lines: [
      `[${n}] ${label}:`,
      ...kept,
      ...(lines.length > OUTPUT_LINES ? [`… [output cut: ${lines.length - OUTPUT_LINES} more lines of ${lines.length}]`] : []),
    ],
  };
}

function imageOutput(encoded: string, mediaType: string, n: number, limits: NotebookOptions["limits"], budget: number): ShownOutput {
  const bytes = fromBase64(encoded);
  const info = bytes ? imageInfo(bytes) : undefined;
  if (!bytes || !info || info.mediaType !== mediaType) return { lines: [`[${n}] ${mediaType} output: not a valid image (not shown)`] };
  const over = overBound(info, bytes.length, limits);
  if (over) return { lines: [`[${n}] ${mediaType} output: ${over.words} (not shown; read does not resize images)`] };
  if (bytes.length > budget) {
    return {
      lines: [
        `[${n}] ${mediaType} output: ${bytes.length} bytes, over what is left of this call's ${limits.imageBytes}-byte image budget (not shown; read from offset=${n})`,
      ],
    };
  }
  const words = `${info.kind} image, ${info.width}x${info.height} pixels, ${bytes.length} bytes`;
  return {
    lines: [`[${n}] ${mediaType} output: ${words} (an image part)`],
    image: { part: { type: "image", data: toBase64(bytes), mediaType, alt: `cell ${n} output: ${words}` }, bytes: bytes.length },
  };
}
