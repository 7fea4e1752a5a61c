import {
  createEngineBackend,
  createRipgrepBackend,
  RIPGREP_MEMORY_LIMIT_BYTES,
  type RipgrepBackendOptions,
  type WholeSearchBackend,
  withFallback,
} from "../../core/mod.ts";
import { createNodeProcessRunner } from "./process.ts";
import { createNodeProvider } from "./provider.ts";

/** {@link RipgrepBackendOptions}, each with a default, and whether the TypeScript engine may stand in. */
export interface NodeSearchBackendOptions extends Partial<RipgrepBackendOptions> {
  /**
   * `"fallback"`: use the TypeScript engine when ripgrep cannot be found; `"only"`: never run ripgrep.
   * Without it, a missing ripgrep fails each search `SEARCH_FAILED` with the reason.
   */
  readonly engine?: "fallback" | "only";
}

/**
 * A SearchBackend that runs ripgrep from `@vscode/ripgrep`, or the engine that reproduces its results over the
 * local disk. Creating it starts nothing. On Linux ripgrep runs under a 512 MiB address-space limit, set by
 * /bin/sh (`memoryLimit`).
 */
export function createNodeSearchBackend(options?: NodeSearchBackendOptions): WholeSearchBackend {
  const engine = () => createEngineBackend(createNodeProvider({ cwd: "/" }));
  if (options?.engine === "only") return engine();
  const ripgrep = createRipgrepBackend({
    ripgrep: packagedRipgrep,
    // Linux's shell sets RLIMIT_AS; macOS accepts `ulimit -v` but does not enforce it.
    memoryLimit: process.platform === "linux" ? { shell: "/bin/sh", bytes: RIPGREP_MEMORY_LIMIT_BYTES } : false,
    ...options,
    runner: options?.runner ?? createNodeProcessRunner(),
  });
  return options?.engine === "fallback" ? withFallback(ripgrep, engine()) : ripgrep;
}

// Imported on first use: the package throws at import time when its platform binary was not installed.
async function packagedRipgrep(): Promise<string> {
  const { rgPath } = await import("@vscode/ripgrep");
  return rgPath;
}
