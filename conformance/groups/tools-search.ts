import {
  createFsSpillStore,
  createToolkit,
  type SearchBackend,
  type Toolkit,
  type ToolResult,
  type WholeResults,
  type ToolkitOptions,
} from "../../core/mod.ts";
import { SEED_MATCHING_FILES, seedTree, seedWorkspaceTree } from "../../fixtures/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceCase, ConformanceGroup } from "../suite.ts";
import { needsSearch } from "../util.ts";
import { excludes, fails, includes, ok } from "./tools-support.ts";

const T0 = Date.UTC(2025, 0, 1);

/** A toolkit with the subject's search backend and a spill store in the probe's outside directory. */
function searchKit(subject: Subject, options?: Omit<ToolkitOptions, "fs">): Toolkit {
  return createToolkit({
    fs: subject.provider,
    workspace: subject.probe.root,
    ...(subject.search ? { search: subject.search } : {}),
    spill: createFsSpillStore(subject.provider, `${subject.probe.outside}/spill`),
    ...options,
  });
}

/** Writes files with distinct, increasing modification times in the order given. */
async function seedInOrder(subject: Subject, paths: readonly string[], content = "x\n"): Promise<void> {
  for (const [i, path] of paths.entries()) {
    await subject.probe.writeFile(path, content);
    await subject.probe.setMtime(path, T0 + i * 1000);
  }
}

/**
 * The result's link to its spill (issue 19, item 2): one resource_link, text/plain, whose file: URI is the path
 * the footer names; returns its description.
 */
function spillLink(result: ToolResult): string | undefined {
  assertEquals(result.parts?.length, 1);
  const link = result.parts![0]!;
  assert(link.type === "resource_link", "the part is a resource link");
  assertEquals(
    [link.mediaType, decodeURIComponent(new URL(link.uri).pathname), `${link.name}`],
    ["text/plain", String(result.meta.spill), String(result.meta.spill).slice(String(result.meta.spill).lastIndexOf("/") + 1)],
  );
  return link.description;
}

const sortedLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .sort();

