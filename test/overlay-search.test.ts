import { expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createOverlayProvider } from "../core/fs/mod.ts";
import type {
  FilesRequest,
  GrepEvent,
  GrepRequest,
  ResultSink,
  SearchBackend,
  StreamOutcome,
  WholeResults,
  WholeSearchBackend,
} from "../core/search/backend.ts";
import { createEngineBackend } from "../core/search/engine/mod.ts";
import { createOverlaySearchBackend } from "../core/search/overlay.ts";
import { guardSearch, resolveSandbox, sandboxPolicy } from "../core/mod.ts";

// A base backend that can only stream, as a million-path ripgrep result must be taken: asking it for a whole
// result fails, and it records how many items it handed out before the consumer said stop.
function streamingOnly(inner: WholeSearchBackend) {
  const seen = { paths: 0, events: 0, stopped: false };
  const backend: SearchBackend & WholeResults = {
    name: "stream-only",
    files: () => Promise.reject(new Error("a whole result was asked of the base")),
    grep: () => Promise.reject(new Error("a whole result was asked of the base")),
    async streamFiles(request: FilesRequest, sink: ResultSink<string>): Promise<StreamOutcome> {
      const { paths, problems } = await inner.files(request);
      for (const path of paths) {
        seen.paths++;
        if (sink.push(path) === "stop") return { problems, stopped: (seen.stopped = true) };
      }
      return { problems, stopped: false };
    },
    async streamGrep(request: GrepRequest, sink: ResultSink<GrepEvent>): Promise<StreamOutcome> {
      return inner.streamGrep!(request, { push: (event) => (seen.events++, sink.push(event)) });
    },
  };
  return { backend, seen };
}

async function setUp(changed: boolean) {
  const files: Record<string, string> = {};
  for (let i = 0; i < 50; i++) files[`base/f${String(i).padStart(2, "0")}.txt`] = "hay\n";
  const base = createMemoryProvider({ cwd: "/ws", files });
  const overlay = createOverlayProvider({ base });
  if (changed) await overlay.write(await overlay.resolve("base/f10.txt"), new TextEncoder().encode("needle\n"));
  const { backend, seen } = streamingOnly(createEngineBackend(base));
  return { search: createOverlaySearchBackend(overlay, backend), seen };
}

test.for([false, true])("a streamed glob over an overlay streams the base and stops it when the consumer has enough (changed: %s)", async (changed) => {
  const { search, seen } = await setUp(changed);
  const got: string[] = [];
  const outcome = await search.streamFiles!({ cwd: "/ws", sort: { by: "path" } }, { push: (path) => (got.push(path), got.length === 5 ? "stop" : undefined) });
  expect(outcome.stopped).toBe(true);
  expect(got).toEqual(["base/f00.txt", "base/f01.txt", "base/f02.txt", "base/f03.txt", "base/f04.txt"]);
  expect(seen).toMatchObject({ paths: 5, stopped: true });
  // The whole result is the stream collected, with the overlay's file where the path order puts it.
  const whole = await search.files({ cwd: "/ws", sort: { by: "path" } });
  expect(whole.paths).toHaveLength(50);
  expect(whole.paths.slice(9, 12)).toEqual(["base/f09.txt", "base/f10.txt", "base/f11.txt"]);
});

test("a streamed grep over an overlay gives the overlay's lines, not the base's, for the file it changed", async () => {
  const { search } = await setUp(true);
  const found = await search.grep({ cwd: "/ws", pattern: "needle|hay" });
  expect(found.files).toHaveLength(50);
  expect(found.files.find((f) => f.path === "base/f10.txt")?.lines.map((l) => ("text" in l.line ? l.line.text : ""))).toEqual(["needle\n"]);
});

test("grep over an overlay says nothing was searched only when neither layer searched a file", async () => {
  const { search } = await setUp(true);
  expect((await search.grep({ cwd: "/ws", pattern: "x", globs: [{ glob: "*.md" }] })).nothingSearched).toBe(true);
  // The one file the globs select is the overlay's own: it was searched, so no notice.
  expect((await search.grep({ cwd: "/ws", pattern: "x", globs: [{ glob: "f10.txt" }] })).nothingSearched).toBeUndefined();
});

test.for([false, true])(
  "under read rules, the overlay's search keeps its base's guard: a base that keeps them is still asked (changed: %s)",
  async (changed) => {
    const files: Record<string, string> = { "base/a.txt": "hay\n", "base/.env": "SECRET=1\n" };
    const base = createMemoryProvider({ cwd: "/ws", files });
    const overlay = createOverlayProvider({ base });
    if (changed) await overlay.write(await overlay.resolve("base/b.txt"), new TextEncoder().encode("new\n"));
    const { backend, seen } = streamingOnly(createEngineBackend(base));
    const pinned: SearchBackend = { ...backend, readableGuard: "pinned" };
    const search = createOverlaySearchBackend(overlay, pinned);
    expect(search.readableGuard).toBe("pinned");
    expect(createOverlaySearchBackend(overlay, backend).readableGuard).toBeUndefined();
    const rules = await resolveSandbox(overlay, sandboxPolicy({ mode: "workspace-write", workspace: "/ws", readScope: "workspace", deny: [".env"] }));
    const found = await guardSearch(search, overlay, rules).files({ cwd: "/ws", sort: { by: "path" } });
    expect(found.paths).toEqual(changed ? ["base/a.txt", "base/b.txt"] : ["base/a.txt"]);
    expect(seen.paths).toBeGreaterThan(0);
  },
);

test.for([false, true])(
  "multiline over an overlay: the base answers alone, or the search is refused before the base delivers anything (changed: %s)",
  async (changed) => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) files[`base/f${i}.txt`] = "hay\n";
    const base = createMemoryProvider({ cwd: "/ws", files });
    const overlay = createOverlayProvider({ base });
    if (changed) await overlay.write(await overlay.resolve("base/f1.txt"), new TextEncoder().encode("needle\n"));
    // A base that answers -U (as ripgrep does): the engine with the flag dropped.
    const engine = createEngineBackend(base);
    const { backend, seen } = streamingOnly({
      ...engine,
      streamGrep: ({ multiline: _, ...request }, sink) => engine.streamGrep!(request, sink),
    } as WholeSearchBackend);
    const search = createOverlaySearchBackend(overlay, backend);
    const got: GrepEvent[] = [];
    const run = search.streamGrep!({ cwd: "/ws", pattern: "hay", multiline: true }, { push: (event) => void got.push(event) });
    if (changed) {
      await expect(run).rejects.toMatchObject({ code: "SEARCH_INVALID_PATTERN", details: { refused: true, reason: "multiline" } });
      expect(seen.events).toBe(0);
      expect(got).toEqual([]);
    } else {
      await run;
      expect(got.filter((e) => e.type === "end")).toHaveLength(5);
    }
  },
);
