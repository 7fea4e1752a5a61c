// Reading ripgrep's output as it arrives: the lines of `rg --files`, and the events of `rg --json` (one
// `begin`, its `match`es and one `end` per file, then a `summary`), turned into the seam's items.
import type { OutputSink } from "../process/types.ts";
import type { GrepEvent, GrepFile, SearchData } from "./backend.ts";
import { SearchError } from "./errors.ts";
import { GrepCollector } from "./stream.ts";

/** The paths of `rg --files` output, one a line. */
export function parseFilesOutput(stdout: string): string[] {
  const lines = stdout.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export interface ParsedGrep {
  readonly files: GrepFile[];
  /** Files ripgrep searched, from its summary (0 when it printed none). */
  readonly searches: number;
}

/** Reads `rg --json` output: one `begin`, its `match`es and one `end` per file, then a `summary`. */
export function parseGrepJson(stdout: string): ParsedGrep {
  const collector = new GrepCollector();
  const parser = new GrepJsonParser((event) => collector.push(event));
  for (const line of stdout.split("\n")) parser.line(line);
  return { files: collector.files, searches: parser.finish().searches };
}

/**
 * {@link parseGrepJson} one line at a time, as the output arrives: each matching line becomes a `line` event
 * and the end of a file that had any an `end` event. What the handler returns (`"stop"`) is passed back.
 */
export class GrepJsonParser {
  readonly #emit: (event: GrepEvent) => "stop" | void;
  #searches = 0;
  #index = -1;
  // The file whose lines are being read, and whether any was emitted.
  #current: { path: string; matched: boolean } | undefined;

  constructor(emit: (event: GrepEvent) => "stop" | void) {
    this.#emit = emit;
  }

  line(line: string): "stop" | void {
    this.#index++;
    if (line === "") return;
    // The most common line after a match: the end of a file with no binary offset. It carries nothing else
    // needed, so it is not worth parsing its statistics.
    if (line.startsWith('{"type":"end"') && line.includes('"binary_offset":null')) {
      return this.#close(null);
    }
    const index = this.#index;
    let message: RgMessage;
    try {
      message = JSON.parse(line) as RgMessage;
    } catch (error) {
      throw malformed(index, error);
    }
    const data = message.data ?? {};
    switch (message.type) {
      case "begin": {
        const stop = this.#close(null);
        this.#current = { path: pathOf(data.path, index), matched: false };
        return stop;
      }
      case "match":
      case "context": {
        const path = pathOf(data.path, index);
        if (this.#current?.path !== path) {
          if (this.#close(null) === "stop") return "stop";
          this.#current = { path, matched: false };
        }
        this.#current.matched = true;
        return this.#emit({
          type: "line",
          path,
          line: {
            line: searchData(data.lines, index),
            lineNumber: numberOf(data.line_number, index),
            absoluteOffset: numberOf(data.absolute_offset, index),
            submatches: (data.submatches ?? []).map((sub) => ({
              match: searchData(sub.match, index),
              start: numberOf(sub.start, index),
              end: numberOf(sub.end, index),
            })),
            ...(message.type === "context" ? { context: true as const } : {}),
          },
        });
      }
      case "end":
        if (this.#current?.path === pathOf(data.path, index)) return this.#close(data.binary_offset);
        return;
      case "summary":
        this.#searches = typeof data.stats?.searches === "number" ? data.stats.searches : 0;
        return;
      default:
        // Message types a later ripgrep may add.
        return;
    }
  }

  /** Ends the last file; returns the files ripgrep searched, from its summary (0 when it printed none). */
  finish(): { readonly searches: number } {
    this.#close(null);
    return { searches: this.#searches };
  }

  #close(binaryOffset: unknown): "stop" | void {
    const current = this.#current;
    this.#current = undefined;
    if (!current?.matched) return;
    return this.#emit(typeof binaryOffset === "number" ? { type: "end", path: current.path, binaryOffset } : { type: "end", path: current.path });
  }
}

/**
 * Splits output into lines as it arrives and counts its bytes. Past `maxBytes`, or when a line's handler says
 * `"stop"`, it asks the runner to stop the process and handles nothing more. After each chunk it waits for
 * `ready`, so a consumer that falls behind holds ripgrep back (its pipe fills) instead of piling up output.
 */
export class LineSink implements OutputSink {
  // A U+FEFF at the start of the output is the first character of a path, not a byte-order mark.
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  readonly #max: number;
  readonly #onLine: (line: string) => "stop" | void;
  readonly #ready: (() => Promise<void> | undefined) | undefined;
  #rest = "";
  #total = 0;
  #stopped = false;

  constructor(maxBytes: number, onLine: (line: string) => "stop" | void, ready: (() => Promise<void> | undefined) | undefined) {
    this.#max = maxBytes;
    this.#onLine = onLine;
    this.#ready = ready;
  }

  get overflowed(): boolean {
    return this.#total > this.#max;
  }

  /** Nothing was written. */
  get empty(): boolean {
    return this.#total === 0;
  }

  /** A line's handler said `"stop"`. */
  get stopped(): boolean {
    return this.#stopped;
  }

  write(chunk: Uint8Array): "stop" | void | Promise<void> {
    if (this.#stopped) return "stop";
    this.#total += chunk.length;
    if (this.overflowed) return "stop";
    const text = this.#rest + this.#decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      if (this.#onLine(text.slice(start, nl)) === "stop") {
        this.#stopped = true;
        this.#rest = "";
        return "stop";
      }
      start = nl + 1;
    }
    this.#rest = text.slice(start);
    return this.#ready?.();
  }

  /** Handles a last line without a newline. */
  end(): void {
    const last = this.#rest + this.#decoder.decode();
    this.#rest = "";
    if (last !== "" && !this.overflowed && !this.#stopped && this.#onLine(last) === "stop") this.#stopped = true;
  }
}

interface RgData {
  readonly text?: unknown;
  readonly bytes?: unknown;
}

interface RgMessage {
  readonly type?: unknown;
  readonly data?: {
    readonly path?: RgData;
    readonly lines?: RgData;
    readonly line_number?: unknown;
    readonly absolute_offset?: unknown;
    readonly submatches?: readonly { readonly match?: RgData; readonly start?: unknown; readonly end?: unknown }[];
    readonly binary_offset?: unknown;
    readonly stats?: { readonly searches?: unknown };
  };
}

function searchData(data: RgData | undefined, index: number): SearchData {
  if (typeof data?.text === "string") return { text: data.text };
  if (typeof data?.bytes === "string") {
    try {
      return { bytes: Uint8Array.from(atob(data.bytes), (char) => char.charCodeAt(0)) };
    } catch (error) {
      throw malformed(index, error);
    }
  }
  throw malformed(index, "a text field is neither text nor bytes");
}

const lenient = new TextDecoder();

/** Paths are strings in results; one that is not UTF-8 keeps its valid parts and U+FFFD for the rest. */
function pathOf(data: RgData | undefined, index: number): string {
  const value = searchData(data, index);
  return "text" in value ? value.text : lenient.decode(value.bytes);
}

function numberOf(value: unknown, index: number): number {
  if (typeof value !== "number") throw malformed(index, "a number is missing");
  return value;
}

function malformed(index: number, cause: unknown): SearchError {
  return new SearchError("SEARCH_FAILED", `Search failed: ripgrep's output could not be read (line ${index + 1}: ${messageOf(cause)}).`, { cause });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
