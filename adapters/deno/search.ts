import {
  createEngineBackend,
  createRipgrepBackend,
  RIPGREP_MEMORY_LIMIT_BYTES,
  type RipgrepBackendOptions,
  type WholeSearchBackend,
  SearchError,
  withFallback,
} from "../../core/mod.ts";
import { denoApi } from "./deno-api.ts";
import { createDenoProcessRunner } from "./process.ts";
import { createDenoProvider } from "./provider.ts";

/** {@link RipgrepBackendOptions}, each with a default, and whether the TypeScript engine may stand in. */
export interface DenoSearchBackendOptions extends Partial<RipgrepBackendOptions> {
  /**
   * `"fallback"`: use the TypeScript engine when ripgrep cannot be found or may not run; `"only"`: never run
   * ripgrep (then no run permission is needed). Without it, those searches fail `SEARCH_FAILED` with the reason.
   */
  readonly engine?: "fallback" | "only";
}

/**
 * A SearchBackend that runs ripgrep from `@vscode/ripgrep` (npm). Loading that package needs
 * `--allow-env=npm_config_arch` and read access to node_modules; running it, `--allow-run=<its rgPath>`. Creating
 * the backend starts nothing; a missing ripgrep or permission fails each search `SEARCH_FAILED` with the reason.
 * On Linux, when `--allow-run` also grants `sh`, ripgrep runs under a 512 MiB address-space limit set by the
 * shell (`memoryLimit`); without that grant it runs without one.
 */
export function createDenoSearchBackend(options?: DenoSearchBackendOptions): WholeSearchBackend {
  const engine = () => createEngineBackend(createDenoProvider({ cwd: "/" }));
  if (options?.engine === "only") return engine();
  const ripgrep = createRipgrepBackend({
    ripgrep: packagedRipgrep,
    memoryLimit: defaultMemoryLimit(),
    ...options,
    runner: options?.runner ?? createDenoProcessRunner(),
  });
  return options?.engine === "fallback" ? withFallback(ripgrep, engine()) : ripgrep;
}

// Imported on first use: the package throws at import time when its platform binary was not installed, and
// under Deno when reading npm_config_arch is not permitted.
async function packagedRipgrep(): Promise<string> {
  try {
    const { rgPath } = await import("@vscode/ripgrep");
    return rgPath;
  } catch (error) {
    // Deno's refusal to read npm_config_arch (or node_modules) is a missing permission, not a missing binary.
    if ((error as { name?: unknown } | null)?.name !== "NotCapable") throw error;
    throw new SearchError(
      "SEARCH_FAILED",
      `Search is unavailable: Deno's permissions do not allow locating ripgrep (${(error as Error).message}). Tell the user to ` +
        "run Deno with --allow-env=npm_config_arch and read access to node_modules.",
      { cause: error, details: { unavailable: true } },
    );
  }
}

// The shell sets RLIMIT_AS on Linux only, and Deno must allow running it.
function defaultMemoryLimit(): RipgrepBackendOptions["memoryLimit"] {
  const deno = denoApi();
  if (deno.build.os !== "linux") return false;
  const granted = deno.permissions.querySync({ name: "run", command: "sh" }).state === "granted";
  return granted ? { shell: "sh", bytes: RIPGREP_MEMORY_LIMIT_BYTES } : false;
}
