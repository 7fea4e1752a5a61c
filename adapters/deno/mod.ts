/**
 * The Deno adapter: a FileSystem over `Deno.*` on the local disk, with atomic publication through a
 * staged file beside the target.
 *
 * @module
 */
export { createDenoProvider } from "./provider.ts";
export type { DenoProviderOptions } from "./provider.ts";
