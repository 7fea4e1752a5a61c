// Search over an overlay: what ripgrep would print for the merged tree, computed as the base's own backend
// (ripgrep on disk) on the base, minus the files the overlay holds, plus the engine over just those files
// (docs/notes/0015). Where that split cannot be exact, the engine walks the whole merged view.
import { compareUtf8, isWithin, joinPath, resolvePath } from "../fs/paths.ts";
import type { OverlayFileSystem } from "../fs/overlay/mod.ts";
import type { FileSystem, FsDirEntry, FsTarget, FsTargetKey } from "../fs/types.ts";
import { FsError } from "../fs/errors.ts";
import type { FilesRequest, GrepEvent, GrepRequest, ResultSink, SearchBackend, SearchScope, StreamOutcome, WholeSearchBackend } from "./backend.ts";
import { collectPaths, filteredSink, searchFiles, streamMatches, streamPaths, withWholeResults } from "./stream.ts";
import { createEngineBackend } from "./engine/mod.ts";
import { comparePaths } from "./engine/files.ts";
import { multilineRefused } from "./engine/grep.ts";

// Entries that change which files ripgrep's default ignore rules skip (research/rg-semantics.md §6).
const IGNORE_FILES = new Set([".gitignore", ".ignore", ".rgignore"]);
const REPOSITORY_MARKERS = [".git", ".jj"];
const MARKERS = [...REPOSITORY_MARKERS, ...IGNORE_FILES];

/**
 * A search backend for `overlay` whose results equal ripgrep's on the merged tree. `base` serves the base's
 * tree (for a disk, the ripgrep backend); the files the overlay changed are searched by the engine and merged
 * in, ordered as the request asks.
 */
export function createOverlaySearchBackend(overlay: OverlayFileSystem, base: SearchBackend): WholeSearchBackend {
  const merged = createEngineBackend(overlay);
  return withWholeResults({
    get name() {
      return base.name;
    },
    // The base is searched with the request as given (its read rules or its confinement included), and the
    // overlay's own files by the engine, whose reads are pinned: the split keeps whatever guard the base keeps.
    ...(base.readableGuard ? { readableGuard: base.readableGuard } : {}),
    async streamFiles(request: FilesRequest, sink: ResultSink<string>): Promise<StreamOutcome> {
      const plan = await route(overlay, request);
      if (plan === "base") return streamPaths(base, request, sink);
      if (plan === "merged") return streamPaths(merged, request, sink);
      const upper = upperKeys(overlay);
      const key = keyIn(request.cwd);
      const hides = hider(overlay);
      const fromUpperOnly = (path: string) => upper.has(key(path)) || hides(key(path));
      const { sort, ...unsorted } = request;
      // The overlay's own files, few, are known first; the base's stream past them, as many as they are.
      const fromUpper = await searchFiles(createEngineBackend(sparseView(overlay, !request.noIgnore)), unsorted).catch(async (error: unknown) => {
        // A request both refuse (a malformed glob) fails with the base's words, as ripgrep alone would.
        await streamPaths(base, request, { push: () => "stop" });
        throw error;
      });
      const added = fromUpper.paths.filter((path) => upper.has(key(path)));
      const fromBase = (out: ResultSink<string>) =>
        streamPaths(
          base,
          request,
          filteredSink(out, (path) => !fromUpperOnly(path)),
        );
      const problems = (outcome: StreamOutcome) => [...outcome.problems, ...fromUpper.problems];
      if (sort?.by === "modified") {
        // Each of the overlay's files goes where its mtime puts it among the base's, found by binary search.
        const kept = await collectPaths(fromBase);
        const paths = added.length === 0 ? kept.paths : await byModified(overlay, request.cwd, kept.paths, added, sort.reverse ?? false);
        const outcome = await replayPaths(paths, sink);
        return { ...outcome, problems: [...outcome.problems, ...kept.problems, ...fromUpper.problems], searchedBy: split(kept.searchedBy) };
      }
      const compare = sort === undefined ? undefined : sort.reverse ? (a: string, b: string) => comparePaths(b, a) : comparePaths;
      let next = 0;
      let stopped = false;
      const give = (path: string): "stop" | void => {
        if (stopped) return "stop";
        if (sink.push(path) === "stop") {
          stopped = true;
          return "stop";
        }
      };
      // By path, each of the overlay's files goes before the first base path that sorts after it (the base's
      // first on a tie); unsorted, after all of the base's.
      const outcome = await fromBase({
        ...passing(sink),
        push: (path) => {
          if (compare) while (next < added.length && compare(path, added[next] as string) > 0) if (give(added[next++] as string)) return "stop";
          return give(path);
        },
      });
      while (!stopped && next < added.length) give(added[next++] as string);
      return { problems: problems(outcome), stopped: stopped || outcome.stopped, searchedBy: split(outcome.searchedBy), ...fellBack(outcome) };
    },
    async streamGrep(request: GrepRequest, sink: ResultSink<GrepEvent>): Promise<StreamOutcome> {
      const plan = await route(overlay, request);
      if (plan === "base") return streamMatches(base, request, sink);
      // The engine searches the overlay's files and refuses -U; refused here, before the base delivers any.
      if (request.multiline) throw multilineRefused(request.pattern);
      if (plan === "merged") return streamMatches(merged, request, sink);
      const upper = upperKeys(overlay);
      const key = keyIn(request.cwd);
      // ripgrep's file order is unspecified (parallel threads); the base's come first.
      // The base's matches, less the files the overlay holds or deleted; then the overlay's own.
      const hides = hider(overlay);
      const fromBase = await streamMatches(
        base,
        request,
        filteredSink(sink, (event: GrepEvent) => !upper.has(key(event.path)) && !hides(key(event.path))),
      );
      if (fromBase.stopped) return { ...fromBase, searchedBy: split(fromBase.searchedBy) };
      const fromUpper = await streamMatches(
        createEngineBackend(sparseView(overlay, !request.noIgnore)),
        request,
        filteredSink(sink, (event: GrepEvent) => upper.has(key(event.path))),
      );
      return {
        problems: [...fromBase.problems, ...fromUpper.problems],
        stopped: fromUpper.stopped,
        searchedBy: split(fromBase.searchedBy),
        ...fellBack(fromBase),
        ...(fromBase.nothingSearched && fromUpper.nothingSearched ? { nothingSearched: true } : {}),
      };
    },
  });
}

