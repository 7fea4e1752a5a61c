// The glob and grep tools over a scripted backend: what the model reads for each shape of result. The real
// backends are held to ripgrep by the conformance suite; here the backend's answers are fixed.
import { describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import type { FilesRequest, GrepEvent, GrepFile, GrepRequest, ResultSink, SearchBackend, StreamOutcome, WholeResults } from "../core/search/backend.ts";
import { createEngineBackend } from "../core/search/engine/mod.ts";
import { SearchError } from "../core/search/errors.ts";
import { fromWholeResults } from "../core/search/stream.ts";
import { createMemorySpillStore, type SpillStore } from "../core/spill/mod.ts";
import { createToolkit } from "../core/tools/toolkit.ts";

function scripted(answer: { paths?: string[]; files?: GrepFile[]; problems?: string[]; error?: SearchError; nothingSearched?: true }) {
  const requests: (FilesRequest | GrepRequest)[] = [];
  const backend: SearchBackend = fromWholeResults({
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
  });
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
    });
    // Results are streamed and only the page is kept, so the search has no raw-output budget to overflow.
    expect(requests[0]).not.toHaveProperty("maxOutputBytes");
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

  test("a sample that is the oldest page is not called otherwise: one entry is the oldest page; interleaved entries drop the claim", async () => {
    const oneEntry = ["pkg/a", "pkg/b", "pkg/c", "pkg/d", "pkg/e"];
    const single = await kit(scripted({ paths: oneEntry }).backend).call("glob", { pattern: "*" });
    expect(single.content).toBe("pkg/a\npkg/b\npkg/c\npkg/d\n\n(Showing the oldest 4 of 5 paths. Narrow pattern or path to see the rest.)");
    const interleaved = ["a/1", "b/1", "c/1", "d/1", "a/2", "b/2"];
    const result = await kit(scripted({ paths: interleaved }).backend).call("glob", { pattern: "*" });
    expect(result.content).toBe(
      "a/1\nb/1\nc/1\nd/1\n\n(Showing 4 of 6 paths: a sample across all 4 top-level entries. Narrow pattern or path to see the rest.)",
    );
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
    // Files in path order, whatever order the backend found them in (ripgrep's threads keep none).
    expect(result.content).toBe("Found 3 matches in 2 files.\n\ndocs/b.md\n  1: alpha and omega\n\nsrc/a.ts\n  3: const alpha = 1;\n  9: alpha();");
    expect(requests[0]).toMatchObject({ cwd: "/ws", pattern: "alpha" });
    expect(result.meta).toEqual({
      shape: "matches",
      files: [
        { path: "docs/b.md", matches: [{ lineNumber: 1, line: "alpha and omega" }] },
        {
          path: "src/a.ts",
          matches: [
            { lineNumber: 3, line: "const alpha = 1;" },
            { lineNumber: 9, line: "alpha();" },
          ],
        },
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

  test("a cut line that starts with U+FEFF keeps it, as an uncut one does", async () => {
    const lines = [line(2, `\uFEFF${"x".repeat(3000)}\n`), line(3, "\uFEFFshort\n")];
    const result = await kit(scripted({ files: [{ path: "f", lines }] }).backend).call("grep", { pattern: "x" });
    expect(result.content).toContain(`  2: \uFEFF${"x".repeat(1997)} … [line cut at 2000 bytes]\n`);
    expect(result.content).toContain("  3: \uFEFFshort");
  });

  test("the page is the first matches in path order: a later-found file that sorts first displaces the tail", async () => {
    const spill = createMemorySpillStore();
    const many = (path: string, from: number, count: number) => ({
      path,
      lines: Array.from({ length: count }, (_, i) => line(from + i, `${path} ${from + i}`)),
    });
    // Found in this order (as ripgrep's threads might); in path order b/ comes before c.ts, and a.ts first.
    const { backend } = scripted({ files: [many("c.ts", 1, 200), many("b/x.ts", 1, 100), many("a.ts", 1, 30), many("d.ts", 1, 5)] });
    const result = await kit(backend, { spill }).call("grep", { pattern: "." });
    const groups = result.content.split("\n").filter((l) => /^[a-z]/.test(l) && !l.startsWith("Found"));
    expect(groups).toEqual(["a.ts", "b/x.ts", "c.ts"]);
    expect(result.content).toContain("  120: c.ts 120\n\n(All 335 matches are in spill:grep/1;");
    expect(result.content).not.toContain("c.ts 121");
    // The spill keeps the order the backend found them in.
    expect(
      spill
        .get("spill:grep/1")
        ?.split("\n")
        .filter((l) => /^[a-z]/.test(l)),
    ).toEqual(["c.ts", "b/x.ts", "a.ts", "d.ts"]);
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
    expect(unsaved.content).toMatch(/ {2}250: hit 250\n\n\(Narrow pattern, path or include to see the rest\.\)$/);
  });

  test("files_with_matches lists the files in path order; count adds each file's matching lines", async () => {
    const { backend } = scripted({ files });
    const listed = await kit(backend).call("grep", { pattern: "alpha", output_mode: "files_with_matches" });
    expect(listed.content).toBe("Found 2 files with matches.\n\ndocs/b.md\nsrc/a.ts");
    expect(listed.meta).toEqual({ shape: "paths", files: ["docs/b.md", "src/a.ts"], truncated: false, total: 2 });
    const counted = await kit(backend).call("grep", { pattern: "alpha", output_mode: "count" });
    expect(counted.content).toBe("Found 2 files with matches (3 matching lines).\n\ndocs/b.md: 1\nsrc/a.ts: 2");
    expect(counted.meta).toEqual({
      shape: "counts",
      files: [
        { path: "docs/b.md", count: 1 },
        { path: "src/a.ts", count: 2 },
      ],
      truncated: false,
      total: 2,
      matches: 3,
    });
    const content = await kit(backend).call("grep", { pattern: "alpha", output_mode: "content" });
    expect(content.content).toBe((await kit(backend).call("grep", { pattern: "alpha" })).content);
    expect((await kit(backend).call("grep", { pattern: "alpha", output_mode: "lines" })).error?.code).toBe("TOOL_INVALID_ARGUMENTS");
  });

  test.for([["files_with_matches"], ["count"]])("%s over the cap: the first files in path order, all of them spilled in the order found", async ([mode]) => {
    const spill = createMemorySpillStore();
    const many = Array.from({ length: 260 }, (_, i) => ({ path: `f${String(259 - i).padStart(3, "0")}.ts`, lines: [line(1, "x"), line(2, "x")] }));
    const { backend } = scripted({ files: many });
    const result = await kit(backend, { spill }).call("grep", { pattern: "x", output_mode: mode });
    const counts = mode === "count" ? " (520 matching lines)" : "";
    const suffix = mode === "count" ? ": 2" : "";
    expect(result.content.split("\n")[0]).toBe(`Found 260 files with matches${counts}; showing the first 250 in path order.`);
    expect(result.content).toContain(`\n\nf000.ts${suffix}\n`);
    expect(result.content).toContain(`\nf249.ts${suffix}\n\n(All 260 files are in spill:grep/1;`);
    expect(result.content).not.toContain("f250.ts");
    const spilled = (spill.get("spill:grep/1") ?? "").split("\n");
    expect(spilled.slice(0, 2)).toEqual([`f259.ts${suffix}`, `f258.ts${suffix}`]);
    expect(spilled.length).toBe(261);
    expect(result.meta).toMatchObject({ truncated: true, total: 260, spill: "spill:grep/1" });
  });

  test.for([["files_with_matches"], ["count"]])("%s with nothing found says so as content mode does", async ([mode]) => {
    const { backend } = scripted({ files: [] });
    expect((await kit(backend).call("grep", { pattern: "zzz", output_mode: mode })).content).toBe(
      'No matches for "zzz" (hidden, ignored and binary files were skipped; name them with path or include to search them).',
    );
  });

  test("-i and type reach the backend as caseInsensitive and types; an unknown type is an argument error", async () => {
    const { backend, requests } = scripted({ files });
    await kit(backend).call("grep", { pattern: "ALPHA", "-i": true, type: "ts" });
    expect(requests[0]).toMatchObject({ pattern: "ALPHA", caseInsensitive: true, types: ["ts"] });
    await kit(backend).call("grep", { pattern: "alpha", "-i": false });
    expect(requests[1]).not.toHaveProperty("caseInsensitive");
    expect(requests[1]).not.toHaveProperty("types");
    const wrong = await kit(backend).call("grep", { pattern: "alpha", type: "tpyescript" });
    expect(wrong.error?.code).toBe("TOOL_INVALID_ARGUMENTS");
    expect(wrong.content).toContain(`type "tpyescript" is not one of ripgrep's file types`);
    expect(requests).toHaveLength(2);
  });

  test("-i and type on the memory engine: a real search", async () => {
    const fs = createMemoryProvider({ cwd: "/ws", files: { "a.ts": "Alpha\n", "b.js": "ALPHA\n", ".h.ts": "alpha\n" } });
    const toolkit = createToolkit({ fs, search: createEngineBackend(fs) });
    expect((await toolkit.call("grep", { pattern: "alpha", "-i": true, type: "ts", output_mode: "files_with_matches" })).content).toBe(
      "Found 2 files with matches.\n\n.h.ts\na.ts",
    );
    expect((await toolkit.call("grep", { pattern: "alpha", "-i": true, output_mode: "count" })).content).toBe(
      "Found 2 files with matches (2 matching lines).\n\na.ts: 1\nb.js: 1",
    );
    expect((await toolkit.call("grep", { pattern: "alpha", type: "py" })).content).toMatch(
      /^No files were searched: .*, files not of type py and symbolic links/,
    );
  });

  test("-A/-B/-C on the memory engine: context lines marked with -, groups apart separated by --, as ripgrep prints them", async () => {
    const fs = createMemoryProvider({ cwd: "/ws", files: { "ctx.txt": "a\nb hit\nc\nd\ne\nf hit\ng hit\nh\ni\nj\nk\nl hit", "one.txt": "hit\n" } });
    const toolkit = createToolkit({ fs, search: createEngineBackend(fs) });
    const around = await toolkit.call("grep", { pattern: "hit", "-C": 1 });
    expect(around.content).toBe(
      "Found 5 matches in 2 files.\n\nctx.txt\n  1- a\n  2: b hit\n  3- c\n  --\n  5- e\n  6: f hit\n  7: g hit\n  8- h\n  --\n  11- k\n  12: l hit\n\none.txt\n  1: hit",
    );
    expect(around.meta).toMatchObject({ total: 5, truncated: false });
    expect((around.meta as { files: { matches: unknown[] }[] }).files[0]?.matches[0]).toEqual({ lineNumber: 1, line: "a", context: true });
    // -B overrides -C's before; without context, no separators between distant matches.
    const after = await toolkit.call("grep", { pattern: "hit", "-C": 1, "-B": 0, path: "ctx.txt" });
    expect(after.content).toBe("Found 4 matches in 1 file.\n\nctx.txt\n  2: b hit\n  3- c\n  --\n  6: f hit\n  7: g hit\n  8- h\n  --\n  12: l hit");
    expect((await toolkit.call("grep", { pattern: "hit", path: "ctx.txt" })).content).toBe(
      "Found 4 matches in 1 file.\n\nctx.txt\n  2: b hit\n  6: f hit\n  7: g hit\n  12: l hit",
    );
    // Context is for content mode; the per-file modes count matches only.
    expect((await toolkit.call("grep", { pattern: "hit", "-C": 2, output_mode: "count" })).content).toBe(
      "Found 2 files with matches (5 matching lines).\n\nctx.txt: 4\none.txt: 1",
    );
    expect((await toolkit.call("grep", { pattern: "hit", "-C": 11 })).error?.code).toBe("TOOL_INVALID_ARGUMENTS");
  });

  test("multiline: asks the backend for -U; a match spanning lines shows (and counts) each line, numbered from its first", async () => {
    const block = { line: { text: "foo\nbar\nfoo\nbar\n" }, lineNumber: 1, absoluteOffset: 0, submatches: [] };
    const { backend, requests } = scripted({ files: [{ path: "a.txt", lines: [block, line(6, "foo bar\n")] }] });
    const toolkit = kit(backend);
    const shown = await toolkit.call("grep", { pattern: "o\\nb|o b", multiline: true });
    expect(shown.content).toBe("Found 5 matches in 1 file.\n\na.txt\n  1: foo\n  2: bar\n  3: foo\n  4: bar\n  6: foo bar");
    expect(requests[0]).toMatchObject({ pattern: "o\\nb|o b", multiline: true });
    expect((await toolkit.call("grep", { pattern: "o\\nb", multiline: true, output_mode: "count" })).content).toBe(
      "Found 1 file with matches (5 matching lines).\n\na.txt: 5",
    );
    await toolkit.call("grep", { pattern: "x" });
    expect(requests.at(-1)).not.toHaveProperty("multiline");
  });

  test("multiline on the memory engine: a coded refusal that says why and what to do instead", async () => {
    const fs = createMemoryProvider({ cwd: "/ws", files: { "a.txt": "foo\nbar\n" } });
    const toolkit = createToolkit({ fs, search: createEngineBackend(fs) });
    const refused = await toolkit.call("grep", { pattern: "foo\\nbar", multiline: true });
    expect(refused.error?.code).toBe("SEARCH_INVALID_PATTERN");
    expect(refused.content).toMatch(/cannot search multiline patterns: it matches one line at a time\. Search without multiline/);
  });

  test("over the cap with context: a displaced match takes its context along, keeping the after-context of the one before", async () => {
    const spill = createMemorySpillStore();
    const ctx = (lineNumber: number, text: string) => ({ ...line(lineNumber, text), context: true as const });
    // z.ts is found first; a.ts sorts before it and displaces z.ts's last match.
    const events: GrepEvent[] = [
      { type: "line", path: "z.ts", line: line(1, "z1") },
      { type: "line", path: "z.ts", line: ctx(2, "z2") },
      { type: "line", path: "z.ts", line: ctx(4, "z4") },
      { type: "line", path: "z.ts", line: line(5, "z5") },
      { type: "line", path: "z.ts", line: ctx(6, "z6") },
      { type: "end", path: "z.ts" },
      { type: "line", path: "a.ts", line: ctx(1, "a1") },
      { type: "line", path: "a.ts", line: line(2, "a2") },
      { type: "end", path: "a.ts" },
    ];
    const backend = streaming({ events: () => events }).backend;
    const fs = createMemoryProvider({ cwd: "/ws" });
    const toolkit = createToolkit({ fs, search: backend, spill, limits: { grepMaxMatches: 2 } });
    const result = await toolkit.call("grep", { pattern: "x", "-C": 1 });
    expect(result.content.split("\n\n(")[0]).toBe(
      "Found 3 matches in 2 files; showing the first 2 (in 2 files).\n\na.ts\n  1- a1\n  2: a2\n\nz.ts\n  1: z1\n  2- z2",
    );
    expect(spill.get("spill:grep/1")).toBe("z.ts\n  1: z1\n  2- z2\n  --\n  4- z4\n  5: z5\n  6- z6\n\na.ts\n  1- a1\n  2: a2\n");
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
    for (const [tool, args] of [
      ["glob", { pattern: "*" }],
      ["grep", { pattern: "x" }],
    ] as const) {
      const result = await toolkit.call(tool, args);
      expect([result.error?.code, result.content]).toEqual(["SEARCH_FAILED", expect.stringContaining("no search backend")]);
    }
  });
});

// A backend that streams what `paths` and `events` produce, one item at a time, as a real one does, and never
// builds a whole result (asking it for one fails). It reads what the tool's sink holds after every push.
function streaming(options: { paths?: () => Iterable<string>; events?: () => Iterable<GrepEvent> }) {
  const seen = { items: 0, peakHeld: 0, stopped: false, waited: 0 };
  const watch = async <T>(items: Iterable<T>, sink: ResultSink<T>): Promise<StreamOutcome> => {
    for (const item of items) {
      seen.items++;
      const verdict = sink.push(item);
      // Often enough to see any growth with the input (a leak would show by the first thousand items).
      if (seen.items % 1000 === 1 || verdict === "stop") seen.peakHeld = Math.max(seen.peakHeld, held(sink));
      if (verdict === "stop") {
        seen.stopped = true;
        return { problems: [], stopped: true };
      }
      const wait = sink.ready?.();
      if (wait) {
        seen.waited++;
        await wait;
      }
    }
    seen.peakHeld = Math.max(seen.peakHeld, held(sink));
    return { problems: [], stopped: false };
  };
  const backend: SearchBackend & WholeResults = {
    name: "streaming",
    files: () => Promise.reject(new Error("the whole result was asked for")),
    grep: () => Promise.reject(new Error("the whole result was asked for")),
    streamFiles: (_request, sink) => watch(options.paths?.() ?? [], sink),
    streamGrep: (_request, sink) => watch(options.events?.() ?? [], sink),
  };
  return { backend, seen };
}

// What the tool's consumer holds, by its own count (the test fails if it stops reporting one).
function held(sink: object): number {
  const count = (sink as { held?: unknown }).held;
  if (typeof count !== "number") throw new Error("the sink does not report what it holds");
  return count;
}

function* manyPaths(count: number, entries: number): Generator<string> {
  for (let i = 0; i < count; i++) yield `e${i % entries}/f${i}`;
}

function* manyMatches(count: number, perFile: number): Generator<GrepEvent> {
  for (let i = 0; i < count; i++) {
    const path = `dir${Math.floor(i / perFile) % 10}/file${Math.floor(i / perFile)}.ts`;
    yield { type: "line", path, line: line(i + 1, `function f${i}() {}\n`) };
    if ((i + 1) % perFile === 0 || i + 1 === count) yield { type: "end", path };
  }
}

describe("results of any size", () => {
  test("glob over a million paths answers the sampled page and spills them all, holding only what the page needs", async () => {
    const spill = createMemorySpillStore();
    const { backend, seen } = streaming({ paths: () => manyPaths(1_000_000, 125_000) });
    const result = await kit(backend, { spill, globMaxResults: 100 }).call("glob", { pattern: "*" });
    expect(result.isError).toBe(false);
    const [page, footer] = result.content.split("\n\n");
    expect(page?.split("\n")).toEqual(Array.from({ length: 100 }, (_, i) => `e${i}/f${i}`));
    expect(footer).toBe(
      "(Showing 100 of 1000000 paths: a sample across 100 of 125000 top-level entries; narrow path to one entry " +
        "to list it whole. The full list, oldest first, is in spill:glob/1; ask the host for it; the tools cannot open it.)",
    );
    const spilled = spill.get("spill:glob/1") ?? "";
    expect([spilled.length, spilled.startsWith("e0/f0\ne1/f1\n"), spilled.endsWith("e124999/f999999\n")]).toEqual([
      [...manyPaths(1_000_000, 125_000)].reduce((n, p) => n + p.length + 1, 0),
      true,
      true,
    ]);
    // The head and the sampler's per-entry paths (at most four times the page): not the million.
    expect(seen.peakHeld).toBeLessThanOrEqual(100 + 4 * 100);
  });

  test("grep over a million matches answers the first page and spills the rest, holding only the page", async () => {
    const spill = createMemorySpillStore();
    const { backend, seen } = streaming({ events: () => manyMatches(1_000_000, 100) });
    const result = await kit(backend, { spill }).call("grep", { pattern: "function" });
    expect(result.content.split("\n")[0]).toBe("Found 1000000 matches in 10000 files; showing the first 250 (in 3 files).");
    // The first 250 in path order: dir0's files sort as file0, file10, file100, ...
    const page = result.content.split("\n").filter((l) => l.startsWith("dir"));
    expect(page).toEqual(["dir0/file0.ts", "dir0/file10.ts", "dir0/file100.ts"]);
    expect(result.content).toMatch(/\n {2}10050: function f10049\(\) \{\}\n\n\(All 1000000 matches are in spill:grep\/1; /);
    const spilled = spill.get("spill:grep/1") ?? "";
    expect(spilled.startsWith("dir0/file0.ts\n  1: function f0() {}\n  2: function f1() {}\n")).toBe(true);
    expect(spilled.endsWith("\n\ndir9/file9999.ts\n  999901: function f999900() {}\n") || spilled.endsWith("  1000000: function f999999() {}\n")).toBe(true);
    expect(spilled.split("\n").filter((l) => l.startsWith("  ")).length).toBe(1_000_000);
    expect(seen.peakHeld).toBeLessThanOrEqual(250);
  });

  test("the spill limit stops the search; the footer says how many were seen and that it is a lower bound", async () => {
    const spill = createMemorySpillStore();
    const glob = streaming({ paths: () => manyPaths(10_000, 3) });
    const toolkit = createToolkit({ fs: createMemoryProvider({ cwd: "/ws" }), search: glob.backend, spill, limits: { globMaxResults: 4, spillBytes: 100 } });
    const listed = await toolkit.call("glob", { pattern: "*" });
    // Each line is 6 to 7 bytes: the list passes 100 bytes at its 16th path, and the search stops there.
    expect([glob.seen.stopped, glob.seen.items]).toEqual([true, 16]);
    expect(listed.content).toBe(
      "e0/f0\ne0/f3\ne1/f1\ne2/f2\n\n(Showing 4 of at least 16 paths: a sample across 3 of at least 3 top-level entries. " +
        "The search stopped once the full list passed 100 bytes; its first 16 paths, oldest first, are in spill:glob/1; ask the host " +
        "for it; the tools cannot open it. Narrow pattern or path to list the rest.)",
    );
    expect(spill.get("spill:glob/1")).toBe(`${[...manyPaths(16, 3)].join("\n")}\n`);
    expect(listed.meta).toMatchObject({ total: 16, lowerBound: true, truncated: true });

    const grep = streaming({ events: () => manyMatches(10_000, 5) });
    const few = createToolkit({ fs: createMemoryProvider({ cwd: "/ws" }), search: grep.backend, spill, limits: { grepMaxMatches: 2, spillBytes: 100 } });
    const found = await few.call("grep", { pattern: "function" });
    expect(grep.seen.stopped).toBe(true);
    expect(found.content.split("\n")[0]).toBe("Found at least 4 matches in at least 1 file; showing the first 2 (in 1 file).");
    expect(found.content).toContain("The search stopped once the full list passed 100 bytes; its first 4 matches are in spill:grep/2;");
    expect(spill.get("spill:grep/2")).toBe("dir0/file0.ts\n  1: function f0() {}\n  2: function f1() {}\n  3: function f2() {}\n  4: function f3() {}\n");
  });

  test("without a store nothing stops the search: the page and exact counts, and no list is claimed", async () => {
    const { backend, seen } = streaming({ paths: () => manyPaths(50_000, 7) });
    const result = await kit(backend, { globMaxResults: 10 }).call("glob", { pattern: "*" });
    expect(seen.stopped).toBe(false);
    expect(result.content).toMatch(/\n\n\(Showing 10 of 50000 paths: a sample across all 7 top-level entries\. Narrow pattern or path to see the rest\.\)$/);
  });

  test("a store that fails part-way loses the list, not the answer: the counts stay exact", async () => {
    let written = 0;
    const failing: SpillStore = {
      save: () => Promise.reject(new Error("unused")),
      begin: () => ({
        get size() {
          return written;
        },
        write: (text) => void (written += text.length),
        ready: () => undefined,
        finish: () => Promise.reject(new Error("disk full")),
        abort: async () => undefined,
      }),
    };
    const { backend } = streaming({ paths: () => manyPaths(1000, 2) });
    const result = await kit(backend, { spill: failing }).call("glob", { pattern: "*" });
    expect(result.content).toMatch(
      /\(Showing 4 of 1000 paths: a sample across all 2 top-level entries\. The complete list could not be saved: disk full; narrow pattern or path to see the rest\.\)/,
    );
  });

  test("a store that falls behind holds the search back", async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let behind = true;
    const store: SpillStore = {
      save: () => Promise.reject(new Error("unused")),
      begin: () => ({
        size: 0,
        write: () => undefined,
        ready: () => (behind ? slow : undefined),
        finish: async () => ({ locator: "slow", hint: "it was slow" }),
        abort: async () => undefined,
      }),
    };
    const { backend, seen } = streaming({ paths: () => manyPaths(100, 2) });
    const call = kit(backend, { spill: store }).call("glob", { pattern: "*" });
    await new Promise((resolve) => setImmediate(resolve));
    expect([seen.items, seen.waited]).toEqual([5, 1]);
    behind = false;
    release();
    expect((await call).content).toContain("The full list, oldest first, is in slow; it was slow.");
    expect(seen.items).toBe(100);
  });

  test("a backend without streaming is replayed into the same bounded consumer", async () => {
    const spill = createMemorySpillStore();
    const { backend } = scripted({ paths: [...manyPaths(5000, 3)] });
    const result = await kit(backend, { spill, globMaxResults: 3 }).call("glob", { pattern: "*" });
    expect(result.content).toBe(
      "e0/f0\ne1/f1\ne2/f2\n\n(Showing 3 of 5000 paths: a sample across all 3 top-level entries. The full list, oldest " +
        "first, is in spill:glob/1; ask the host for it; the tools cannot open it.)",
    );
    expect(spill.get("spill:glob/1")?.split("\n").length).toBe(5001);
  });
});

describe("a backend written against the older seam", () => {
  test("whole results only, not migrated: the tools still use it, replaying its results", async () => {
    const legacy = {
      name: "legacy",
      files: async () => ({ paths: ["a.ts", "b.ts"], problems: [] }),
      grep: async () => ({ files: [], problems: [] }),
    } as unknown as SearchBackend;
    const result = await kit(legacy).call("glob", { pattern: "*.ts" });
    expect([result.isError, result.content]).toEqual([false, "a.ts\nb.ts"]);
  });
});
