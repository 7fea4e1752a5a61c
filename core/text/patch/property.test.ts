import { describe, expect, test } from "vitest";
import { patchCase } from "../../../test/patch-cases.ts";
import { applyHunks } from "./apply.ts";
import { parsePatch } from "./parse.ts";

describe("random files and random edits, rendered as a patch", () => {
  test("applyHunks reproduces the edited file exactly (LF/CRLF, BOM, with and without a final newline)", () => {
    let tried = 0;
    let checked = 0;
    for (let seed = 1; checked < 400; seed++) {
      tried++;
      const c = patchCase(seed);
      if (c === undefined) continue;
      checked++;
      const [op] = parsePatch(["*** Begin Patch", "*** Update File: f", ...c.body, "*** End Patch"].join("\n"));
      if (op?.kind !== "update") throw new Error("not an update");
      expect({ seed, text: applyHunks(c.original, op.hunks) }).toEqual({ seed, text: c.expected });
    }
    // The generator rarely fails to find unique context; if it mostly did, the test would check little.
    expect(checked / tried).toBeGreaterThan(0.8);
  });
});
