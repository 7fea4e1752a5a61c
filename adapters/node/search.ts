import { createRipgrepBackend, type RipgrepBackendOptions, type SearchBackend } from "../../core/mod.ts";
import { createNodeProcessRunner } from "./process.ts";

/** {@link RipgrepBackendOptions}, each with a default: a Node process runner and the packaged ripgrep. */
export type NodeSearchBackendOptions = Partial<RipgrepBackendOptions>;

/**
 * A SearchBackend that runs ripgrep from `@vscode/ripgrep`. Creating it starts nothing; a missing ripgrep
 * fails each search `SEARCH_FAILED` with the reason.
 */
export function createNodeSearchBackend(options?: NodeSearchBackendOptions): SearchBackend {
  return createRipgrepBackend({ ripgrep: packagedRipgrep, ...options, runner: options?.runner ?? createNodeProcessRunner() });
}

// Imported on first use: the package throws at import time when its platform binary was not installed.
async function packagedRipgrep(): Promise<string> {
  const { rgPath } = await import("@vscode/ripgrep");
  return rgPath;
}
