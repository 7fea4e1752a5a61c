/**
 * The search engine: ripgrep's `--files` and `--json` results computed in TypeScript over any FileSystem.
 *
 * @module
 */
export { createEngineBackend } from "./backend.ts";
