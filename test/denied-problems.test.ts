// A denied path is never named in a search's problem lines (README: "a denied path never shows up in a listing,
// a match, a total or a problem line"). Each backend is driven to the failure it would report about that path:
// confined ripgrep meets the deny list's mask, an unreadable empty directory, and says so on stderr; the engine
// would meet a folder and a file it cannot read. The guard must drop ripgrep's line, and the engine must never
// touch what the rules hide; the controls show the same tree without the rule does yield such lines.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { createMemoryDriver, createMemoryVolume } from "../adapters/memory/mod.ts";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "../adapters/node/mod.ts";
import {
  createEngineBackend,
  createFileSystem,
  createToolkit,
  detectBubblewrap,
  type GrepEvent,
  guardSearch,
  readableFilter,
  resolveSandbox,
  sandboxPolicy,
  type SearchBackend,
} from "../core/mod.ts";

describe("confined ripgrep", async () => {
  const confinement = await detectBubblewrap(createNodeProcessRunner());
  const run = confinement.available ? test : test.skip;
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-denied-problems-")));
  afterAll(() => rmSync(ws, { recursive: true, force: true }));
  mkdirSync(join(ws, "secrets"));
  writeFileSync(join(ws, "secrets/key.txt"), "needle in the secret\n");
  writeFileSync(join(ws, "a.txt"), "needle\n");
  // A literal (no wildcard), so the search runs on ripgrep inside the confinement, not on the engine.
  const deny = [join(ws, "secrets")];
  const fs = createNodeProvider({ cwd: ws });

  // ripgrep's own problem lines, before the guard's filter.
  function recording(): { backend: SearchBackend; problems: string[] } {
    const inner = createNodeSearchBackend();
    const problems: string[] = [];
    const keep = <T extends { problems: readonly string[] }>(outcome: T) => (problems.push(...outcome.problems), outcome);
    return {
      problems,
      backend: {
        name: inner.name,
        readableGuard: inner.readableGuard!,
        streamFiles: async (request, sink) => keep(await inner.streamFiles!(request, sink)),
        streamGrep: async (request, sink) => keep(await inner.streamGrep!(request, sink)),
      },
    };
  }

  run("grep and glob name nothing of a denied directory that ripgrep reported unreadable", async () => {
    const { backend, problems } = recording();
    const toolkit = createToolkit({ fs, search: backend, sandbox: { mode: "full-access", deny, confinement } });
    for (const [tool, args] of [
      ["grep", { pattern: "needle" }],
      ["grep", { pattern: "needle", include: "*.txt" }],
      ["glob", { pattern: "**/*" }],
    ] as const) {
      const before = problems.length;
      const result = await toolkit.call(tool, args);
      expect(result.isError, result.content).toBe(false);
      expect(problems.slice(before).join("\n"), `${tool}: ripgrep met the mask`).toContain("secrets: Permission denied");
      expect(result.content, `${tool} ${JSON.stringify(args)}`).not.toContain("secrets");
    }
  });

  run("every way of asking the guarded backend drops the denied path's problem line", async () => {
    const { backend, problems } = recording();
    const rules = await resolveSandbox(fs, sandboxPolicy({ mode: "full-access", workspace: ws, deny }));
    const guarded = guardSearch(backend, fs, rules, confinement);
    const events: GrepEvent[] = [];
    const outcomes = [
      await guarded.grep({ cwd: ws, pattern: "needle" }),
      await guarded.files({ cwd: ws }),
      await guarded.streamGrep!({ cwd: ws, pattern: "needle" }, { push: (event) => void events.push(event) }),
      await guarded.streamFiles!({ cwd: ws }, { push: () => undefined }),
    ];
    expect(problems.filter((line) => line.includes("secrets"))).toHaveLength(4);
    for (const outcome of outcomes) expect(outcome.problems).toEqual([]);
    expect(events.map((event) => event.path)).not.toContain("secrets/key.txt");
  });
});

describe("the engine", () => {
  // A folder and a file the backend cannot read (the memory driver keeps permission bits, even for root).
  function tree() {
    const volume = createMemoryVolume();
    volume.mkdirSync("/ws/secrets", { recursive: true });
    volume.writeFileSync("/ws/secrets/key.txt", "needle in the secret\n");
    volume.writeFileSync("/ws/id.pem", "needle in the key\n");
    volume.writeFileSync("/ws/a.txt", "needle\n");
    volume.chmodSync("/ws/secrets", 0o000);
    volume.chmodSync("/ws/id.pem", 0o000);
    return createFileSystem(createMemoryDriver(volume), { cwd: "/ws" });
  }
  const deny = ["secrets", "*.pem"];

  test("unguarded, the tree yields problem lines naming both (the control)", async () => {
    const engine = createEngineBackend(tree());
    const problems = [...(await engine.grep({ cwd: "/ws", pattern: "needle" })).problems, ...(await engine.files({ cwd: "/ws" })).problems];
    expect(problems.join("\n")).toContain("secrets");
    expect(problems.join("\n")).toContain("id.pem");
  });

  test("given the read rules, it names neither: it never lists or reads what they hide", async () => {
    const fs = tree();
    const rules = await resolveSandbox(fs, sandboxPolicy({ mode: "full-access", workspace: "/ws", deny }));
    const engine = createEngineBackend(fs);
    const readable = readableFilter(rules);
    const events: GrepEvent[] = [];
    const outcomes = [
      await engine.grep({ cwd: "/ws", pattern: "needle", readable }),
      await engine.files({ cwd: "/ws", readable }),
      await engine.streamGrep!({ cwd: "/ws", pattern: "needle", readable }, { push: (event) => void events.push(event) }),
      await engine.streamFiles!({ cwd: "/ws", readable }, { push: () => undefined }),
    ];
    for (const outcome of outcomes) expect(outcome.problems).toEqual([]);
    expect(new Set(events.map((event) => event.path))).toEqual(new Set(["a.txt"]));
  });

  test("grep and glob through a toolkit on the engine name neither", async () => {
    const fs = tree();
    const toolkit = createToolkit({ fs, search: createEngineBackend(fs), sandbox: { mode: "full-access", deny } });
    for (const [tool, args] of [
      ["grep", { pattern: "needle" }],
      ["glob", { pattern: "**/*" }],
    ] as const) {
      const result = await toolkit.call(tool, args);
      expect(result.isError, result.content).toBe(false);
      expect(result.content).not.toMatch(/secrets|id\.pem/);
    }
  });
});
