/**
 * Spill stores: where a complete result too large to show inline is kept, so the model can page through it.
 *
 * @module
 */
import { encodeUtf8 } from "../text/utf8.ts";
import { joinPath, resolvePath } from "../fs/paths.ts";
import type { FileSystem } from "../fs/types.ts";

export interface SpillRequest {
  /** The tool whose result this is, such as "glob". */
  readonly tool: string;
  /** The complete formatted result. */
  readonly content: string;
  readonly signal?: AbortSignal;
}

/** Where a spilled result went, and how the model can get at it. */
export interface SpillReceipt {
  /** An absolute path (for stores on the FileSystem seam) or another store-defined name. */
  readonly locator: string;
  /** One short sentence on how to retrieve it. */
  readonly hint: string;
}

/** Saves complete results. Saving is best effort: callers treat a rejection as "not saved". */
export interface SpillStore {
  save(request: SpillRequest): Promise<SpillReceipt>;
}

/**
 * A store that writes each result as a new file in `directory` through the FileSystem seam, so `read` (with
 * offset and limit) and `grep` can page it on every backend. Files are never replaced (each name is new) and
 * never deleted by the store: the host owns the directory's lifetime. Files are created 0600 and a missing
 * directory 0700; saving into an existing directory that other users can write to fails (the result is then
 * reported as not saved).
 */
export function createFsSpillStore(fs: FileSystem, directory: string): SpillStore {
  const dir = resolvePath(fs.cwd, directory);
  let counter = 0;
  const session = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  return {
    async save({ tool, content, signal }) {
      counter += 1;
      const name = `${tool}-${session}-${counter}-${randomSuffix()}.txt`;
      const target = await fs.resolve(joinPath(dir, name), { signal });
      // A scratch artifact: published atomically, but not worth an fsync on the model's critical path. It may
      // copy lines of files only this user can read, so it is owner-only, in a folder others cannot write to.
      await fs.write(target, encodeUtf8(content), { guard: { kind: "createIfAbsent" }, signal, durable: false, private: true });
      return { locator: target.displayPath, hint: "page it with read (offset, limit) or search it with grep" };
    },
  };
}

/** A store that keeps results in memory (for tests and hosts that serve them some other way). */
export interface MemorySpillStore extends SpillStore {
  /** The content saved under a locator. */
  get(locator: string): string | undefined;
}

export function createMemorySpillStore(): MemorySpillStore {
  const saved = new Map<string, string>();
  return {
    async save({ tool, content }) {
      const locator = `spill:${tool}/${saved.size + 1}`;
      saved.set(locator, content);
      return { locator, hint: "ask the host for it; the tools cannot open it" };
    },
    get: (locator) => saved.get(locator),
  };
}

function randomSuffix(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(3)), (b) => b.toString(16).padStart(2, "0")).join("");
}
