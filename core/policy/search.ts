// Search under the sandbox's read rules. The backends list and search whatever lies beneath their cwd; this
// wrapper keeps what the rules hide out of every result before a tool counts, samples or spills it, so a
// denied path never shows up in a listing, a match, a total or a problem line.
//
// Filtering by the path shown is not enough for a backend that walks and opens by path (ripgrep): a folder
// swapped for a symlink to the outside mid-search changes what a path leads to, not the path. So a search
// under restricting rules goes to a backend that keeps them itself: the engine (its reads are pinned to the
// paths it judged), or ripgrep inside an OS confinement that shows it nothing the rules hide. See
// docs/notes/0016-confined-search.md.
import { resolvePath } from "../fs/paths.ts";
import type { FileSystem, FsTarget, FsTargetKey } from "../fs/types.ts";
import type { ShellConfinement } from "../process/bubblewrap.ts";
import type { FilesRequest, GrepEvent, GrepRequest, ResultSink, SearchBackend, SearchConfinement, SearchScope, WholeSearchBackend } from "../search/backend.ts";
import { createEngineBackend } from "../search/engine/backend.ts";
import { ancestorLevels } from "../search/engine/ignore.ts";
import { filteredSink, streamMatches, streamPaths, withWholeResults } from "../search/stream.ts";
import { checkReadable, readableFilter, type SandboxRules } from "./sandbox.ts";

/**
 * `backend` with the rules applied: a hidden search root is refused, hidden results are dropped, and the
 * search runs where the rules hold against a racing swap: on `backend` when it keeps them (pinned, or
 * confinable and `confinement` is available and can show it exactly what the rules allow), otherwise on the
 * engine over `fs`.
 */
export function guardSearch(backend: SearchBackend, fs: FileSystem, rules: SandboxRules, confinement?: ShellConfinement): WholeSearchBackend {
  const visible = readableFilter(rules);
  let engine: SearchBackend | undefined;
  // Which backend runs this request, and with what; decided per search, as what exists on disk can change.
  const choose = async <T extends SearchScope>(request: T): Promise<{ runner: SearchBackend; request: T }> => {
    const judged = { ...request, readable: visible };
    if (backend.readableGuard === "pinned") return { runner: backend, request: judged };
    if (backend.readableGuard === "confinable" && confinement?.available) {
      const confine = await searchConfinement(fs, rules, confinement.program, request.signal);
      if (confine) return { runner: backend, request: { ...judged, confine } };
    }
    return { runner: (engine ??= createEngineBackend(fs)), request: judged };
  };
  const roots = (scope: SearchScope) => {
    for (const path of scope.paths?.length ? scope.paths.map((p) => resolvePath(scope.cwd, p)) : [scope.cwd]) {
      const target: FsTarget = { key: path as FsTargetKey, displayPath: path };
      checkReadable(fs, rules, target, "search");
    }
  };
  const problems = (cwd: string, lines: readonly string[]) =>
    lines.filter((line) => {
      const path = /^(?:rg: )?(.+?): /.exec(line)?.[1];
      return path === undefined || visible(resolvePath(cwd, path));
    });
  // Both judgements: the backend's on the canonical path it reads (or the confinement's), this one's on the
  // path shown. The outcome says which backend ran: the engine, when this guard chose it.
  return withWholeResults({
    get name() {
      return backend.name;
    },
    readableGuard: "pinned",
    async streamFiles(request: FilesRequest, sink: ResultSink<string>) {
      roots(request);
      const chosen = await choose(request);
      const outcome = await streamPaths(
        chosen.runner,
        chosen.request,
        filteredSink(sink, (path) => visible(resolvePath(request.cwd, path))),
      );
      return { ...outcome, problems: problems(request.cwd, outcome.problems) };
    },
    async streamGrep(request: GrepRequest, sink: ResultSink<GrepEvent>) {
      roots(request);
      const chosen = await choose(request);
      const outcome = await streamMatches(
        chosen.runner,
        chosen.request,
        filteredSink(sink, (event) => visible(resolvePath(request.cwd, event.path))),
      );
      return { ...outcome, problems: problems(request.cwd, outcome.problems) };
    },
  });
}

/**
 * The confinement that shows a search exactly what the rules allow, or undefined when none can: a deny
 * pattern that only a walk can find (the engine judges each path instead), or ignore rules above the
 * readable roots, which ripgrep reads by path and which would have to be shown to it.
 */
export async function searchConfinement(fs: FileSystem, rules: SandboxRules, program: string, signal?: AbortSignal): Promise<SearchConfinement | undefined> {
  const deny = rules.deny;
  if (deny.needsWalk) return undefined;
  const opts = signal ? { signal } : undefined;
  const exists = async (target: FsTarget) => (await fs.stat(target, opts).catch(() => undefined))?.type;
  const masks: { path: string; directory: boolean }[] = [];
  for (const literal of deny.literals) {
    const target = await fs.resolve(literal, opts).catch(() => undefined);
    const type = target && (await exists(target));
    if (target && type) masks.push({ path: target.key, directory: type === "directory" });
  }
  if (!rules.readable) return { program, roots: undefined, masks };
  const roots: string[] = [];
  let inRepository = false;
  for (const root of rules.readable) {
    if ((await exists(root)) === undefined) continue;
    roots.push(root.key);
    if (root.key === "/") continue;
    const above = await ancestorLevels(fs, root.key, signal);
    if (above?.anyRules) return undefined;
    inRepository ||= above?.anyGit ?? false;
  }
  return { program, roots, masks, ...(inRepository ? { inRepository } : {}) };
}
