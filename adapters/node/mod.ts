/**
 * The Node adapter: a FileSystem over `node:fs` on the local disk, with atomic publication through a
 * staged file beside the target; a process runner over `node:child_process`; ripgrep search through it.
 *
 * @module
 */
export { createNodeDriver, createNodeProvider } from "./provider.ts";
export type { NodeProviderOptions } from "./provider.ts";
export { createNodeProcessRunner, nodeProcessDriver } from "./process.ts";
export { createNodeSearchBackend } from "./search.ts";
export type { NodeSearchBackendOptions } from "./search.ts";
