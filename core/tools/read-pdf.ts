// read of a PDF: its text per page through the optional package unpdf (pdf.js built to run without a worker,
// on Node and Deno alike), in a character budget like a text window. See docs/notes/0025-read-pdf.md.
import { FsError } from "../fs/errors.ts";
import type { FsReadStream } from "../fs/types.ts";
import { concatBytes } from "../text/utf8.ts";
import { peekStream } from "./peek.ts";
import { ToolError } from "./types.ts";

/** The part of unpdf read uses; a host or a test may hand its own loader to the toolkit (ToolkitOptions.pdf). */
export interface PdfLibrary {
  getDocumentProxy(data: Uint8Array, options?: { readonly verbosity?: number; readonly isEvalSupported?: boolean }): Promise<PdfDocument>;
}

export interface PdfDocument {
  readonly numPages: number;
  getPage(page: number): Promise<{ getTextContent(): Promise<{ readonly items: readonly PdfTextItem[] }> }>;
  /** Destroying it frees the document's memory in pdf.js. */
  readonly loadingTask: { destroy(): Promise<void> };
}

export type PdfTextItem = { readonly str: string; readonly hasEOL?: boolean } | { readonly type: string };

/** Loads the PDF library; rejects when it is not installed. */
export type PdfLoader = () => Promise<PdfLibrary>;

/** The package PDF reading needs, named in the refusal when it is missing. */
export const PDF_PACKAGE = "unpdf";

// A dynamic import keeps unpdf optional: a toolkit that never reads a PDF never loads it.
export const loadUnpdf: PdfLoader = () => import("unpdf");

const MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/**
 * Looks at a stream's first bytes: whether it is a PDF, and the same chunks again (the first ones replayed, then
 * the rest), so a text window reads the file from its start whatever was looked at.
 */
export async function sniffPdf(stream: FsReadStream): Promise<{ readonly pdf: boolean; readonly chunks: AsyncIterable<Uint8Array> }> {
  const { head, chunks } = await peekStream(stream, MAGIC.length);
  return { pdf: isPdf(head), chunks };
}

/** Whether a file's first bytes are a PDF's. */
export function isPdf(head: Uint8Array): boolean {
  return head.length >= MAGIC.length && MAGIC.every((byte, i) => head[i] === byte);
}

/** What read answers for a PDF (a ToolOutput; not imported, as tool.ts imports this module's types). */
export interface PdfOutput {
  readonly content: string;
  readonly meta: Record<string, unknown>;
}

export interface PdfReadOptions {
  readonly shown: string;
  readonly pages: string | undefined;
  /** Characters of page text shown in one call. */
  readonly maxChars: number;
  /** Largest PDF loaded (pdf.js parses a whole file in memory). */
  readonly maxBytes: number;
  readonly load: PdfLoader;
}

/** Parses "3", "2-5" or "4-" (to the end); undefined when it is none of these. */
export function parsePages(pages: string): { readonly first: number; readonly last: number | undefined } | undefined {
  const match = /^\s*(\d+)\s*(?:(-)\s*(\d+)?)?\s*$/.exec(pages);
  if (!match) return undefined;
  const first = Number(match[1]);
  const last = match[3] !== undefined ? Number(match[3]) : match[2] ? undefined : first;
  if (first < 1 || (last !== undefined && last < first)) return undefined;
  return { first, last };
}

/** Reads the PDF in `chunks` (the file's whole bytes, from sniffPdf) and renders the pages asked for. */
export async function readPdf(stream: FsReadStream, chunks: AsyncIterable<Uint8Array>, options: PdfReadOptions): Promise<PdfOutput> {
  const { shown, maxBytes } = options;
  const range = options.pages === undefined ? { first: 1, last: undefined } : parsePages(options.pages);
  if (!range) throw new ToolError("TOOL_INVALID_ARGUMENTS", `pages must be a page number or a range such as "2-5", not ${JSON.stringify(options.pages)}`);
  const tooLarge = (size: number) =>
    new FsError("FS_TOO_LARGE", `Cannot read "${shown}": the PDF has ${size} bytes and read loads at most ${maxBytes}`, {
      details: { path: shown, size, maxBytes },
    });
  if (stream.info.size > maxBytes) {
    await stream.close();
    throw tooLarge(stream.info.size);
  }
  let library: PdfLibrary;
  try {
    library = await options.load();
  } catch (error) {
    await stream.close();
    // The module loader's message names where the library itself is installed: the model needs none of it.
    const message = error instanceof Error ? error.message : String(error);
    const absent = (error as { code?: unknown } | undefined)?.code === "ERR_MODULE_NOT_FOUND" || /(cannot|could not) find (package|module)/i.test(message);
    throw new ToolError(
      "TOOL_UNAVAILABLE",
      `Cannot read "${shown}": reading PDFs needs the optional package ${PDF_PACKAGE}, which ${absent ? "is not installed" : `did not load (${message})`}. Tell the user to install it: npm install ${PDF_PACKAGE}`,
      { cause: error, details: { path: shown, package: PDF_PACKAGE } },
    );
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of chunks) {
      size += chunk.length;
      // The file grew after it was opened: stop before holding more than the limit.
      if (size > maxBytes) throw tooLarge(size);
      parts.push(chunk.slice());
    }
  } finally {
    await stream.close();
  }
  let pdf: PdfDocument;
  try {
    // No verbosity: pdf.js would print warnings on the host's console. No eval: fonts are not compiled to code.
    pdf = await library.getDocumentProxy(concatBytes(parts), { verbosity: 0, isEvalSupported: false });
  } catch (error) {
    throw unreadable(shown, error);
  }
  try {
    return await render(pdf, range, options);
  } catch (error) {
    if (error instanceof FsError || error instanceof ToolError) throw error;
    throw unreadable(shown, error);
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}

