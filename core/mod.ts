/**
 * toolfs core, runtime-neutral: the provider seam, text handling (decoding, windows, edits, diffs), the
 * search-backend seam with the ripgrep backend and the TypeScript engine, the process-runner seam, the
 * read-before-write ledger and the sandbox fence, spill stores, and the model-facing toolkit. Adapters for
 * Node, Deno and an in-memory volume live under their own entry points (`toolfs/node`, `toolfs/deno`,
 * `toolfs/memory`), the ACP agent under `toolfs/acp`, the conformance suite under `toolfs/conformance`.
 *
 * @module
 */
export * from "./fs/mod.ts";
export * from "./text/mod.ts";
export * from "./text/patch/mod.ts";
export * from "./search/mod.ts";
export * from "./policy/mod.ts";
export * from "./tools/mod.ts";
export * from "./spill/mod.ts";
export * from "./process/mod.ts";
export * from "./errors/mod.ts";
