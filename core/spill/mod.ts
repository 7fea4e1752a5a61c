/**
 * Spill stores: where a complete result too large to show inline is kept, so the model can page through it.
 *
 * @module
 */
import { encodeUtf8 } from "../text/utf8.ts";
import { FsError } from "../fs/errors.ts";
import { baseName, joinPath, parentPath, resolvePath } from "../fs/paths.ts";
import type { FileSystem, FsFence, FsTarget } from "../fs/types.ts";

export interface SpillRequest {
  /** The tool whose result this is, such as "glob". */
  readonly tool: string;
  /** The complete formatted result. */
  readonly content: string;
  readonly signal?: AbortSignal;
}

/** A spill to be written piece by piece, as the result is produced. */
export interface SpillStart {
  /** The tool whose result this is, such as "glob". */
  readonly tool: string;
  readonly signal?: AbortSignal;
}

/** Where a spilled result went, and how the model can get at it. */
export interface SpillReceipt {
  /** An absolute path (for stores on the FileSystem seam) or another store-defined name. */
  readonly locator: string;
  /** One short sentence on how to retrieve it. */
  readonly hint: string;
  /** A URI a client can fetch it by (`file:` for stores on the FileSystem seam); absent when there is none. */
  readonly uri?: string;
}

/**
 * A spill being written. Text is appended in order; nobody sees the artifact before `finish` publishes it
 * whole. Writing never throws: once the store failed, further text is dropped and `finish` rejects.
 */
export interface SpillWriter {
  write(text: string): void;
  /**
   * Bytes written so far, counting text not yet encoded as one byte per UTF-16 unit: exact for ASCII, and
   * never more than the artifact's true size.
   */
  readonly size: number;
  /** A promise while the store is behind (the writer then holds at most about a mebibyte); else undefined. */
  ready(): Promise<void> | undefined;
  /** Publishes what was written; rejects when it could not be saved. */
  finish(): Promise<SpillReceipt>;
  /** Discards what was written; nothing is published. */
  abort(): Promise<void>;
}

/** Saves complete results. Saving is best effort: callers treat a rejection as "not saved". */
export interface SpillStore {
  save(request: SpillRequest): Promise<SpillReceipt>;
  /**
   * Starts a spill written as the result is produced, so the result never has to be held whole. Optional:
   * {@link beginSpill} falls back to collecting the text and calling `save` once.
   */
  begin?(request: SpillStart): SpillWriter;
  /**
   * The absolute folder the store writes its files in, when it has one on the FileSystem seam. A toolkit
   * keeps it read-only to its file tools and its confined shell, so a command cannot swap it for a symlink
   * or rewrite what was saved there.
   */
  readonly directory?: string;
  /**
   * The text of a spill this store published, by its receipt's `uri`, for a surface that serves its links
   * (MCP's resources/read). Any other URI (another file, a path out of the folder, another store's spill) is
   * refused with FS_PERMISSION_DENIED. Optional: a store without it serves no link.
   */
  read?(uri: string, options?: { readonly signal?: AbortSignal }): Promise<string>;
}

/** A writer for `store`: its own streaming one, or one that collects the text and saves it at the end. */
export function beginSpill(store: SpillStore, request: SpillStart): SpillWriter {
  return store.begin ? store.begin(request) : new CollectingWriter(store, request);
}

const HINT = "page it with read (offset, limit) or search it with grep";

