// Search under the sandbox's read rules. The backends list and search whatever lies beneath their cwd; this
// wrapper keeps what the rules hide out of every result before a tool counts, samples or spills it, so a
// denied path never shows up in a listing, a match, a total or a problem line.
import { resolvePath } from "../fs/paths.ts";
import type { FileSystem, FsTarget, FsTargetKey } from "../fs/types.ts";
import type { FilesRequest, GrepEvent, GrepRequest, ResultSink, SearchBackend, SearchScope } from "../search/backend.ts";
import { streamMatches, streamPaths } from "../search/stream.ts";
import { checkReadable, readableFilter, type SandboxRules } from "./sandbox.ts";

/** `backend` with the rules applied: a hidden search root is refused, hidden results are dropped. */
export function guardSearch(backend: SearchBackend, fs: FileSystem, rules: SandboxRules): SearchBackend {
  const visible = readableFilter(rules);
  const roots = (scope: SearchScope) => {
    for (const path of scope.paths?.length ? scope.paths.map((p) => resolvePath(scope.cwd, p)) : [scope.cwd]) {
      const target: FsTarget = { key: path as FsTargetKey, displayPath: path };
      checkReadable(fs, rules, target, "search");
    }
  };
  const problems = (cwd: string, lines: readonly string[]) => lines.filter((line) => {
    const path = /^(?:rg: )?(.+?): /.exec(line)?.[1];
    return path === undefined || visible(resolvePath(cwd, path));
  });
  // A sink that passes on only what the rules let through; backpressure and "stop" pass through unchanged.
  const only = <T>(sink: ResultSink<T>, keep: (item: T) => boolean): ResultSink<T> => ({
    push: (item) => (keep(item) ? sink.push(item) : undefined),
    ...(sink.ready ? { ready: () => sink.ready!() } : {}),
  });
  // Both judgements: the backend's on the canonical path it reads (where it can), this one's on the path shown.
  const judged = <T extends SearchScope>(request: T): T => ({ ...request, readable: visible });
  return {
    name: backend.name,
    async streamFiles(request: FilesRequest, sink: ResultSink<string>) {
      roots(request);
      const outcome = await streamPaths(backend, judged(request), only(sink, (path) => visible(resolvePath(request.cwd, path))));
      return { ...outcome, problems: problems(request.cwd, outcome.problems) };
    },
    async streamGrep(request: GrepRequest, sink: ResultSink<GrepEvent>) {
      roots(request);
      const outcome = await streamMatches(backend, judged(request), only(sink, (event) => visible(resolvePath(request.cwd, event.path))));
      return { ...outcome, problems: problems(request.cwd, outcome.problems) };
    },
    async files(request: FilesRequest) {
      roots(request);
      const result = await backend.files(judged(request));
      return {
        paths: result.paths.filter((path) => visible(resolvePath(request.cwd, path))),
        problems: problems(request.cwd, result.problems),
      };
    },
    async grep(request: GrepRequest) {
      roots(request);
      const result = await backend.grep(judged(request));
      return {
        files: result.files.filter((file) => visible(resolvePath(request.cwd, file.path))),
        problems: problems(request.cwd, result.problems),
      };
    },
  };
}