const cases: ConformanceCase[] = [
  {
    name: "glob * within the cap lists every file, oldest first, and nothing else",
    async run(subject) {
      const order = ["z.txt", "a/c.txt", "m.txt", "d/q.txt", "B.txt", ".env", "a-c/x"];
      await seedInOrder(subject, order);
      await subject.probe.mkdir("empty/dir");
      const result = await ok(searchKit(subject), "glob", { pattern: "*" });
      assertEquals([result.content, result.parts], [order.join("\n"), undefined]);
    },
  },
  {
    name: "a pattern without a slash matches names at any depth; with one, paths from the search root",
    async run(subject) {
      await seedInOrder(subject, ["a.ts", "src/b.ts", "src/deep/c.ts", "lib/src/d.ts", "src/e.js"]);
      const kit = searchKit(subject);
      assertEquals((await ok(kit, "glob", { pattern: "*.ts" })).content, "a.ts\nsrc/b.ts\nsrc/deep/c.ts\nlib/src/d.ts");
      assertEquals((await ok(kit, "glob", { pattern: "src/*.ts" })).content, "src/b.ts");
      assertEquals((await ok(kit, "glob", { pattern: "src/**/*.ts" })).content, "src/b.ts\nsrc/deep/c.ts");
    },
  },
  {
    name: "a slash pattern under an explicit path matches from that path",
    async run(subject) {
      await seedInOrder(subject, ["pkg/sub/a.ts", "pkg/sub/b.js", "sub/c.ts"]);
      assertEquals((await ok(searchKit(subject), "glob", { pattern: "sub/*.ts", path: "pkg" })).content, "pkg/sub/a.ts");
    },
  },
  {
    name: "glob includes hidden and ignored files and leaves out VCS directories",
    async run(subject) {
      await seedInOrder(subject, [".gitignore", "build/out.js", ".hidden/x.txt", ".git/HEAD", "sub/.git/config", ".svn/entries", ".hg/store", "src/a.txt"]);
      await subject.probe.writeFile(".gitignore", "build/\n");
      const listed = sortedLines((await ok(searchKit(subject), "glob", { pattern: "*" })).content);
      assertEquals(listed, [".gitignore", ".hidden/x.txt", "build/out.js", "src/a.txt"]);
    },
  },
  {
    name: "an over-cap glob is a sample across top-level entries with the footer and a readable spill",
    async run(subject) {
      const order = ["archive/a.ts", "archive/b.ts", "archive/c.ts", "docs/guide.md", "src/index.ts", "test/spec.ts", "top.txt", "notes.md"];
      await seedInOrder(
        subject,
        order.map((p) => `tree/${p}`),
      );
      const kit = searchKit(subject, { limits: { globMaxResults: 4 } });
      const result = await ok(kit, "glob", { pattern: "*", path: "tree" });
      const [page, footer] = result.content.split("\n\n");
      assertEquals(page, "tree/archive/a.ts\ntree/docs/guide.md\ntree/src/index.ts\ntree/test/spec.ts");
      includes(footer ?? "", "Showing 4 of 8 paths: a sample across 4 of 6 top-level entries", "narrow path", "spill/glob-");
      const spillPath = String(result.meta.spill);
      const spilled = await ok(kit, "read", { path: spillPath });
      includes(spilled.content, `1: tree/archive/a.ts\n`, `8: tree/notes.md\n`, "(End of file: 8 lines.)");
    },
  },
  {
    name: "the seed workspace: glob * reaches all 22 entries and the spill keeps all 10,030 paths in order",
    async run(subject) {
      const tree = seedWorkspaceTree();
      await seedTree(subject.probe, tree);
      const kit = searchKit(subject);
      const result = await ok(kit, "glob", { pattern: "*" });
      const page = (result.content.split("\n\n")[0] ?? "").split("\n");
      assertEquals(page.length, 100);
      assertEquals(new Set(page.map((p) => p.split("/")[0])).size, 22);
      includes(result.content, `Showing 100 of ${SEED_MATCHING_FILES} paths: a sample across all 22 top-level entries`);
      const expected = tree.files
        .filter((f) => !f.path.startsWith(".git/"))
        .sort((a, b) => (a.mtimeMs ?? 0) - (b.mtimeMs ?? 0))
        .map((f) => f.path);
      const spill = await subject.probe.readFile(String(result.meta.spill));
      assertEquals(new TextDecoder().decode(spill).split("\n").slice(0, -1), expected);
      assertEquals(spillLink(result), "all 10,030 paths, oldest first");
      const tail = await ok(kit, "read", { path: String(result.meta.spill), offset: SEED_MATCHING_FILES - 1 });
      includes(tail.content, `${SEED_MATCHING_FILES}: CHANGELOG.md`);
    },
  },
  {
    name: "the spill limit stops a large glob: the footer's counts are lower bounds and the spill holds what was seen, in order",
    async run(subject) {
      const order = Array.from({ length: 60 }, (_, i) => `big/${["a", "b", "c"][i % 3]}/f${String(i).padStart(2, "0")}.txt`);
      await seedInOrder(subject, order);
      // 14-byte lines: the list passes 100 bytes at its eighth path.
      const kit = searchKit(subject, { limits: { globMaxResults: 4, spillBytes: 100 } });
      const result = await ok(kit, "glob", { pattern: "*", path: "big" });
      const [page, footer] = result.content.split("\n\n");
      assertEquals(page, "big/a/f00.txt\nbig/a/f03.txt\nbig/b/f01.txt\nbig/c/f02.txt");
      includes(footer ?? "", "Showing 4 of at least 8 paths: a sample across 3 of at least 3 top-level entries", "passed 100 bytes; its first 8 paths");
      assertEquals(new TextDecoder().decode(await subject.probe.readFile(String(result.meta.spill))), `${order.slice(0, 8).join("\n")}\n`);
      assertEquals([result.meta.total, result.meta.lowerBound], [8, true]);
      assertEquals(spillLink(result), "the first 8 paths, oldest first (the search stopped at the spill limit)");
    },
  },
  {
    name: "grep's spill limit stops the search the same way",
    async run(subject) {
      await subject.probe.writeFile("big.txt", Array.from({ length: 400 }, (_, i) => `hit number ${i + 1}\n`).join(""));
      const kit = searchKit(subject, { limits: { grepMaxMatches: 3, spillBytes: 120 } });
      const result = await ok(kit, "grep", { pattern: "hit" });
      includes(result.content, "Found at least 7 matches in at least 1 file; showing the first 3 (in 1 file).", "its first 7 matches are in");
      const spilled = new TextDecoder().decode(await subject.probe.readFile(String(result.meta.spill)));
      assertEquals(spilled, `big.txt\n${Array.from({ length: 7 }, (_, i) => `  ${i + 1}: hit number ${i + 1}\n`).join("")}`);
      assertEquals(spillLink(result), "the first 7 matches, by file (the search stopped at the spill limit)");
    },
  },
  {
    name: "glob over a million paths: the sampled page, exact counts, and every path in the spill",
    // The million paths come from a synthetic backend (a real tree that size would take minutes to build);
    // the spill goes through the subject's own provider, as it would in production.
    skip: () => undefined,
    async run(subject) {
      const count = 1_000_000;
      const entries = 125_000;
      // `files` is there to fail the test should anything ask for the whole result.
      const search: SearchBackend & Pick<WholeResults, "files"> = {
        name: "a million paths",
        files: () => Promise.reject(new Error("the whole result was asked for")),
        streamGrep: () => Promise.reject(new Error("not used")),
        async streamFiles(_request, sink) {
          for (let i = 0; i < count; i++) {
            if (sink.push(`e${i % entries}/f${i}`) === "stop") return { problems: [], stopped: true };
            if (i % 4096 === 4095) await sink.ready?.();
          }
          return { problems: [], stopped: false };
        },
      };
      const kit = searchKit(subject, { search });
      const result = await ok(kit, "glob", { pattern: "*" });
      const [page, footer] = result.content.split("\n\n");
      assertEquals(page, Array.from({ length: 100 }, (_, i) => `e${i}/f${i}`).join("\n"));
      includes(footer ?? "", `Showing 100 of ${count} paths: a sample across 100 of ${entries} top-level entries`, "The full list, oldest first, is in");
      const bytes = await subject.probe.readFile(String(result.meta.spill));
      assert(bytes !== undefined, "the spill exists");
      let lines = 0;
      for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
      assertEquals(lines, count, "lines in the spill");
      const decoder = new TextDecoder();
      assertEquals(decoder.decode(bytes.subarray(0, 12)), "e0/f0\ne1/f1\n");
      assertEquals(decoder.decode(bytes.subarray(bytes.length - 16)), "e124999/f999999\n");
    },
  },
  {
    name: "glob shows paths outside the workspace absolute",
    async run(subject) {
      await subject.probe.writeFile(`${subject.probe.outside}/elsewhere/x.md`, "x");
      assertEquals(
        (await ok(searchKit(subject), "glob", { pattern: "*.md", path: `${subject.probe.outside}/elsewhere` })).content,
        `${subject.probe.outside}/elsewhere/x.md`,
      );
    },
  },
  {
    name: "a malformed glob fails SEARCH_INVALID_PATTERN with ripgrep's reason",
    async run(subject) {
      await seedInOrder(subject, ["a.txt"]);
      includes((await fails(searchKit(subject), "glob", { pattern: "[z-a]" }, "SEARCH_INVALID_PATTERN")).content, "invalid range");
      includes((await fails(searchKit(subject), "glob", { pattern: "{a,b" }, "SEARCH_INVALID_PATTERN")).content, "unclosed alternate group");
    },
  },
  {
    name: "hostile patterns stay patterns",
    async run(subject) {
      await seedInOrder(subject, ["--files", "-e", "a.txt"]);
      await subject.probe.writeFile("a.txt", "--pre=sh\n-e\n$(touch pwned)\n");
      const kit = searchKit(subject);
      assertEquals((await ok(kit, "glob", { pattern: "--files" })).content, "--files");
      assertEquals((await ok(kit, "glob", { pattern: "-e" })).content, "-e");
      includes((await ok(kit, "grep", { pattern: "--pre=sh" })).content, "a.txt\n  1: --pre=sh");
      includes((await ok(kit, "grep", { pattern: "-e", include: "a.txt" })).content, "  2: -e");
      includes((await ok(kit, "grep", { pattern: "\\$\\(touch" })).content, "  3: $(touch pwned)");
      assertEquals(await subject.probe.info("pwned"), undefined);
    },
  },
  {
    name: "grep groups matching lines by file, case-sensitively",
    async run(subject) {
      await subject.probe.writeFile("a.txt", "Alpha\nalpha beta\nno\nalpha\r\n");
      await subject.probe.writeFile("sub/b.txt", "gamma alpha\n");
      const result = await ok(searchKit(subject), "grep", { pattern: "alpha" });
      const files = (result.meta.files as { path: string; matches: unknown[] }[]).sort((x, y) => (x.path < y.path ? -1 : 1));
      assertEquals(files, [
        {
          path: "a.txt",
          matches: [
            { lineNumber: 2, line: "alpha beta" },
            { lineNumber: 4, line: "alpha" },
          ],
        },
        { path: "sub/b.txt", matches: [{ lineNumber: 1, line: "gamma alpha" }] },
      ]);
      includes(result.content, "Found 3 matches in 2 files.", "a.txt\n  2: alpha beta\n  4: alpha");
    },
  },
  {
    name: "grep skips hidden, ignored and binary files unless include or path names them",
    async run(subject) {
      await subject.probe.mkdir(".git");
      await subject.probe.writeFile(".gitignore", "ignored/\n");
      await subject.probe.writeFile("visible.txt", "needle\n");
      await subject.probe.writeFile(".hidden.txt", "needle\n");
      await subject.probe.writeFile("ignored/x.txt", "needle\n");
      await subject.probe.writeFile("bin.dat", Uint8Array.of(0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00, 0x0a));
      const kit = searchKit(subject);
      assertEquals(
        ((await ok(kit, "grep", { pattern: "needle" })).meta.files as { path: string }[]).map((f) => f.path),
        ["visible.txt"],
      );
      assertEquals(
        ((await ok(kit, "grep", { pattern: "needle", include: ".hidden.txt" })).meta.files as { path: string }[]).map((f) => f.path),
        [".hidden.txt"],
      );
      includes((await ok(kit, "grep", { pattern: "needle", path: "ignored/x.txt" })).content, "ignored/x.txt\n  1: needle");
    },
  },
  {
    name: "grep where every file is hidden or ignored says that nothing was searched, on every backend",
    async run(subject) {
      await subject.probe.mkdir(".git");
      await subject.probe.writeFile(".gitignore", "*.log\n");
      await subject.probe.writeFile("app.log", "needle\n");
      await subject.probe.writeFile(".env", "needle\n");
      const kit = searchKit(subject);
      const result = await ok(kit, "grep", { pattern: "needle" });
      includes(result.content, "No files were searched: grep skips hidden files, files ignored by .gitignore/.ignore/.rgignore and symbolic links");
      assertEquals(
        ((await ok(kit, "grep", { pattern: "needle", include: "*.log" })).meta.files as { path: string }[]).map((f) => f.path),
        ["app.log"],
      );
      includes((await ok(kit, "grep", { pattern: "elsewhere", include: "*.log" })).content, 'No matches for "elsewhere"');
    },
  },
  {
    name: "grep on a file path searches that file",
    async run(subject) {
      await subject.probe.writeFile("src/one.ts", "let x = 1;\nx = 2;\n");
      await subject.probe.writeFile("src/two.ts", "x = 3;\n");
      assertEquals(
        (await ok(searchKit(subject), "grep", { pattern: "^x =", path: "src/one.ts" })).content,
        "Found 1 match in 1 file.\n\nsrc/one.ts\n  2: x = 2;",
      );
    },
  },
  {
    name: "a malformed regex fails SEARCH_INVALID_PATTERN",
    async run(subject) {
      await subject.probe.writeFile("a.txt", "x\n");
      await fails(searchKit(subject), "grep", { pattern: "(unclosed" }, "SEARCH_INVALID_PATTERN");
      await fails(searchKit(subject), "grep", { pattern: "a(?=b)" }, "SEARCH_INVALID_PATTERN");
    },
  },
  {
    name: "over 250 matches: the first 250 inline and all of them in a spill grep can search",
    async run(subject) {
      const lines = Array.from({ length: 400 }, (_, i) => `hit number ${i + 1}`).join("\n");
      await subject.probe.writeFile("big.txt", `${lines}\n`);
      const kit = searchKit(subject);
      const result = await ok(kit, "grep", { pattern: "hit" });
      includes(result.content, "Found 400 matches in 1 file; showing the first 250", "  250: hit number 250", "All 400 matches are in ");
      excludes(result.content, "hit number 251\n");
      const spilled = await ok(kit, "grep", { pattern: "number 399$", path: String(result.meta.spill) });
      includes(spilled.content, "  399: hit number 399");
    },
  },
  {
    name: "a spilled result is owner-only: 0600 in a new 0700 folder; a folder others can write to gets no spill",
    async run(subject) {
      if (!subject.provider.capabilities.fileModes) return; // nothing to check without permission bits
      const lines = Array.from({ length: 300 }, (_, i) => `secret ${i + 1}`).join("\n");
      await subject.probe.writeFile("private.txt", `${lines}\n`);
      await subject.probe.chmod("private.txt", 0o600);
      const result = await ok(searchKit(subject), "grep", { pattern: "secret" });
      const spill = String(result.meta.spill);
      assertEquals((await subject.probe.info(spill))?.mode, 0o600, "the spilled file");
      assertEquals((await subject.probe.info(`${subject.probe.outside}/spill`))?.mode, 0o700, "the spill folder");
      await subject.probe.mkdir(`${subject.probe.outside}/shared`);
      await subject.probe.chmod(`${subject.probe.outside}/shared`, 0o777);
      const shared = createToolkit({
        fs: subject.provider,
        workspace: subject.probe.root,
        ...(subject.search ? { search: subject.search } : {}),
        spill: createFsSpillStore(subject.provider, `${subject.probe.outside}/shared`),
      });
      const unsaved = await ok(shared, "grep", { pattern: "secret" });
      includes(unsaved.content, "could not be saved");
      assertEquals(await subject.probe.list(`${subject.probe.outside}/shared`), []);
    },
  },
  {
    name: "grep previews a non-UTF-8 line with a placeholder",
    async run(subject) {
      await subject.probe.writeFile("latin1.txt", Uint8Array.of(0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x0a));
      includes((await ok(searchKit(subject), "grep", { pattern: "needle" })).content, "  1: [this line is not valid UTF-8");
    },
  },
];

/** glob and grep end to end over the subject's search backend. */
export const toolsSearchGroup: ConformanceGroup = {
  name: "tool-search",
  cases: cases.map((c) => ({ ...c, skip: c.skip ?? needsSearch })),
};