function unreadable(shown: string, error: unknown): FsError {
  const name = error instanceof Error ? error.name : "";
  const encrypted = name === "PasswordException";
  const what = encrypted
    ? "the PDF is encrypted (it needs a password)"
    : `the PDF cannot be parsed (${error instanceof Error ? error.message : String(error)})`;
  return new FsError("FS_NOT_TEXT", `Cannot read "${shown}": ${what}`, {
    cause: error,
    details: { path: shown, reason: encrypted ? "pdf-encrypted" : "pdf-unreadable" },
  });
}

async function render(pdf: PdfDocument, range: { first: number; last: number | undefined }, options: PdfReadOptions): Promise<PdfOutput> {
  const { shown, maxChars } = options;
  const total = pdf.numPages;
  if (range.first > total) {
    throw new FsError("FS_NOT_FOUND", `Cannot read "${shown}" from page ${range.first}: it has ${pages(total)}; use pages from 1 to ${total}`, {
      details: { path: shown, totalPages: total },
    });
  }
  const last = Math.min(range.last ?? total, total);
  const blocks: string[] = [];
  let used = 0;
  let shownLast = range.first - 1;
  let cut: { readonly page: number; readonly chars: number } | undefined;
  for (let page = range.first; page <= last; page++) {
    const text = pageText((await (await pdf.getPage(page)).getTextContent()).items);
    const header = `--- page ${page} ---\n`;
    const body = text === "" ? "(no text on this page: it may be a scanned image)" : text;
    const cost = header.length + body.length + (blocks.length > 0 ? 2 : 0);
    if (used + cost > maxChars) {
      // A page that alone passes the budget is cut; otherwise it waits for the next call.
      if (blocks.length === 0) {
        const kept = Math.max(0, maxChars - header.length);
        blocks.push(`${header}${body.slice(0, kept)} … [page ${page} cut at ${kept} of ${body.length} characters]`);
        cut = { page, chars: kept };
        shownLast = page;
      }
      break;
    }
    blocks.push(header + body);
    used += cost;
    shownLast = page;
  }
  const capped = shownLast < last;
  const next = capped ? (shownLast + 1 === last ? `${last}` : `${shownLast + 1}-${last}`) : undefined;
  const span = range.first === shownLast ? `page ${shownLast}` : `pages ${range.first}-${shownLast}`;
  let footer: string;
  if (cut) {
    footer = `(Output capped at the character limit: page ${cut.page} cut at ${cut.chars} characters; read cannot show the rest of that page.${next ? ` Continue with pages="${next}".` : ""})`;
  } else if (capped) footer = `(Output capped at the character limit: ${span} of ${total} shown. Continue with pages="${next}".)`;
  else if (shownLast < total)
    footer = `(${span[0]!.toUpperCase()}${span.slice(1)} of ${total}. Continue with pages="${shownLast + 1 === total ? total : `${shownLast + 1}-${total}`}".)`;
  else footer = `(End of document: ${pages(total)}.)`;
  return {
    content: `${blocks.join("\n\n")}\n\n${footer}`,
    meta: {
      path: shown,
      format: "pdf",
      firstPage: range.first,
      lastPage: shownLast,
      totalPages: total,
      truncated: capped || cut !== undefined || shownLast < total,
    },
  };
}

function pageText(items: readonly PdfTextItem[]): string {
  let text = "";
  for (const item of items) if ("str" in item) text += item.str + (item.hasEOL ? "\n" : "");
  return text.trimEnd();
}

function pages(count: number): string {
  return `${count} page${count === 1 ? "" : "s"}`;
}
