// The pure-TypeScript SearchBackend: ripgrep's results computed over any FileSystem.
import type { FileSystem } from "../../fs/mod.ts";
import type { SearchScope, StreamOutcome, WholeSearchBackend } from "../backend.ts";
import { withWholeResults } from "../stream.ts";
import { Budget, SinkStopped } from "./budget.ts";
import { listFiles } from "./files.ts";
import { searchTree } from "./grep.ts";
import { checkTypes } from "./types.ts";

/**
 * A search backend that walks `fs` itself and reproduces what ripgrep 15 prints for the same request, with
 * linear-time regex matching. docs/notes/0003-search-engine.md lists the few ripgrep behaviours it refuses
 * instead of reproducing.
 */
export function createEngineBackend(fs: FileSystem): WholeSearchBackend {
  return withWholeResults({
    name: "engine",
    readableGuard: "pinned",
    streamFiles: (request, sink) => run(request, (budget, problems) => listFiles(fs, request, budget, problems, sink).then(() => ({}))),
    streamGrep: (request, sink) => run(request, (budget, problems) => searchTree(fs, request, budget, problems, sink)),
  });
}

async function run(scope: SearchScope, work: (budget: Budget, problems: string[]) => Promise<{ nothingSearched?: true }>): Promise<StreamOutcome> {
  // A whole result is held in memory, so the default output cap applies to it.
  const budget = new Budget(scope, scope.whole === true);
  const problems: string[] = [];
  try {
    // ripgrep refuses an unknown type before it reads any glob or pattern.
    checkTypes(scope.types);
    const { nothingSearched } = await work(budget, problems);
    return { problems, stopped: false, searchedBy: "engine", ...(nothingSearched ? { nothingSearched } : {}) };
  } catch (error) {
    if (error instanceof SinkStopped) return { problems, stopped: true, searchedBy: "engine" };
    // A provider call cut short by the signal fails with its own code; report it as the search's.
    if (scope.signal?.aborted) budget.check();
    throw error;
  }
}
