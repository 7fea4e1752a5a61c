import type { FilesResult, GrepFile, GrepResult, SearchData } from "../../core/mod.ts";
import { isSearchError, searchFiles, searchGrep } from "../../core/mod.ts";
import {
  decodedSearchText,
  type DifferentialCase,
  differentialCases,
  expectedGrepFiles,
  type FilesCase,
  fixtureBytes,
  type GrepCase,
  seedTree,
} from "../../fixtures/mod.ts";
import { AssertionError, assert, assertEquals } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceCase, ConformanceGroup, SubjectTraits } from "../suite.ts";
import { needsSearch, needsSymlinks, under, utf8 } from "../util.ts";

/**
 * ripgrep's own results on the fixture trees (research/rg-semantics.md §8.4, plus cases of its default
 * ignore rules), checked against the subject's search backend: the same paths (as a set where ripgrep's
 * order is unspecified), the same match events field by field, the same refusals.
 */
export const searchDifferentialGroup: ConformanceGroup = {
  name: "search-differential",
  cases: differentialCases.map(toConformanceCase),
};

function toConformanceCase(c: DifferentialCase): ConformanceCase {
  return {
    name: `${c.id} ${c.command}`,
    skip: (traits: SubjectTraits) =>
      needsSearch(traits) ?? (c.setup.symlinks ? needsSymlinks(traits) : undefined) ?? (traits.search === "engine" ? c.engineSkip : undefined),
    async run(subject) {
      await seed(subject, c);
      if (c.kind === "files") await runFiles(subject, c);
      else await runGrep(subject, c);
    },
  };
}

async function seed({ probe }: Subject, c: DifferentialCase): Promise<void> {
  const at = c.setup.at ?? ".";
  await seedTree(probe, c.setup.tree, at);
  for (const link of c.setup.symlinks ?? []) await probe.symlink(link.target, at === "." ? link.path : `${at}/${link.path}`);
}

function backend(subject: Subject) {
  assert(subject.search, "the subject has a search backend");
  return subject.search;
}

async function expectInvalid(work: Promise<unknown>, text: string, refused = false): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!isSearchError(error, "SEARCH_INVALID_PATTERN")) {
      throw new AssertionError(`expected SEARCH_INVALID_PATTERN, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    }
    assert(error.message.includes(text), `the message ${JSON.stringify(error.message)} should contain ${JSON.stringify(text)}`);
    if (refused) assertEquals(error.details.refused, true, "a refusal (details.refused): ripgrep answers this");
    return;
  }
  throw new AssertionError("expected SEARCH_INVALID_PATTERN, but the search succeeded");
}

function cwd(subject: Subject, c: DifferentialCase): string {
  return c.setup.cwd === undefined ? subject.probe.root : under(subject.probe.root, c.setup.cwd);
}

async function runFiles(subject: Subject, c: FilesCase): Promise<void> {
  const request = { ...c.request, cwd: cwd(subject, c) };
  // Whole results come only from the backend's stream (the seam), so every backend is held to it.
  if (c.error !== undefined) return expectInvalid(searchFiles(backend(subject), request), c.error);
  const result: FilesResult = await searchFiles(backend(subject), request);
  checkSearchedBy(result);
  const want = c.paths ?? [];
  if (c.ordered) assertEquals(result.paths, want, "paths in ripgrep's order");
  else assertEquals([...result.paths].sort(), [...want].sort(), "paths (as a set)");
  if (c.absent) {
    const wrong = result.paths.filter(c.absent);
    assertEquals(wrong, [], "paths that must not be listed");
  }
  checkProblems(result.problems, c);
}

// Every result says which backend ran.
function checkSearchedBy(result: FilesResult | GrepResult): void {
  assert(typeof result.searchedBy === "string" && result.searchedBy !== "", `the result names the backend that ran: ${JSON.stringify(result.searchedBy)}`);
}

function checkProblems(problems: readonly string[], c: FilesCase | GrepCase): void {
  const expected = c.kind === "files" ? (c.problems ?? []) : [];
  if (expected.length === 0) {
    assertEquals(problems, [], "no per-path problems");
    return;
  }
  assertEquals(problems.length, expected.length, `problem count (${JSON.stringify(problems)})`);
  for (const fragment of expected) {
    assert(
      problems.some((p) => p.includes(fragment)),
      `a problem should name ${fragment}: ${JSON.stringify(problems)}`,
    );
  }
}

async function runGrep(subject: Subject, c: GrepCase): Promise<void> {
  const request = { ...c.request, cwd: cwd(subject, c) };
  if (c.engineRefuses !== undefined && backend(subject).name === "engine") {
    return expectInvalid(searchGrep(backend(subject), request), c.engineRefuses, true);
  }
  if (c.error !== undefined) return expectInvalid(searchGrep(backend(subject), request), c.error);
  const result: GrepResult = await searchGrep(backend(subject), request);
  checkSearchedBy(result);
  checkProblems(result.problems, c);
  assertEquals(result.nothingSearched === true, c.nothingSearched === true, 'nothingSearched (ripgrep\'s "No files were searched")');
  const files = [...result.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const expected = expectedGrepFiles(c.events ?? "");
  assertEquals(
    files.map((f) => f.path),
    expected.map((f) => f.path),
    "files with matches",
  );
  for (const [i, want] of expected.entries()) {
    const got = files[i] as GrepFile;
    assertEquals(got.binaryOffset, want.binaryOffset, `${want.path}: binary offset`);
    assertEquals(got.lines.length, want.lines.length, `${want.path}: matching lines`);
    const content = searchStream(c, want.path);
    for (const [k, line] of want.lines.entries()) {
      const where = `${want.path} line ${line.lineNumber}`;
      const actual = got.lines[k];
      assert(actual !== undefined, `${where}: missing`);
      const bytes = lineAt(content, line.absoluteOffset, line.span);
      assertEquals(actual.lineNumber, line.lineNumber, `${where}: line number`);
      assertEquals(actual.context === true, line.context, `${where}: a context line (not a match)`);
      assertEquals(actual.absoluteOffset, line.absoluteOffset, `${where}: absolute offset`);
      assertEquals(actual.line, data(bytes, line.lineIsBytes), `${where}: line data`);
      const submatches = line.submatches.map((s) => ({ match: data(bytes.subarray(s.start, s.end), s.isBytes), start: s.start, end: s.end }));
      assertEquals(actual.submatches, submatches, `${where}: submatches`);
    }
  }
}

// The bytes the search sees for a fixture file: decoded where ripgrep decodes (byte-order marks), and with
// NULs as line breaks where its line buffer read a named file.
function searchStream(c: GrepCase, path: string): Uint8Array {
  const decoded = decodedSearchText[path];
  if (decoded !== undefined && c.setup.tree.name === "search-r") return utf8(decoded);
  const file = c.setup.tree.files.find((f) => f.path === path);
  assert(file, `fixture file ${path}`);
  let bytes = fixtureBytes(file);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  return c.nulAsLineBreak ? bytes.map((b) => (b === 0 ? 0x0a : b)) : bytes;
}

// The `span` lines from `offset` (more than one for a multiline match).
function lineAt(content: Uint8Array, offset: number, span: number): Uint8Array {
  let end = offset;
  for (let n = 0; n < span && end < content.length; n++) {
    const nl = content.indexOf(0x0a, end);
    end = nl === -1 ? content.length : nl + 1;
  }
  return content.subarray(offset, end);
}

function data(bytes: Uint8Array, isBytes: boolean): SearchData {
  return isBytes ? { bytes: bytes.slice() } : { text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes) };
}
