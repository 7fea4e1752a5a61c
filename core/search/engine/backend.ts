// The pure-TypeScript SearchBackend: ripgrep's results computed over any FileSystem.
import type { FileSystem } from "../../fs/mod.ts";
import type { FilesRequest, FilesResult, GrepRequest, GrepResult, SearchBackend, SearchScope } from "../backend.ts";
import { Budget } from "./budget.ts";
import { listFiles } from "./files.ts";
import { searchTree } from "./grep.ts";

/**
 * A search backend that walks `fs` itself and reproduces what ripgrep 15 prints for the same request, with
 * linear-time regex matching. docs/notes/0003-search-engine.md lists the few ripgrep behaviours it refuses
 * instead of reproducing.
 */
export function createEngineBackend(fs: FileSystem): SearchBackend {
  return {
    name: "engine",
    files: (request: FilesRequest): Promise<FilesResult> => run(request, (budget) => listFiles(fs, request, budget)),
    grep: (request: GrepRequest): Promise<GrepResult> => run(request, (budget) => searchTree(fs, request, budget)),
  };
}

async function run<T>(scope: SearchScope, work: (budget: Budget) => Promise<T>): Promise<T> {
  const budget = new Budget(scope);
  try {
    return await work(budget);
  } catch (error) {
    // A provider call cut short by the signal fails with its own code; report it as the search's.
    if (scope.signal?.aborted) budget.check();
    throw error;
  }
}
