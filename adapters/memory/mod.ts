/**
 * The memory adapter: a FileSystem over a memfs volume, for tests, sandboxes without a disk, and hosts
 * that keep a workspace in memory.
 *
 * @module
 */
export { createMemoryDriver, createMemoryProvider, createMemoryVolume } from "./provider.ts";
export type { MemoryFiles, MemoryProviderOptions } from "./provider.ts";