/** The `file:` URI of an absolute POSIX path, each segment percent-encoded (a space is %20, # is %23). */
export function fileUri(path: string): string {
  return `file://${path.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * The folder a host gives {@link createFsSpillStore} inside a temp directory: one per user
 * (`toolfs-spill-<uid>`), so no other user's folder of the same name is ever a candidate.
 */
export function spillDirectoryIn(temp: string, uid: number | undefined): string {
  return joinPath(temp, uid === undefined ? "toolfs-spill" : `toolfs-spill-${uid}`);
}

/**
 * A store that writes each result as a new file in `directory` through the FileSystem seam, so `read` (with
 * offset and limit) and `grep` can page it on every backend. Files are never replaced (each name is new) and
 * never deleted by the store: the host owns the directory's lifetime. Files are created 0600 and a missing
 * directory 0700; saving into an existing directory that another user owns, or that other users can write
 * to, fails (the result is then reported as not saved, with the reason). The folder is fenced: its parent is
 * resolved once, on the first save, and a save whose destination resolves anywhere but directly inside
 * `<that parent>/<name>` (the folder swapped for a symlink, or moved) is refused. A streamed spill is staged
 * as it is written and published atomically by `finish`.
 */
export function createFsSpillStore(fs: FileSystem, directory: string): SpillStore {
  const dir = resolvePath(fs.cwd, directory);
  let counter = 0;
  const session = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  let home: string | undefined;
  // What this store published, by URI: the only files `read` serves.
  const published = new Map<string, FsTarget>();
  const folder = async (signal: AbortSignal | undefined): Promise<string> => {
    // The parent (a temp root) once, canonically; the folder itself is never followed, so a symlink put there
    // later cannot move the spills.
    home ??= joinPath((await fs.resolve(parentPath(dir), { signal })).key, baseName(dir));
    return home;
  };
  const publish = async (tool: string, data: Uint8Array | AsyncIterable<Uint8Array>, signal: AbortSignal | undefined): Promise<SpillReceipt> => {
    counter += 1;
    const name = `${tool}-${session}-${counter}-${randomSuffix()}.txt`;
    const inside = await folder(signal);
    const target = await fs.resolve(joinPath(inside, name), { signal });
    const fence: FsFence = (destination) => {
      if (destination.key === joinPath(inside, name)) return;
      throw new FsError(
        "FS_PERMISSION_DENIED",
        `the spill folder "${inside}" leads elsewhere ("${parentPath(destination.key)}"): it was replaced by a symbolic link or moved`,
        { details: { path: target.displayPath, destination: destination.key } },
      );
    };
    // A scratch artifact: published atomically, but not worth an fsync on the model's critical path. It may
    // copy lines of files only this user can read, so it is owner-only, in a folder only this user controls.
    await fs.write(target, data, { guard: { kind: "createIfAbsent" }, signal, durable: false, private: true, fence });
    const uri = fileUri(target.displayPath);
    published.set(uri, target);
    return { locator: target.displayPath, hint: HINT, uri };
  };
  return {
    directory: dir,
    async read(uri, options) {
      const target = published.get(uri);
      if (!target) {
        throw new FsError("FS_PERMISSION_DENIED", `"${uri}" is not a spill this store saved; only those can be read through it`, { details: { uri } });
      }
      const signal = options?.signal;
      const info = await fs.stat(target, signal ? { signal } : undefined);
      if (!info)
        throw new FsError("FS_NOT_FOUND", `The spill "${target.displayPath}" is gone: the spill folder was cleared`, { details: { path: target.displayPath } });
      return new TextDecoder().decode((await fs.readBytes(target, { maxBytes: info.size, ...(signal ? { signal } : {}) })).bytes);
    },
    save: ({ tool, content, signal }) => publish(tool, encodeUtf8(content), signal),
    begin: ({ tool, signal }) => new StreamingWriter((chunks) => publish(tool, chunks, signal)),
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

// Text is encoded in chunks of about this many UTF-16 units; the writer asks its producer to wait while
// HIGH_WATER encoded bytes or more wait for the store.
const CHUNK_UNITS = 64 * 1024;
const HIGH_WATER = 1024 * 1024;

/**
 * Feeds a publication through an identity TransformStream: the producer writes its writable side, whose
 * byte-length queuing strategy gives the backpressure (`desiredSize`, `ready`); the publication reads the
 * readable side as its chunks.
 */
class StreamingWriter implements SpillWriter {
  #pending: string[] = [];
  #pendingUnits = 0;
  #encoded = 0;
  #closed = false;
  #failed = false;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #result: Promise<SpillReceipt>;

  constructor(publish: (chunks: AsyncIterable<Uint8Array>) => Promise<SpillReceipt>) {
    const pipe = new TransformStream<Uint8Array, Uint8Array>(
      undefined,
      new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER }),
      new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
    );
    this.#writer = pipe.writable.getWriter();
    this.#result = publish(chunks(pipe.readable));
    this.#result.catch(() => {
      this.#failed = true;
      this.#pending = [];
      this.#pendingUnits = 0;
      // Drops what is queued and settles a producer waiting on `ready`.
      this.#writer.abort(new Error("the spill could not be saved")).catch(() => undefined);
    });
  }

  get size(): number {
    return this.#encoded + this.#pendingUnits;
  }

  write(text: string): void {
    if (this.#closed || this.#failed) return;
    this.#pending.push(text);
    this.#pendingUnits += text.length;
    if (this.#pendingUnits >= CHUNK_UNITS) this.#flush();
  }

  ready(): Promise<void> | undefined {
    if (this.#failed || (this.#writer.desiredSize ?? 1) > 0) return undefined;
    // Rejects once the stream is errored (the store failed or the spill was abandoned): the producer goes on.
    return this.#writer.ready.catch(() => undefined);
  }

  async finish(): Promise<SpillReceipt> {
    if (!this.#closed) {
      this.#flush();
      this.#closed = true;
      this.#writer.close().catch(() => undefined);
    }
    return this.#result;
  }

  async abort(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#pending = [];
      this.#pendingUnits = 0;
      // Errors the readable side too: the publication fails and nothing is published.
      this.#writer.abort(new Error("the spill was abandoned")).catch(() => undefined);
    }
    await this.#result.catch(() => undefined);
  }

  #flush(): void {
    if (this.#pendingUnits === 0 || this.#failed) return;
    const bytes = encodeUtf8(this.#pending.join(""));
    this.#pending = [];
    this.#pendingUnits = 0;
    this.#encoded += bytes.length;
    // Queued whatever the backpressure; `ready` is how the producer is held back.
    this.#writer.write(bytes).catch(() => undefined);
  }
}

// The readable side as an async iterable (Node 20's ReadableStream iterates, but not every runtime's types
// say so); stopping early cancels the stream.
async function* chunks(readable: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = readable.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** For a store without `begin`: collects the text and saves it in one piece. */
class CollectingWriter implements SpillWriter {
  readonly #store: SpillStore;
  readonly #request: SpillStart;
  #parts: string[] = [];
  #size = 0;
  #closed = false;

  constructor(store: SpillStore, request: SpillStart) {
    this.#store = store;
    this.#request = request;
  }

  get size(): number {
    return this.#size;
  }

  write(text: string): void {
    if (this.#closed) return;
    this.#parts.push(text);
    this.#size += text.length;
  }

  ready(): undefined {
    return undefined;
  }

  async finish(): Promise<SpillReceipt> {
    this.#closed = true;
    const content = this.#parts.join("");
    this.#parts = [];
    return this.#store.save({ ...this.#request, content });
  }

  async abort(): Promise<void> {
    this.#closed = true;
    this.#parts = [];
  }
}