// The split's two searches: the base's backend on the base, the engine on the overlay's own files.
function split(base: string | undefined): string {
  return `${base ?? "the base's backend"} + engine`;
}

function fellBack(outcome: StreamOutcome): Pick<StreamOutcome, "fallback"> {
  return outcome.fallback ? { fallback: outcome.fallback } : {};
}

// The consumer's backpressure, for a sink that wraps it.
function passing<T>(sink: ResultSink<T>): Pick<ResultSink<T>, "ready"> {
  return sink.ready ? { ready: () => sink.ready!() } : {};
}

async function replayPaths(paths: readonly string[], sink: ResultSink<string>): Promise<StreamOutcome> {
  for (let i = 0; i < paths.length; i++) {
    if (sink.push(paths[i] as string) === "stop") return { problems: [], stopped: true };
    if (i % 1024 === 1023) await sink.ready?.();
  }
  return { problems: [], stopped: false };
}

/**
 * Whether the base's backend alone answers (the overlay holds nothing), the split is exact, or only the
 * engine over the merged view is: following links (a link in the base may lead into the overlay's files), an
 * ignore file or a repository marker the overlay changed where the search looks, or a root or path argument
 * the base does not have as it is spelled.
 */
async function route(overlay: OverlayFileSystem, scope: SearchScope): Promise<"base" | "split" | "merged"> {
  const files = overlay.upper.files();
  // Deleted paths (whiteouts) are dropped from the base's results; a deleted ignore file changes the rules.
  const deleted = overlay.upper.whiteouts();
  if (files.length === 0 && !overlay.upper.hidesAny()) return "base";
  if (scope.follow) return "merged";
  if (!scope.noIgnore && [...files.map(([key]) => key), ...deleted].some((key) => shapesIgnoreRules(key, scope.cwd))) return "merged";
  const roots = [scope.cwd, ...(scope.paths ?? []).map((path) => resolvePath(scope.cwd, path))];
  for (const root of roots) {
    if (overlay.upper.hides(root)) return "merged";
    const target = await overlay.resolve(root).catch(() => undefined);
    if (target?.key !== root) return "merged";
    if (!(await overlay.base.lstat(root).catch(() => undefined))) return "merged";
  }
  return "split";
}

// An ignore file or a repository marker (or something inside one) whose folder is the search root, beneath
// it, or one of its ancestors (whose ignore files ripgrep also reads).
function shapesIgnoreRules(key: string, cwd: string): boolean {
  const segments = key.split("/");
  for (let i = 1; i < segments.length; i++) {
    const name = segments[i] as string;
    const last = i === segments.length - 1;
    if (REPOSITORY_MARKERS.includes(name) || (last && IGNORE_FILES.has(name))) {
      const folder = segments.slice(0, i).join("/") || "/";
      if (isWithin(folder, cwd) || isWithin(cwd, folder)) return true;
    }
  }
  return false;
}

// The canonical key of a path ripgrep printed (relative to the search root, through no symlink: the split never
// follows links), without normalizing the plain ones: a search can print hundreds of thousands.
function keyIn(cwd: string): (path: string) => string {
  const prefix = cwd === "/" ? "/" : `${cwd}/`;
  return (path) => (path.startsWith(".") || path.includes("/.") || path.endsWith("/") ? resolvePath(cwd, path) : prefix + path);
}

// Whether the overlay deleted a base path (or a folder above it); a lookup per ancestor, skipped when nothing is deleted.
function hider(overlay: OverlayFileSystem): (key: string) => boolean {
  return overlay.upper.hidesAny() ? (key) => overlay.upper.hides(key) : () => false;
}

