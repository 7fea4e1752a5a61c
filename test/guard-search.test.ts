// guardSearch (core/policy/search.ts) over a scripted backend that reports denied paths every way it can: every
// call drops them from results and problem lines, a root the rules hide is refused, and the confinement handed
// to a confinable backend masks only what exists and says "in a repository" only when it is. Found by mutation
// testing (docs/notes/0017-mutation-testing.md).
import { describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { type GrepEvent, type GrepLine, guardSearch, isFsError, resolveSandbox, sandboxPolicy, type SearchBackend, type SearchScope } from "../core/mod.ts";

const PROBLEMS = ["rg: .env: permission denied", "rg: c.txt: permission denied", "ripgrep said something without a path"];
const KEPT = ["rg: c.txt: permission denied", "ripgrep said something without a path"];

function scripted(): SearchBackend {
  const line: GrepLine = { line: { text: "needle\n" }, lineNumber: 1, absoluteOffset: 0, submatches: [] };
  return {
    name: "scripted",
    readableGuard: "pinned",
    async streamFiles(_request, sink) {
      for (const path of [".env", "a.txt"]) sink.push(path);
      return { problems: PROBLEMS, stopped: false };
    },
    async streamGrep(_request, sink) {
      for (const path of [".env", "a.txt"]) {
        sink.push({ type: "line", path, line });
        sink.push({ type: "end", path });
      }
      return { problems: PROBLEMS, stopped: false };
    },
  };
}

async function guarded() {
  const fs = createMemoryProvider({ files: { "/ws/a.txt": "needle", "/ws/.env": "needle" }, cwd: "/ws" });
  const rules = await resolveSandbox(fs, sandboxPolicy({ mode: "workspace-write", workspace: "/ws", deny: [".env"] }));
  return guardSearch(scripted(), fs, rules);
}

describe("guardSearch over a backend that reports a denied path", () => {
  test("every call drops it from the results and the problem lines, and keeps a line without a path", async () => {
    const guard = await guarded();
    const files = await guard.files({ cwd: "/ws" });
    expect(files).toEqual({ paths: ["a.txt"], problems: KEPT, searchedBy: "scripted" });
    const grep = await guard.grep({ cwd: "/ws", pattern: "needle" });
    expect(grep.files.map((file) => file.path)).toEqual(["a.txt"]);
    expect(grep.problems).toEqual(KEPT);
    const paths: string[] = [];
    expect((await guard.streamFiles!({ cwd: "/ws" }, { push: (path) => void paths.push(path) })).problems).toEqual(KEPT);
    expect(paths).toEqual(["a.txt"]);
    const events: GrepEvent[] = [];
    expect((await guard.streamGrep!({ cwd: "/ws", pattern: "needle" }, { push: (event) => void events.push(event) })).problems).toEqual(KEPT);
    expect(events.map((event) => `${event.type} ${event.path}`)).toEqual(["line a.txt", "end a.txt"]);
  });

  test("it keeps the backend's name and says it keeps the rules itself", async () => {
    const guard = await guarded();
    expect(guard.name).toBe("scripted");
    expect(guard.readableGuard).toBe("pinned");
  });

  test("a search rooted at a denied path is refused before the backend is asked", async () => {
    const guard = await guarded();
    for (const call of [() => guard.files({ cwd: "/ws", paths: [".env"] }), () => guard.grep({ cwd: "/ws", pattern: "x", paths: ["a.txt", ".env"] })]) {
      const error = await (async () => call())().catch((e: unknown) => e);
      expect(isFsError(error, "FS_SANDBOX_DENIED"), String(error)).toBe(true);
    }
  });
});

describe("the confinement a confinable backend is given", () => {
  const available = { kind: "bubblewrap", available: true, program: "bwrap" } as const;
  async function confineOf(files: Record<string, string>, options: { deny?: string[]; readScope?: "workspace" }): Promise<SearchScope["confine"]> {
    const fs = createMemoryProvider({ files: { "/top/ws/a.txt": "a", ...files }, cwd: "/top/ws" });
    const rules = await resolveSandbox(fs, sandboxPolicy({ mode: "workspace-write", workspace: "/top/ws", ...options }));
    const requests: SearchScope[] = [];
    const backend: SearchBackend = {
      name: "recording",
      readableGuard: "confinable",
      streamFiles: async (request) => (requests.push(request), { problems: [], stopped: false }),
      streamGrep: () => Promise.reject(new Error("unused")),
    };
    await guardSearch(backend, fs, rules, available).files({ cwd: "/top/ws" });
    return requests[0]?.confine;
  }

  test("a denied literal that does not exist is not masked; one that does is", async () => {
    const confine = await confineOf({ "/top/ws/there.txt": "s" }, { deny: ["/top/ws/there.txt", "/top/ws/missing.txt", "/top/ws/gone/x"] });
    expect(confine?.masks).toEqual([{ path: "/top/ws/there.txt", directory: false }]);
  });

  test("outside a repository the confinement does not say it is in one", async () => {
    expect(await confineOf({}, { readScope: "workspace" })).toEqual({ program: "bwrap", roots: ["/top/ws"], masks: [] });
    expect((await confineOf({ "/top/.git/HEAD": "ref" }, { readScope: "workspace" }))?.inRepository).toBe(true);
  });
});
