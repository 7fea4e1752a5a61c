import { afterEach, expect, test, vi } from "vitest";
import { filePatch } from "./patch.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`);

afterEach(() => {
  vi.restoreAllMocks();
});

test("the patch does not depend on the clock: a slow machine gets the same minimal hunks", () => {
  const before = numbered(2000);
  const after = [...before];
  for (let i = 10; i < 2000; i += 100) after[i] = `changed ${i + 1}\n`;
  const quiet = filePatch("f.txt", bytes(before.join("")), bytes(after.join("")));
  // Every look at the clock sees a second go by, as a heavily loaded machine might.
  let now = Date.now();
  vi.spyOn(Date, "now").mockImplementation(() => (now += 1000));
  vi.spyOn(performance, "now").mockImplementation(() => (now += 1000));
  const loaded = filePatch("f.txt", bytes(before.join("")), bytes(after.join("")));
  expect(loaded).toBe(quiet);
  expect(quiet.match(/^@@ /gm)).toHaveLength(20);
  expect(quiet).toContain("-line 11\n+changed 11\n");
});

test("a rewrite of 2,000 lines gives the same exact patch every time", () => {
  const before = numbered(2000);
  const after = [...before].reverse();
  const first = filePatch("f.txt", bytes(before.join("")), bytes(after.join("")));
  expect(filePatch("f.txt", bytes(before.join("")), bytes(after.join("")))).toBe(first);
  const body = first.split("\n").filter((line) => /^[-+ ]/.test(line) && !/^(---|\+\+\+) /.test(line));
  // Applying the hunk gives the new text back: old lines are the context and removals, new ones context and additions.
  expect(body.filter((l) => !l.startsWith("+")).map((l) => `${l.slice(1)}\n`)).toEqual(before);
  expect(body.filter((l) => !l.startsWith("-")).map((l) => `${l.slice(1)}\n`)).toEqual(after);
});

test("a byte-order mark and CRLF line endings are kept in the patch, since applying it must restore them", () => {
  const patch = filePatch("w.txt", bytes("\uFEFFone\r\ntwo\r\n"), bytes("one\r\ntwo\r\n"));
  expect(patch).toContain("-\uFEFFone\r\n+one\r\n");
});
