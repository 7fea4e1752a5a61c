import { createRipgrepBackend, type RipgrepBackendOptions, type SearchBackend } from "../../core/mod.ts";
import { createDenoProcessRunner } from "./process.ts";

/** {@link RipgrepBackendOptions}, each with a default: a Deno process runner and the packaged ripgrep. */
export type DenoSearchBackendOptions = Partial<RipgrepBackendOptions>;

/**
 * A SearchBackend that runs ripgrep from `@vscode/ripgrep` (npm). Loading that package needs
 * `--allow-env=npm_config_arch` and read access to node_modules; running it, `--allow-run=<its rgPath>`. Creating
 * the backend starts nothing; a missing ripgrep or permission fails each search `SEARCH_FAILED` with the reason.
 */
export function createDenoSearchBackend(options?: DenoSearchBackendOptions): SearchBackend {
  return createRipgrepBackend({ ripgrep: packagedRipgrep, ...options, runner: options?.runner ?? createDenoProcessRunner() });
}

// Imported on first use: the package throws at import time when its platform binary was not installed, and
// under Deno when reading npm_config_arch is not permitted.
async function packagedRipgrep(): Promise<string> {
  const { rgPath } = await import("@vscode/ripgrep");
  return rgPath;
}
