// The search-backend seam. A request describes a ripgrep invocation as data (the flags this project uses,
// and the few more the differential cases exercise); a backend either runs ripgrep with exactly that argv or
// reproduces its result in TypeScript. Results mirror ripgrep's own output: paths relative to the cwd, and
// for grep the fields of its --json `match` events.

/** One `-g` (or, case-insensitive, `--iglob`) value, in command-line order. */
export interface GlobArg {
  readonly glob: string;
  readonly caseInsensitive?: boolean;
}

/** What every search shares: where it runs, what it walks, and its budgets. */
export interface SearchScope {
  /** Canonical absolute directory the search runs in (ripgrep's cwd); results are relative to it. */
  readonly cwd: string;
  /**
   * Path arguments, relative to `cwd` (files or directories). None means ripgrep's default: walk `cwd` and
   * print paths without a `./` prefix.
   */
  readonly paths?: readonly string[];
  /** `-g` / `--iglob` values in order; the last matching one decides. */
  readonly globs?: readonly GlobArg[];
  /** `--hidden`: include entries whose name starts with a dot. */
  readonly hidden?: boolean;
  /**
   * `--no-ignore`: do not honour `.gitignore`, `.ignore` or `.rgignore`. Configuration files and the global
   * git excludes file are never consulted (`--no-config`, `--no-ignore-global`).
   */
  readonly noIgnore?: boolean;
  /** `-L`: follow symbolic links. */
  readonly follow?: boolean;
  /**
   * `-t NAME` values: only files whose name matches one of these built-in types' globs (ripgrep's
   * `--type-list`, and `all` for every type). Judged after globs and ignore files; a type match brings back
   * a hidden file. An unknown name fails `SEARCH_INVALID_PATTERN` ("unrecognized file type: NAME").
   */
  readonly types?: readonly string[];
  /**
   * Canonical absolute paths the caller may see (a sandbox's read rules). A backend that knows the canonical
   * path of each file it reads and each folder it lists (the engine, whose reads and listings are pinned to
   * those paths) leaves out everything else, so a folder swapped for a symlink mid-search cannot bring in
   * another folder's files. ripgrep cannot tell and ignores it; its caller filters results by path.
   */
  readonly readable?: (key: string) => boolean;
  /**
   * The same rules as `readable`, for a backend that runs another program (`readableGuard: "confinable"`):
   * that program runs inside this OS confinement, which shows it nothing the rules hide, so a folder swapped
   * for a symlink to the outside mid-search leads nowhere. Set by the sandbox's search guard, never by a tool.
   */
  readonly confine?: SearchConfinement;
  readonly signal?: AbortSignal;
  /** Stop and fail `SEARCH_ABORTED` after this many milliseconds. */
  readonly timeoutMs?: number;
  /**
   * Fail `SEARCH_RAW_OUTPUT_OVERFLOW` once the raw output exceeds this many bytes. It bounds the memory of a
   * whole result (`files`, `grep`, which hold all of it), where both backends apply 20,000,000 when it is absent; a streamed
   * search holds nothing and has no such limit unless the request sets one.
   */
  readonly maxOutputBytes?: number;
  /**
   * The caller holds every item (a whole result, built by `searchFiles` / `searchGrep`): the backend applies its
   * default `maxOutputBytes` when the request sets none. Wrappers pass it on with the request.
   */
  readonly whole?: boolean;
}

/**
 * An OS confinement for one search (docs/notes/0016-confined-search.md): bubblewrap, showing the search only
 * `roots` (or the whole filesystem), with `masks` hidden. Every path is canonical and absolute.
 */
export interface SearchConfinement {
  /** The bubblewrap program, as `detectBubblewrap` found it. */
  readonly program: string;
  /** The only paths the search can reach, read-only; undefined for the whole filesystem. */
  readonly roots: readonly string[] | undefined;
  /** Hidden inside the confinement: a file reads as empty, a directory as empty and unreadable. */
  readonly masks: readonly { readonly path: string; readonly directory: boolean }[];
  /**
   * A repository boundary lies above `roots` (an ancestor has `.git`), which the confined search cannot see:
   * `.gitignore` files count without one (`--no-require-git`), as they would inside that repository.
   */
  readonly inRepository?: boolean;
}

/** `rg --files`: list the files a search would look at. */
export interface FilesRequest extends SearchScope {
  /** `--sort` / `--sortr`. Without it the order is unspecified. `modified` is oldest first. */
  readonly sort?: { readonly by: "path" | "modified"; readonly reverse?: boolean };
}

export interface FilesResult {
  /** Paths relative to `cwd`, `/`-separated, in the requested order. */
  readonly paths: readonly string[];
  /** Per-path failures that did not stop the search (ripgrep's exit 2 with output), one line each. */
  readonly problems: readonly string[];
  /** As in {@link StreamOutcome}: which backend ran, and the fallback taken if one was. */
  readonly searchedBy?: string;
  readonly fallback?: SearchFallback;
}

/** `rg --json -e PATTERN`: the lines matching a regular expression. */
export interface GrepRequest extends SearchScope {
  readonly pattern: string;
  /** `-i` (`--ignore-case`): the pattern matches whatever the case, as if it began with `(?i)`. */
  readonly caseInsensitive?: boolean;
  /**
   * `-B`/`-A`: lines of context before and after each matching line, delivered as lines marked
   * {@link GrepLine.context} (ripgrep's `context` messages), merged as ripgrep merges them.
   */
  readonly context?: { readonly before?: number; readonly after?: number };
  /**
   * `-U` (`--multiline`): a match may span lines (`\n` in the pattern matches a line break; `.` does not
   * unless `(?s)`). A match message then holds every line its matches span (`line` is those lines,
   * `lineNumber` the first), with submatch offsets from the first line's start. The engine refuses it
   * (`SEARCH_INVALID_PATTERN` with `details.refused`): it matches one line at a time.
   */
  readonly multiline?: boolean;
}

