// The glob and grep tools over a scripted backend: what the model reads for each shape of result. The real
// backends are held to ripgrep by the conformance suite; here the backend's answers are fixed.
import { describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import type { FilesRequest, GrepFile, GrepRequest, SearchBackend } from "../core/search/backend.ts";
import { SearchError } from "../core/search/errors.ts";
import { createMemorySpillStore, type SpillStore } from "../core/spill/mod.ts";
import { createToolkit } from "../core/tools/toolkit.ts";

function scripted(answer: { paths?: string[]; files?: GrepFile[]; problems?: string[]; error?: SearchError; nothingSearched?: true }) {
  const requests: (FilesRequest | GrepRequest)[] = [];
  const backend: SearchBackend = {
    name: "scripted",
    async files(request) {
      requests.push(request);
      if (answer.error) throw answer.error;
      return { paths: answer.paths ?? [], problems: answer.problems ?? [] };
    },
    async grep(request) {
      requests.push(request);
      if (answer.error) throw answer.error;
      return { files: answer.files ?? [], problems: answer.problems ?? [], ...(answer.nothingSearched ? { nothingSearched: answer.nothingSearched } : {}) };
    },
  };
  return { backend, requests };
}

function kit(backend: SearchBackend, options: { spill?: SpillStore; overCap?: "sample" | "head"; globMaxResults?: number } = {}) {
  const fs = createMemoryProvider({ cwd: "/ws", files: { "src/a.ts": "x", "docs/b.md": "y", "one.txt": "z" } });
  return createToolkit({
    fs,
    search: backend,
    ...(options.spill ? { spill: options.spill } : {}),
    ...(options.overCap ? { overCap: options.overCap } : {}),
    limits: { globMaxResults: options.globMaxResults ?? 4 },
  });
}

const byAge = ["archive/a.ts", "archive/b.ts", "archive/c.ts", "docs/guide.md", "src/index.ts", "test/spec.ts", "top.txt", "notes.md"];
const line = (lineNumber: number, text: string) => ({ line: { text }, lineNumber, absoluteOffset: 0, submatches: [] });

describe("glob", () => {
  test("runs the backend with the contract's request", async () => {
    const { backend, requests } = scripted({ paths: ["a.ts"] });
    const result = await kit(backend).call("glob", { pattern: "*.ts", path: "src" });
    expect(result.content).toBe("src/a.ts");
    expect(requests[0]).toMatchObject({
      cwd: "/ws/src",
      hidden: true,
      noIgnore: true,
      sort: { by: "modified" },
      timeoutMs: 30_000,
      maxOutputBytes: 20_000_000,
    });
    expect((requests[0] as FilesRequest).globs?.map((g) => g.glob)).toEqual([
      "*.ts",
      ...[".git", ".svn", ".hg", ".bzr", ".jj", ".sl"].flatMap((v) => [`!${v}`, `!${v}/**`]),
    ]);
  });

  test("a result within the cap is whole, in the backend's order, with no footer", async () => {
    const { backend } = scripted({ paths: byAge.slice(0, 4) });
    const result = await kit(backend).call("glob", { pattern: "*" });
    expect(result.content).toBe(byAge.slice(0, 4).join("\n"));
    expect(result.meta).toEqual({ shape: "paths", root: ".", paths: byAge.slice(0, 4), truncated: false, total: 4 });
  });

  test("an over-cap page is sampled across top-level entries, grouped, with the footer and the spill", async () => {
    const spill = createMemorySpillStore();
    const { backend } = scripted({ paths: byAge });
    const result = await kit(backend, { spill }).call("glob", { pattern: "*" });
    expect(result.content).toBe(
      "archive/a.ts\ndocs/guide.md\nsrc/index.ts\ntest/spec.ts\n\n" +
        "(Showing 4 of 8 paths: a sample across 4 of 6 top-level entries, not the oldest 4; narrow path to one entry to " +
        "list it whole. The full list, oldest first, is in spill:glob/1; ask the host for it; the tools cannot open it.)",
    );
    expect(spill.get("spill:glob/1")).toBe(`${byAge.join("\n")}\n`);
    expect(result.meta).toMatchObject({ truncated: true, total: 8, paths: byAge.filter((_, i) => [0, 3, 4, 5].includes(i)) });
  });

  test("without a store the footer names no saved list, and advises narrowing once", async () => {
    const { backend } = scripted({ paths: byAge });
    const result = await kit(backend).call("glob", { pattern: "*" });
    expect(result.isError).toBe(false);
    expect(result.content).toBe(
      "archive/a.ts\ndocs/guide.md\nsrc/index.ts\ntest/spec.ts\n\n" +
        "(Showing 4 of 8 paths: a sample across 4 of 6 top-level entries, not the oldest 4; narrow path to one entry to list it whole.)",
    );
    const everyEntry = await kit(scripted({ paths: ["a/1", "a/2", "b/1", "b/2", "c/1"] }).backend).call("glob", { pattern: "*" });
    expect(everyEntry.content).toMatch(/not the oldest 4\. Narrow pattern or path to see the rest\.\)$/);
  });

  test("a failing store is not an error either", async () => {
    const failing: SpillStore = { save: async () => Promise.reject(new Error("disk full")) };
    const result = await kit(scripted({ paths: byAge }).backend, { spill: failing }).call("glob", { pattern: "*" });
    expect([result.isError, result.content.includes("could not be saved")]).toEqual([false, true]);
  });

  test("a page reaching every entry does not advise narrowing", async () => {
    const { backend } = scripted({ paths: ["a/1", "a/2", "b/1", "b/2", "c/1"] });
    const result = await kit(backend).call("glob", { pattern: "*" });
    expect(result.content).toContain("a sample across all 3 top-level entries, not the oldest 4.");
    expect(result.content).not.toContain("narrow path");
  });

  test("a flat result keeps the plain capped footer; head mode takes the oldest", async () => {
    const flat = await kit(scripted({ paths: ["a", "b", "c", "d", "e"] }).backend).call("glob", { pattern: "*" });
    expect(flat.content).toMatch(/^a\nb\nc\nd\n\n\(Showing the oldest 4 of 5 paths\. /);
    const head = await kit(scripted({ paths: byAge }).backend, { overCap: "head" }).call("glob", { pattern: "*" });
    expect(head.content).toMatch(/^archive\/a\.ts\narchive\/b\.ts\narchive\/c\.ts\ndocs\/guide\.md\n\n\(Showing the oldest 4 of 8 paths\./);
  });

  test("paths under an explicit path are shown from the workspace", async () => {
    const { backend } = scripted({ paths: ["a.ts"] });
    expect((await kit(backend).call("glob", { pattern: "*", path: "src" })).content).toBe("src/a.ts");
  });

  test("no match names the pattern and the path", async () => {
    const { backend } = scripted({ paths: [] });
    expect((await kit(backend).call("glob", { pattern: "*.rs", path: "src" })).content).toBe('No files match "*.rs" in src.');
  });

  test.for([[""], ["   "], ["#comment"], ["!*.ts"], ["*.ts "]])("pattern %j is an argument error", async ([pattern]) => {
    const { backend, requests } = scripted({ paths: [] });
    const result = await kit(backend).call("glob", { pattern });
    expect(result.error?.code).toBe("TOOL_INVALID_ARGUMENTS");
    expect(requests).toEqual([]);
  });

  test("escaped leading characters and a trailing escaped space are fine", async () => {
    const { backend, requests } = scripted({ paths: [] });
    for (const pattern of ["\\#x", "\\!x", "a\\ "]) expect((await kit(backend).call("glob", { pattern })).isError).toBe(false);
    expect(requests).toHaveLength(3);
  });

  test("a file or missing path is refused before searching", async () => {
    const { backend, requests } = scripted({ paths: [] });
    expect((await kit(backend).call("glob", { pattern: "*", path: "one.txt" })).error?.code).toBe("FS_NOT_DIRECTORY");
    expect((await kit(backend).call("glob", { pattern: "*", path: "nope" })).error?.code).toBe("FS_NOT_FOUND");
    expect(requests).toEqual([]);
  });

  test("backend errors surface with their codes; problems become a note", async () => {
    const invalid = scripted({ error: new SearchError("SEARCH_INVALID_PATTERN", "error parsing glob '[z-a]': invalid range") });
    expect((await kit(invalid.backend).call("glob", { pattern: "[z-a]" })).error?.code).toBe("SEARCH_INVALID_PATTERN");
    const partial = scripted({ paths: ["a.ts"], problems: ["rg: ./secret: Permission denied (os error 13)"] });
    expect((await kit(partial.backend).call("glob", { pattern: "*" })).content).toBe(
      "a.ts\n(Some paths could not be searched: ./secret: Permission denied (os error 13).)",
    );
  });

  test("meta stays within its byte cap, keeping at least one path", async () => {
    const many = Array.from({ length: 300 }, (_, i) => `dir${i}/${"x".repeat(400)}`);
    const toolkit = createToolkit({
      fs: createMemoryProvider({ cwd: "/ws" }),
      search: scripted({ paths: many }).backend,
      limits: { globMaxResults: 200, searchMetaBytes: 4096 },
    });
    const result = await toolkit.call("glob", { pattern: "*" });
    expect(JSON.stringify(result.meta).length).toBeLessThanOrEqual(4096);
    expect(result.meta).toMatchObject({ truncated: true, total: 300 });
  });
});

describe("grep", () => {
  const files: GrepFile[] = [
    { path: "src/a.ts", lines: [line(3, "const alpha = 1;\n"), line(9, "alpha();\r\n")] },
    { path: "docs/b.md", lines: [line(1, "alpha and omega")] },
  ];

  test("matches come grouped by file with line numbers", async () => {
    const { backend, requests } = scripted({ files });
    const result = await kit(backend).call("grep", { pattern: "alpha" });
    expect(result.content).toBe("Found 3 matches in 2 files.\n\nsrc/a.ts\n  3: const alpha = 1;\n  9: alpha();\n\ndocs/b.md\n  1: alpha and omega");
    expect(requests[0]).toMatchObject({ cwd: "/ws", pattern: "alpha" });
    expect(result.meta).toEqual({
      shape: "matches",
      files: [
        { path: "src/a.ts", matches: [{ lineNumber: 3, line: "const alpha = 1;" }, { lineNumber: 9, line: "alpha();" }] },
        { path: "docs/b.md", matches: [{ lineNumber: 1, line: "alpha and omega" }] },
      ],
      truncated: false,
      total: 3,
    });
  });

  test("a file path searches that file from its directory", async () => {
    const { backend, requests } = scripted({ files: [{ path: "a.ts", lines: [line(1, "x")] }] });
    const result = await kit(backend).call("grep", { pattern: "x", path: "src/a.ts", include: "*.ts" });
    expect(result.content).toBe("Found 1 match in 1 file.\n\nsrc/a.ts\n  1: x");
    expect(requests[0]).toMatchObject({ cwd: "/ws/src", paths: ["a.ts"], globs: [{ glob: "*.ts" }] });
  });

  test("long lines are cut on a character boundary; non-UTF-8 lines get a placeholder", async () => {
    const long = `${"é".repeat(1500)}\n`;
    const { backend } = scripted({ files: [{ path: "f", lines: [line(1, long), { ...line(2, ""), line: { bytes: Uint8Array.of(0xff) } }] }] });
    const result = await kit(backend).call("grep", { pattern: "." });
    expect(result.content).toContain(`  1: ${"é".repeat(1000)} … [line cut at 2000 bytes]\n`);
    expect(result.content).toContain("  2: [this line is not valid UTF-8; read the file to see it]");
  });

  test("over 250 matches: the first 250 inline, all of them spilled", async () => {
    const spill = createMemorySpillStore();
    const lines = Array.from({ length: 300 }, (_, i) => line(i + 1, `hit ${i + 1}`));
    const { backend } = scripted({ files: [{ path: "big.txt", lines }] });
    const result = await kit(backend, { spill }).call("grep", { pattern: "hit" });
    expect(result.content.split("\n")[0]).toBe("Found 300 matches in 1 file; showing the first 250 (in 1 file).");
    expect(result.content).toContain("  250: hit 250\n\n(All 300 matches are in spill:grep/1;");
    expect(result.content).not.toContain("hit 251");
    expect(spill.get("spill:grep/1")).toContain("  300: hit 300");
    expect(result.meta).toMatchObject({ truncated: true, total: 300 });
    const unsaved = await kit(backend).call("grep", { pattern: "hit" });
    expect(unsaved.content).toMatch(/  250: hit 250\n\n\(Narrow pattern, path or include to see the rest\.\)$/);
  });

  test("no match says what grep skips", async () => {
    const { backend } = scripted({ files: [] });
    expect((await kit(backend).call("grep", { pattern: "zzz" })).content).toBe(
      'No matches for "zzz" (hidden, ignored and binary files were skipped; name them with path or include to search them).',
    );
  });

  test("nothing searched says what grep skipped and how to search it, not 'no matches'", async () => {
    const { backend } = scripted({ files: [], nothingSearched: true });
    const plain = (await kit(backend).call("grep", { pattern: "zzz", path: "src" })).content;
    expect(plain).toBe(
      "No files were searched in src: grep skips hidden files, files ignored by .gitignore/.ignore/.rgignore and symbolic links, and that " +
        "left none. To search such a file, name it or its folder with path, or give include a glob that matches it (include brings back hidden and ignored files).",
    );
    const included = (await kit(backend).call("grep", { pattern: "zzz", include: "*.md" })).content;
    expect(included).toMatch(/^No files were searched: .*\.rgignore, files include does not match and symbolic links,/);
  });

  test.for([[""], ["  "], ["!*.ts"], ["*.ts,*.js"]])("include %j is an argument error", async ([include]) => {
    const { backend, requests } = scripted({ files });
    expect((await kit(backend).call("grep", { pattern: "a", include })).error?.code).toBe("TOOL_INVALID_ARGUMENTS");
    expect(requests).toEqual([]);
  });

  test("a comma inside braces is fine", async () => {
    const { backend } = scripted({ files });
    expect((await kit(backend).call("grep", { pattern: "a", include: "*.{ts,tsx}" })).isError).toBe(false);
  });

  test("without a backend, glob and grep fail SEARCH_FAILED saying why", async () => {
    const toolkit = createToolkit({ fs: createMemoryProvider(), tools: ["glob", "grep"] });
    for (const [tool, args] of [["glob", { pattern: "*" }], ["grep", { pattern: "x" }]] as const) {
      const result = await toolkit.call(tool, args);
      expect([result.error?.code, result.content]).toEqual(["SEARCH_FAILED", expect.stringContaining("no search backend")]);
    }
  });
});
