// What glob and grep share: the backend check, the search root, display paths, spilling, and meta caps.
import { boundMessage } from "../errors/mod.ts";
import { FsError } from "../fs/errors.ts";
import type { FsTarget } from "../fs/types.ts";
import type { SearchBackend, StreamOutcome } from "../search/backend.ts";
import { SearchError } from "../search/errors.ts";
import { beginSpill, type SpillWriter } from "../spill/mod.ts";
import { baseName } from "../fs/paths.ts";
import type { CallContext, ToolEnv } from "./tool.ts";
import type { ContentPart } from "./types.ts";

/** The backend (under the call's read rules), or a SEARCH_FAILED that says why there is none. */
export function backendOf(env: ToolEnv, call: CallContext): SearchBackend {
  if (!env.search) throw new SearchError("SEARCH_FAILED", "Search is not available in this toolkit: no search backend was configured");
  return call.access ? call.access.search(env.search) : env.search;
}

/** A search root: where the search runs and how its relative paths are shown. */
export interface SearchRoot {
  readonly target: FsTarget;
  readonly type: "file" | "directory";
  /** How the root itself is shown ("." for the workspace). */
  readonly shown: string;
  /** Shows a path the backend reported relative to the directory it ran in. */
  display(relative: string): string;
  /** Shows many such paths, one a line. */
  displayLines(relatives: readonly string[]): string;
}

/** Resolves a tool's `path` argument (default: the call's cwd) to an existing file or directory. */
export async function searchRoot(env: ToolEnv, path: string | undefined, call: CallContext, what: string): Promise<SearchRoot> {
  const target = await env.fs.resolve(path ?? call.cwd, { cwd: call.cwd, signal: call.signal });
  call.access?.check(target, what);
  const shown = call.roots.show(target.displayPath);
  const info = await env.fs.stat(target, { signal: call.signal });
  if (!info) {
    throw new FsError("FS_NOT_FOUND", `Cannot ${what} in "${shown}": no such file or directory`, { details: { path: target.displayPath } });
  }
  if (info.type === "other") {
    throw new FsError("FS_NOT_REGULAR_FILE", `Cannot ${what} in "${shown}": it is not a file or directory`, { details: { path: target.displayPath } });
  }
  const base = info.type === "directory" ? target.displayPath : target.displayPath.slice(0, target.displayPath.lastIndexOf("/")) || "/";
  const { display, displayLines } = call.roots.beneath(base);
  return { target, type: info.type, shown, display, displayLines };
}

/**
 * The complete list of an over-cap result, written to the toolkit's spill store as the search produces it.
 * Without a store it keeps nothing and never stops the search. With one, it stops the search once the list
 * passes `limits.spillBytes`; a failing store is dropped and the search goes on, so the counts stay exact.
 */
export class SpillList {
  readonly #env: ToolEnv;
  readonly #tool: string;
  readonly #call: CallContext;
  #writer: SpillWriter | undefined;
  #full = false;
  #failure: string | undefined;

  constructor(env: ToolEnv, tool: string, call: CallContext) {
    this.#env = env;
    this.#tool = tool;
    this.#call = call;
  }

  /** Opens the spill, when there is a store. */
  open(): void {
    if (!this.#env.spill || this.#writer) return;
    this.#writer = beginSpill(this.#env.spill, { tool: this.#tool, ...(this.#call.signal ? { signal: this.#call.signal } : {}) });
  }

  /** Appends text; `"stop"` once the list has passed its byte limit. */
  write(text: string): "stop" | void {
    const writer = this.#writer;
    if (!writer) return;
    writer.write(text);
    if (writer.size > this.#env.limits.spillBytes) {
      this.#full = true;
      return "stop";
    }
  }

  /** True when the list reached its limit (and the search was asked to stop). */
  get full(): boolean {
    return this.#full;
  }

  ready(): Promise<void> | undefined {
    return this.#writer?.ready();
  }

  /**
   * Publishes the list: where it is (as the model is shown it), and a link to it described by `description`
   * when the store gives a URI; undefined when there is no store or saving failed (see `failure`).
   */
  async finish(description: string): Promise<SavedSpill | undefined> {
    if (!this.#writer) return undefined;
    try {
      const receipt = await this.#writer.finish();
      const link: ContentPart | undefined =
        receipt.uri === undefined
          ? undefined
          : // The footer already names the file, so a text-only surface leaves the link out (inText).
            { type: "resource_link", uri: receipt.uri, name: baseName(receipt.locator), mediaType: "text/plain", description, inText: true };
      return { locator: this.#call.roots.show(receipt.locator), hint: receipt.hint, ...(link ? { parts: [link] } : {}) };
    } catch (error) {
      this.#failure = reasonOf(error);
      return undefined;
    }
  }

  /**
   * The footer's words for a list that could not be saved, with the store's reason, so the model is never
   * pointed at a path that does not hold the data.
   */
  notSaved(): string {
    return `The complete list could not be saved${this.#failure === undefined ? "" : `: ${this.#failure}`}`;
  }

  /** Drops the list after a failed search. */
  async abort(): Promise<void> {
    await this.#writer?.abort();
  }
}

/** A saved spill: where the footer says it is, and the link parts of the result (none without a URI). */
export interface SavedSpill {
  readonly locator: string;
  readonly hint: string;
  readonly parts?: readonly ContentPart[];
}

/** A count with thousands separators (10,030), whatever the runtime's locale. */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return boundMessage(message.replace(/[.\s]+$/, ""));
}

/**
 * Keeps serialized meta within `maxBytes` by dropping trailing items of its list (at least one stays), and
 * marks it truncated when anything was dropped.
 */
export function capMeta<T extends { truncated: boolean }>(meta: T, key: keyof T & string, maxBytes: number): T {
  const items = meta[key] as unknown as unknown[];
  if (JSON.stringify(meta).length <= maxBytes || items.length <= 1) return meta;
  let lo = 1;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (JSON.stringify({ ...meta, [key]: items.slice(0, mid), truncated: true }).length <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  return { ...meta, [key]: items.slice(0, lo), truncated: true };
}

/** A note naming what the search could not read, or nothing. */
/**
 * When a fallback was taken (ripgrep could not run, the engine searched), the footer and meta say so: a user
 * wondering why a search is slow can tell which backend ran. Otherwise nothing: the usual backend needs no word.
 */
export function fallbackNote(outcome: StreamOutcome): { readonly note: string; readonly meta: { searchedBy?: string } } {
  if (!outcome.fallback) return { note: "", meta: {} };
  const by = outcome.searchedBy ?? "another backend";
  return { note: `\n(Searched by ${by}: ${outcome.fallback.from} could not run here.)`, meta: { searchedBy: by } };
}

export function problemsNote(problems: readonly string[]): string {
  if (problems.length === 0) return "";
  const listed = problems.slice(0, 5).map((p) => p.replace(/^rg: /, ""));
  const more = problems.length > 5 ? ` and ${problems.length - 5} more` : "";
  return `\n(Some paths could not be searched: ${listed.join("; ")}${more}.)`;
}