function upperKeys(overlay: OverlayFileSystem): Set<string> {
  return new Set(overlay.upper.files().map(([key]) => key));
}

// ripgrep's --sort=modified on the merged tree: a stable sort by mtime. The base's list is already in that
// order; each of the overlay's files goes where its mtime belongs (ties in walk order), found by a binary
// search that stats only the base files it compares with (usually one: the overlay's files are the newest).
async function byModified(overlay: OverlayFileSystem, cwd: string, kept: readonly string[], added: readonly string[], reverse: boolean): Promise<string[]> {
  const sign = reverse ? -1 : 1;
  const mtimes = new Map<string, number>();
  const mtime = async (path: string): Promise<number> => {
    let known = mtimes.get(path);
    if (known === undefined) {
      const key = resolvePath(cwd, path);
      const info = await overlay.stat({ key: key as FsTargetKey, displayPath: key }).catch(() => undefined);
      // ripgrep puts files whose mtime it cannot read last, in either direction.
      known = info ? info.mtimeMs : Number.NaN;
      mtimes.set(path, known);
    }
    return known;
  };
  // Sort order of two known mtimes: unreadable ones last, then by mtime in the requested direction, ties in walk order.
  const order = (x: string, mx: number, y: string, my: number): number => {
    const [ux, uy] = [Number.isNaN(mx), Number.isNaN(my)];
    if (ux !== uy) return ux ? 1 : -1;
    return ux || mx === my ? comparePaths(x, y) : sign * (mx - my);
  };
  const before = async (x: string, y: string): Promise<boolean> => order(x, await mtime(x), y, await mtime(y)) < 0;
  for (const path of added) await mtime(path);
  const upper = [...added].sort((x, y) => order(x, mtimes.get(x) as number, y, mtimes.get(y) as number));
  // Where each of the overlay's files goes: before the first base entry that sorts after it, searched from where
  // the previous one went (both lists are in order); most often after the last one.
  const at: number[] = [];
  let from = 0;
  for (const path of upper) {
    let lo = from;
    let hi = kept.length;
    if (hi > lo && (await before(kept[hi - 1] as string, path))) lo = hi;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (await before(kept[mid] as string, path)) lo = mid + 1;
      else hi = mid;
    }
    at.push(lo);
    from = lo;
  }
  const out: string[] = [];
  let next = 0;
  for (const [i, path] of upper.entries()) {
    const until = at[i] as number;
    for (; next < until; next++) out.push(kept[next] as string);
    out.push(path);
  }
  for (; next < kept.length; next++) out.push(kept[next] as string);
  return out;
}

/**
 * The overlay as the engine should walk it for the split: every folder shows only the entries the upper
 * holds (and, when ignore rules apply, the ignore files and repository markers, so the rules are built as
 * for the whole tree). Reads go to the overlay.
 */
function sparseView(overlay: OverlayFileSystem, markers: boolean): FileSystem {
  return {
    get capabilities() {
      return overlay.capabilities;
    },
    cwd: overlay.cwd,
    resolve: (path, options) => overlay.resolve(path, options),
    stat: (target, options) => overlay.stat(target, options),
    lstat: (path, options) => overlay.lstat(path, options),
    readBytes: (target, options) => overlay.readBytes(target, options),
    readStream: (target, options) => overlay.readStream(target, options),
    contains: (parent, child) => overlay.contains(parent, child),
    async listDir(target: FsTarget): Promise<FsDirEntry[]> {
      const dir = target.key;
      const entry = (name: string, info: { type: FsDirEntry["type"]; size: number; mtimeMs: number }, key: string): FsDirEntry => ({
        name,
        type: info.type,
        target: { key: key as FsTargetKey, displayPath: joinPath(target.displayPath, name) },
        size: info.size,
        mtimeMs: info.mtimeMs,
      });
      const entries: FsDirEntry[] = [];
      const held = overlay.upper.children(dir);
      for (const name of held) {
        const info = await overlay.lstat(joinPath(dir, name)).catch(() => undefined);
        if (info) entries.push(entry(name, info, joinPath(dir, name)));
      }
      // The split runs only when the upper holds no marker where the search looks, so the base has them as
      // they are; asked all at once.
      const wanted = markers ? MARKERS.filter((name) => !held.includes(name)) : [];
      const found = await Promise.all(wanted.map((name) => overlay.base.lstat(joinPath(dir, name)).catch(() => undefined)));
      for (const [i, info] of found.entries()) {
        if (!info) continue;
        const path = joinPath(dir, wanted[i] as string);
        const key = info.type === "symlink" ? ((await overlay.resolve(path).catch(() => undefined))?.key ?? path) : path;
        entries.push(entry(wanted[i] as string, info, key));
      }
      return entries.sort((a, b) => compareUtf8(a.name, b.name));
    },
    write: readOnly,
    remove: readOnly,
    move: readOnly,
    mkdir: readOnly,
  };
}

async function readOnly(): Promise<never> {
  throw new FsError("FS_PERMISSION_DENIED", "the search view of an overlay is read-only");
}
