/**
 * toolfs core: the runtime-neutral provider seam, the text handling built on it, the search-backend seam with
 * its ripgrep backend, and the process-runner seam. Adapters for Node, Deno and an in-memory volume live under
 * their own entry points (`toolfs/node`, `toolfs/deno`, `toolfs/memory`); the conformance suite under
 * `toolfs/conformance`.
 *
 * @module
 */
export * from "./fs/mod.ts";
export * from "./text/mod.ts";
export * from "./search/mod.ts";
export * from "./policy/mod.ts";
export * from "./tools/mod.ts";
export * from "./spill/mod.ts";
export * from "./process/mod.ts";
