// Streamed and whole results of the search seam, each built from the other: a backend that streams gets its
// whole results by collecting (one code path, so the two cannot differ), and a backend that only returns
// whole results is streamed by replaying them.
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
} from "./backend.ts";

/** Streams the paths of a files request: natively when the backend can, else by replaying its whole result. */
export async function streamPaths(backend: SearchBackend, request: FilesRequest, sink: ResultSink<string>): Promise<StreamOutcome> {
  if (backend.streamFiles) return backend.streamFiles(request, sink);
  const result = await backend.files(request);
  return replay(result.paths, sink, result.problems);
}

/** Streams the events of a grep request: natively when the backend can, else by replaying its whole result. */
export async function streamMatches(backend: SearchBackend, request: GrepRequest, sink: ResultSink<GrepEvent>): Promise<StreamOutcome> {
  if (backend.streamGrep) return backend.streamGrep(request, sink);
  const result = await backend.grep(request);
  const outcome = await replay(grepEvents(result.files), sink, result.problems);
  return result.nothingSearched ? { ...outcome, nothingSearched: true } : outcome;
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
  const { problems } = await stream({ push: (path) => void paths.push(path) });
  return { paths, problems };
}

/** A whole grep result from a stream of its events. */
export async function collectMatches(stream: (sink: ResultSink<GrepEvent>) => Promise<StreamOutcome>): Promise<GrepResult> {
  const collector = new GrepCollector();
  const { problems, nothingSearched } = await stream(collector);
  return nothingSearched ? { files: collector.files, problems, nothingSearched } : { files: collector.files, problems };
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
