// The TypeScript engine over the local disk, held to ripgrep's results by the same cases that hold ripgrep
// itself: it is what a Node host without the ripgrep binary gets (createNodeSearchBackend({ engine })).
import { describe, expect, test } from "vitest";
import { runConformance } from "../../conformance/mod.ts";
import { createToolkit, isSearchError } from "../../core/mod.ts";
import { createNodeSearchBackend } from "./mod.ts";
import { createNodeSubject } from "./subject.ts";
import { stressOption } from "../../test/stress.ts";

await runConformance(
  { test, skip: (name, reason) => test.skip(`${name} (${reason})`, () => {}) },
  async () => ({ ...(await createNodeSubject()), search: createNodeSearchBackend({ engine: "only" }) }),
  { prefix: "node-engine", ...stressOption(process.env.TOOLFS_STRESS), groups: ["search-differential", "tool-search"] },
);

describe("createNodeSearchBackend's engine option", () => {
  const missing = () => Promise.reject(new Error("the platform package is not installed"));

  test("without it, a missing ripgrep fails each search SEARCH_FAILED, saying so", async () => {
    const backend = createNodeSearchBackend({ ripgrep: missing });
    const error = await backend.files({ cwd: "/" }).catch((e: unknown) => e);
    expect(isSearchError(error, "SEARCH_FAILED") && error.details.unavailable).toBe(true);
  });

  test("with fallback, the engine answers once ripgrep turns out to be missing", async () => {
    const { probe, dispose } = await createNodeSubject();
    try {
      await probe.writeFile("src/a.ts", "alpha\n");
      const backend = createNodeSearchBackend({ ripgrep: missing, engine: "fallback" });
      expect(backend.name).toBe("ripgrep");
      expect((await backend.files({ cwd: probe.root })).paths).toEqual(["src/a.ts"]);
      expect(backend.name).toBe("engine");
      expect((await backend.grep({ cwd: probe.root, pattern: "alpha" })).files.map((f) => f.path)).toEqual(["src/a.ts"]);
    } finally {
      await dispose();
    }
  });

  test("with fallback, a streamed search falls back too, and the stream starts clean", async () => {
    const { probe, dispose } = await createNodeSubject();
    try {
      await probe.writeFile("src/a.ts", "alpha\n");
      await probe.writeFile("src/b.ts", "alpha\n");
      const backend = createNodeSearchBackend({ ripgrep: missing, engine: "fallback" });
      const paths: string[] = [];
      const outcome = await backend.streamFiles!({ cwd: probe.root }, { push: (path) => void paths.push(path) });
      expect([outcome.stopped, paths, backend.name]).toEqual([false, ["src/a.ts", "src/b.ts"], "engine"]);
    } finally {
      await dispose();
    }
  });

  test("each result says which backend ran, and a fallback shows in the tools' footer and meta", async () => {
    const { probe, provider, dispose } = await createNodeSubject();
    try {
      await probe.writeFile("src/a.ts", "alpha\n");
      const plain = createNodeSearchBackend();
      expect((await plain.files({ cwd: probe.root })).searchedBy).toBe("ripgrep");
      const backend = createNodeSearchBackend({ ripgrep: missing, engine: "fallback" });
      const result = await backend.grep({ cwd: probe.root, pattern: "alpha" });
      expect([result.searchedBy, result.fallback?.from]).toEqual(["engine", "ripgrep"]);
      expect(result.fallback?.reason).toContain("ripgrep could not be found");
      const kit = createToolkit({ fs: provider, search: backend, tools: ["glob", "grep"], workspace: probe.root });
      for (const [tool, args] of [
        ["glob", { pattern: "*.ts" }],
        ["grep", { pattern: "alpha" }],
      ] as const) {
        const call = await kit.call(tool, args);
        expect(call.content, tool).toContain("(Searched by engine: ripgrep could not run here.)");
        expect(call.meta.searchedBy, tool).toBe("engine");
      }
      const usual = createToolkit({ fs: provider, search: plain, tools: ["glob"], workspace: probe.root });
      const call = await usual.call("glob", { pattern: "*.ts" });
      expect([call.content.includes("Searched by"), call.meta.searchedBy]).toEqual([false, undefined]);
    } finally {
      await dispose();
    }
  });

  test("with fallback, other ripgrep failures are passed on", async () => {
    const { probe, dispose } = await createNodeSubject();
    try {
      const backend = createNodeSearchBackend({ engine: "fallback" });
      const error = await backend.grep({ cwd: probe.root, pattern: "(" }).catch((e: unknown) => e);
      expect(isSearchError(error, "SEARCH_INVALID_PATTERN")).toBe(true);
      expect(backend.name).toBe("ripgrep");
    } finally {
      await dispose();
    }
  });
});
