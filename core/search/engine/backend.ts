// The pure-TypeScript SearchBackend: ripgrep's results computed over any FileSystem.
import type { FileSystem } from "../../fs/mod.ts";
import type { FilesRequest, GrepEvent, GrepRequest, ResultSink, SearchBackend, SearchScope, StreamOutcome } from "../backend.ts";
import { collectMatches, collectPaths } from "../stream.ts";
import { Budget, SinkStopped } from "./budget.ts";
import { listFiles } from "./files.ts";
import { searchTree } from "./grep.ts";

/**
 * A search backend that walks `fs` itself and reproduces what ripgrep 15 prints for the same request, with
 * linear-time regex matching. docs/notes/0003-search-engine.md lists the few ripgrep behaviours it refuses
 * instead of reproducing.
 */
export function createEngineBackend(fs: FileSystem): SearchBackend {
  // `whole`: the caller holds the entire result, so the default output cap applies.
  const streamFiles = (request: FilesRequest, sink: ResultSink<string>, whole: boolean) =>
    run(request, whole, (budget, problems) => listFiles(fs, request, budget, problems, sink).then(() => ({})));
  const streamGrep = (request: GrepRequest, sink: ResultSink<GrepEvent>, whole: boolean) =>
    run(request, whole, (budget, problems) => searchTree(fs, request, budget, problems, sink));
  return {
    name: "engine",
    readableGuard: "pinned",
    files: (request) => collectPaths((sink) => streamFiles(request, sink, true)),
    grep: (request) => collectMatches((sink) => streamGrep(request, sink, true)),
    streamFiles: (request, sink) => streamFiles(request, sink, false),
    streamGrep: (request, sink) => streamGrep(request, sink, false),
  };
}

async function run(
  scope: SearchScope,
  whole: boolean,
  work: (budget: Budget, problems: string[]) => Promise<{ nothingSearched?: true }>,
): Promise<StreamOutcome> {
  const budget = new Budget(scope, whole);
  const problems: string[] = [];
  try {
    const { nothingSearched } = await work(budget, problems);
    return nothingSearched ? { problems, stopped: false, nothingSearched } : { problems, stopped: false };
  } catch (error) {
    if (error instanceof SinkStopped) return { problems, stopped: true };
    // A provider call cut short by the signal fails with its own code; report it as the search's.
    if (scope.signal?.aborted) budget.check();
    throw error;
  }
}