/** Text that was valid UTF-8, or the raw bytes when it was not (ripgrep's `{"text"}` / `{"bytes"}`). */
export type SearchData = { readonly text: string } | { readonly bytes: Uint8Array };

export interface GrepSubmatch {
  readonly match: SearchData;
  /** Byte offsets into the line. */
  readonly start: number;
  readonly end: number;
}

export interface GrepLine {
  /** The whole line including its terminator, as ripgrep's `lines`. */
  readonly line: SearchData;
  /** 1-based. */
  readonly lineNumber: number;
  /** Byte offset of the line's start in the (decoded) file. */
  readonly absoluteOffset: number;
  readonly submatches: readonly GrepSubmatch[];
  /**
   * A context line (only when the request asked for context): not a match, and without submatches. Callers
   * that count matches skip it.
   */
  readonly context?: true;
}

export interface GrepFile {
  /** Relative to `cwd`, as ripgrep prints it. */
  readonly path: string;
  readonly lines: readonly GrepLine[];
  /** Set when a NUL stopped the search of this file part-way (ripgrep's `end.binary_offset`). */
  readonly binaryOffset?: number;
}

export interface GrepResult {
  /** Files with at least one match, in the order found. */
  readonly files: readonly GrepFile[];
  readonly problems: readonly string[];
  /**
   * Set when the search named no path and no file passed the filters (ripgrep's "No files were searched"):
   * every file was hidden, ignored, left out by the globs or a link that is not followed, or there was none.
   */
  readonly nothingSearched?: true;
  /** As in {@link StreamOutcome}: which backend ran, and the fallback taken if one was. */
  readonly searchedBy?: string;
  readonly fallback?: SearchFallback;
}

/** One step of a streamed grep: a matching line of a file, or the end of a file that had matches. */
export type GrepEvent =
  | { readonly type: "line"; readonly path: string; readonly line: GrepLine }
  | { readonly type: "end"; readonly path: string; readonly binaryOffset?: number };

/**
 * Takes a streamed result item by item, in the order the whole result would list them (for grep: a file's
 * lines together, then its `end`).
 */
export interface ResultSink<T> {
  /**
   * The next item. `"stop"` says the consumer takes no more: the backend ends the search as soon as it can,
   * delivers nothing further and reports the search as stopped.
   */
  push(item: T): "stop" | void;
  /**
   * A promise while the consumer is behind (say, its disk is slower than the search), which the backend
   * awaits before it produces more; undefined when it may go on. Checked between batches of items.
   */
  ready?(): Promise<void> | undefined;
}

/** How a streamed search ended; its items went to the sink. */
export interface StreamOutcome {
  /** Per-path failures that did not stop the search, as in a whole result. */
  readonly problems: readonly string[];
  /** True when the search ended early because the sink said `"stop"`. */
  readonly stopped: boolean;
  /** As in a whole grep result: no path was named and no file passed the filters. */
  readonly nothingSearched?: true;
  /**
   * Which backend produced the items: "ripgrep", "ripgrep in bubblewrap", "engine", a combination (an
   * overlay's base with the engine over its own files), or a host backend's name. A backend may leave it out;
   * `streamPaths` and `streamMatches` then fill in its `name`, so every outcome they return says it.
   */
  readonly searchedBy?: string;
  /** Set when the backend asked for could not run and another took over (`withFallback`). */
  readonly fallback?: SearchFallback;
}

/** A fallback that was taken: the backend that could not run, and why. */
export interface SearchFallback {
  readonly from: string;
  readonly reason: string;
}

/**
 * Runs searches: the seam every backend implements, and every wrapper (the sandbox's read guard, the
 * overlay, the fallback). Invalid globs and regexes fail `SEARCH_INVALID_PATTERN` with ripgrep's wording; an
 * empty result is not an error.
 *
 * A backend only streams: it hands items to a sink as they are found, so a caller keeps only what it needs
 * whatever the result's size. Whole results are built from the streams in one place (`searchFiles`,
 * `searchGrep`, or `withWholeResults` for a backend object that has them as methods); see
 * docs/notes/0012-streamed-results.md. A backend written against the older seam (whole results only) is
 * adapted by `fromWholeResults`.
 */
export interface SearchBackend {
  /** A short name for messages and test output, such as "ripgrep" or "engine". */
  readonly name: string;
  /**
   * How the backend keeps {@link SearchScope.readable} while another process swaps folders under it:
   * `"pinned"`, it judges the canonical path of every folder it lists and file it reads, and reads exactly
   * those (the engine); `"confinable"`, it honours {@link SearchScope.confine} (ripgrep). Absent: it keeps
   * neither, and a search under restricting read rules is not given to it (the sandbox's guard uses the engine).
   */
  readonly readableGuard?: "pinned" | "confinable";
  /** `rg --files`: the paths, in the requested order, as they are known. */
  streamFiles(request: FilesRequest, sink: ResultSink<string>): Promise<StreamOutcome>;
  /** `rg --json`: the files and lines, in the order found. */
  streamGrep(request: GrepRequest, sink: ResultSink<GrepEvent>): Promise<StreamOutcome>;
}

/** Whole results, as `withWholeResults` adds them to a backend: collected from its streams. */
export interface WholeResults {
  files(request: FilesRequest): Promise<FilesResult>;
  grep(request: GrepRequest): Promise<GrepResult>;
}

/** A backend with whole results beside its streams, as the backends this library creates are. */
export type WholeSearchBackend = SearchBackend & WholeResults;
