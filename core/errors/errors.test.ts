import { describe, expect, test } from "vitest";
import { FsError } from "../fs/errors.ts";
import { SearchError } from "../search/errors.ts";
import { ToolError } from "../tools/types.ts";
import { boundMessage, cutInput, MESSAGE_MAX, QUOTED_INPUT_MAX, quoteInput } from "./mod.ts";

describe("quoting user input in messages", () => {
  test("short input is quoted whole, in the quotes asked for", () => {
    expect(quoteInput("a/b.txt")).toBe('"a/b.txt"');
    expect(quoteInput("[z-a]", "'")).toBe("'[z-a]'");
    expect(quoteInput("a\0b", "json")).toBe('"a\\u0000b"');
  });

  test("long input keeps a bounded prefix and says how much is left out", () => {
    const long = "x".repeat(10_000_000);
    expect(quoteInput(long)).toBe(`"${"x".repeat(QUOTED_INPUT_MAX)}…" (${10_000_000 - QUOTED_INPUT_MAX} more characters)`);
    expect(quoteInput(long, "json").length).toBeLessThan(QUOTED_INPUT_MAX + 40);
  });

  test("a cut never splits a surrogate pair", () => {
    const text = `${"x".repeat(QUOTED_INPUT_MAX - 1)}😀tail`;
    const cut = cutInput(text);
    expect(cut.text).toBe("x".repeat(QUOTED_INPUT_MAX - 1));
    expect(cut.omitted).toBe(6);
  });
});

describe("every coded error's message is bounded", () => {
  test("a message over the limit keeps its start and its end", () => {
    const message = `Cannot read "${"p".repeat(10_000_000)}": no such file`;
    const bounded = boundMessage(message);
    expect(bounded.length).toBeLessThanOrEqual(MESSAGE_MAX + 50);
    expect(bounded.startsWith('Cannot read "ppp')).toBe(true);
    expect(bounded.endsWith('ppp": no such file')).toBe(true);
    expect(bounded).toContain(`…[${message.length - MESSAGE_MAX} characters left out]…`);
    expect(boundMessage("short")).toBe("short");
  });

  test.each([
    ["FsError", (m: string) => new FsError("FS_NOT_FOUND", m)],
    ["SearchError", (m: string) => new SearchError("SEARCH_FAILED", m)],
    ["ToolError", (m: string) => new ToolError("TOOL_INVALID_ARGUMENTS", m)],
  ])("%s", (_, make) => {
    expect(make("y".repeat(1_000_000)).message.length).toBeLessThanOrEqual(MESSAGE_MAX + 50);
  });
});
