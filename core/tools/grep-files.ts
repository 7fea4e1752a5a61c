// grep's per-file modes (`files_with_matches`, `count`): one item per file with matches, built from the same
// match events content mode renders, so every backend that agrees with ripgrep on the lines agrees on these
// too (ripgrep's `--count` is the number of matching lines, `-l` the files that have one).
import type { GrepEvent, ResultSink } from "../search/backend.ts";
import { comparePaths } from "../search/engine/files.ts";
import { splitLines } from "./grep-lines.ts";
import type { SpillList } from "./search.ts";

/** A file with matches and how many of its lines matched. */
export interface FileCount {
  /** As the model is shown it. */
  readonly path: string;
  /** The backend's path, for ordering the page as content mode does. */
  readonly raw: string;
  readonly count: number;
}

/**
 * Takes grep's events and keeps, per file, its count of matching lines. The page is the first `cap` files in
 * path order (held in order, O(cap)); the spill holds every file in the order found, written once the cap
 * is passed, rendered as the page renders it.
 */
export class GrepFileCounts implements ResultSink<GrepEvent> {
  readonly spill: SpillList;
  /** Matching lines, over all files. */
  total = 0;
  /** Files with matches. */
  files = 0;
  readonly page: FileCount[] = [];
  readonly #cap: number;
  readonly #shown: (path: string) => string;
  readonly #render: (item: FileCount) => string;
  #open: string | undefined;
  #count = 0;
  // The first `cap` files in arrival order: the head of the spill, written once it opens.
  #arrived: FileCount[] | undefined = [];

  constructor(cap: number, shown: (path: string) => string, render: (item: FileCount) => string, spill: SpillList) {
    this.#cap = cap;
    this.#shown = shown;
    this.#render = render;
    this.spill = spill;
  }

  push(event: GrepEvent): "stop" | void {
    if (event.type === "line") {
      if (this.#open !== event.path) {
        this.#open = event.path;
        this.#count = 0;
      }
      // Matching lines: a multiline match counts every line it spans (as content mode shows them).
      const lines = splitLines(event.line.line).length;
      this.#count += lines;
      this.total += lines;
      return;
    }
    if (this.#open !== event.path) return;
    this.#open = undefined;
    const item = { path: this.#shown(event.path), raw: event.path, count: this.#count };
    this.files++;
    this.#admit(item);
    if (this.files <= this.#cap) {
      this.#arrived?.push(item);
      return;
    }
    if (this.#arrived) {
      this.spill.open();
      this.spill.write(this.#arrived.map((a) => `${this.#render(a)}\n`).join(""));
      this.#arrived = undefined;
    }
    return this.spill.write(`${this.#render(item)}\n`);
  }

  ready(): Promise<void> | undefined {
    return this.spill.ready();
  }

  #admit(item: FileCount): void {
    const page = this.page;
    let at = page.length;
    while (at > 0 && comparePaths(item.raw, (page[at - 1] as FileCount).raw) < 0) at--;
    if (at >= this.#cap) return;
    page.splice(at, 0, item);
    if (page.length > this.#cap) page.pop();
  }
}
