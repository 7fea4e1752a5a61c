// The one place whole results are built: from a backend's streams, by collecting (so the two cannot differ).
// Every caller reaches a backend through streamPaths / streamMatches, which also say which backend ran.
import type {
  FilesRequest,
  FilesResult,
  GrepEvent,
  GrepFile,
  GrepLine,
  GrepRequest,
  GrepResult,
  ResultSink,
  SearchBackend,
  StreamOutcome,
  WholeResults,
  WholeSearchBackend,
} from "./backend.ts";

/** A stream's outcome, saying which backend ran. */
export type SearchOutcome = StreamOutcome & { readonly searchedBy: string };

/** Streams the paths of a files request. */
export async function streamPaths(backend: SearchBackend, request: FilesRequest, sink: ResultSink<string>): Promise<SearchOutcome> {
  return said(backend, await seam(backend).streamFiles(request, sink));
}

/** Streams the events of a grep request. */
export async function streamMatches(backend: SearchBackend, request: GrepRequest, sink: ResultSink<GrepEvent>): Promise<SearchOutcome> {
  return said(backend, await seam(backend).streamGrep(request, sink));
}

/** The whole result of a files request, collected from the backend's stream. */
export function searchFiles(backend: SearchBackend, request: FilesRequest): Promise<FilesResult> {
  return collectPaths((sink) => streamPaths(backend, { ...request, whole: true }, sink));
}

/** The whole result of a grep request, collected from the backend's stream. */
export function searchGrep(backend: SearchBackend, request: GrepRequest): Promise<GrepResult> {
  return collectMatches((sink) => streamMatches(backend, { ...request, whole: true }, sink));
}

/** `backend` with whole results as methods (`files`, `grep`), built by {@link searchFiles} and {@link searchGrep}. */
export function withWholeResults(backend: SearchBackend): WholeSearchBackend {
  return {
    get name() {
      return backend.name;
    },
    get readableGuard() {
      return backend.readableGuard;
    },
    streamFiles: (request, sink) => backend.streamFiles(request, sink),
    streamGrep: (request, sink) => backend.streamGrep(request, sink),
    files: (request) => searchFiles(backend, request),
    grep: (request) => searchGrep(backend, request),
  };
}

/** A backend written against the older seam, with whole results only. */
export type WholeResultBackend = Pick<SearchBackend, "name" | "readableGuard"> & WholeResults;

/**
 * The migration for a backend written against the older seam: its whole results, replayed into the sink.
 * It holds each result whole, so it keeps the memory bound only a streaming backend avoids.
 */
export function fromWholeResults(backend: WholeResultBackend): SearchBackend {
  return {
    get name() {
      return backend.name;
    },
    get readableGuard() {
      return backend.readableGuard;
    },
    async streamFiles(request, sink) {
      const result = await backend.files(request);
      return replay(result.paths, sink, result.problems);
    },
    async streamGrep(request, sink) {
      const result = await backend.grep(request);
      const outcome = await replay(grepEvents(result.files), sink, result.problems);
      return result.nothingSearched ? { ...outcome, nothingSearched: true } : outcome;
    },
  };
}

// A backend object from before the streams were the seam keeps working: it is replayed.
function seam(backend: SearchBackend): SearchBackend {
  if (typeof backend.streamFiles === "function" && typeof backend.streamGrep === "function") return backend;
  return fromWholeResults(backend as unknown as WholeResultBackend);
}

function said(backend: SearchBackend, outcome: StreamOutcome): SearchOutcome {
  return outcome.searchedBy ? (outcome as SearchOutcome) : { ...outcome, searchedBy: backend.name };
}

/** `sink` passing on only the items `keep` accepts; backpressure and "stop" pass through unchanged. */
export function filteredSink<T>(sink: ResultSink<T>, keep: (item: T) => boolean): ResultSink<T> {
  return {
    push: (item) => (keep(item) ? sink.push(item) : undefined),
    ...(sink.ready ? { ready: () => sink.ready!() } : {}),
  };
}

/** A whole files result from a stream of its paths. */
export async function collectPaths(stream: (sink: ResultSink<string>) => Promise<StreamOutcome>): Promise<FilesResult> {
  const paths: string[] = [];
  const { problems, searchedBy, fallback } = await stream({ push: (path) => void paths.push(path) });
  return { paths, problems, ...(searchedBy ? { searchedBy } : {}), ...(fallback ? { fallback } : {}) };
}

/** A whole grep result from a stream of its events. */
export async function collectMatches(stream: (sink: ResultSink<GrepEvent>) => Promise<StreamOutcome>): Promise<GrepResult> {
  const collector = new GrepCollector();
  const { problems, nothingSearched, searchedBy, fallback } = await stream(collector);
  return {
    files: collector.files,
    problems,
    ...(nothingSearched ? { nothingSearched } : {}),
    ...(searchedBy ? { searchedBy } : {}),
    ...(fallback ? { fallback } : {}),
  };
}

/** Groups grep events back into files: a file's lines up to its `end`. */
export class GrepCollector implements ResultSink<GrepEvent> {
  readonly files: GrepFile[] = [];
  #current: { path: string; lines: GrepLine[] } | undefined;

  push(event: GrepEvent): void {
    if (event.type === "line") {
      if (this.#current?.path !== event.path) {
        this.#close(undefined);
        this.#current = { path: event.path, lines: [] };
      }
      this.#current.lines.push(event.line);
    } else if (this.#current?.path === event.path) {
      this.#close(event.binaryOffset);
    }
  }

  #close(binaryOffset: number | undefined): void {
    const current = this.#current;
    if (current && current.lines.length > 0) {
      this.files.push(binaryOffset === undefined ? current : { ...current, binaryOffset });
    }
    this.#current = undefined;
  }
}

/** The events of whole grep files, in order. */
export function* grepEvents(files: readonly GrepFile[]): Generator<GrepEvent> {
  for (const file of files) {
    for (const line of file.lines) yield { type: "line", path: file.path, line };
    yield file.binaryOffset === undefined ? { type: "end", path: file.path } : { type: "end", path: file.path, binaryOffset: file.binaryOffset };
  }
}

// How many replayed items go to a sink between two checks of its backpressure.
const REPLAY_BATCH = 1024;

async function replay<T>(items: Iterable<T>, sink: ResultSink<T>, problems: readonly string[]): Promise<StreamOutcome> {
  let n = 0;
  for (const item of items) {
    if (sink.push(item) === "stop") return { problems, stopped: true };
    if (++n % REPLAY_BATCH === 0) await sink.ready?.();
  }
  return { problems, stopped: false };
}
