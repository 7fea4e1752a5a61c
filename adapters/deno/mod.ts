/**
 * The Deno adapter: a FileSystem over `Deno.*` on the local disk, with atomic publication through a
 * staged file beside the target; a process runner over `Deno.Command`; ripgrep search through it.
 *
 * @module
 */
export { createDenoProvider } from "./provider.ts";
export type { DenoProviderOptions } from "./provider.ts";
export { createDenoProcessRunner } from "./process.ts";
export type { DenoProcessRunnerOptions } from "./process.ts";
export { createDenoSearchBackend } from "./search.ts";
export type { DenoSearchBackendOptions } from "./search.ts";
