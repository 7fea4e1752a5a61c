// The engine's type table is ripgrep's: generated from the pinned binary, and checked against it here so an
// upgrade that changes `--type-list` fails until the table is regenerated (npm run rg-types:update).
import { execFileSync } from "node:child_process";
import { rgPath } from "@vscode/ripgrep";
import { describe, expect, test } from "vitest";
import { RIPGREP_TYPES } from "./type-list.ts";
import { compileTypes, parseTypeList } from "./types.ts";

describe("ripgrep's file types", () => {
  test("the table equals the pinned binary's --type-list", () => {
    const listed = execFileSync(rgPath, ["--no-config", "--type-list"], { encoding: "utf8" });
    expect(RIPGREP_TYPES).toEqual(parseTypeList(listed));
  });

  test("a file matches a type by its name's globs, case-sensitively; folders are left to other rules", () => {
    const types = compileTypes(["make", "ts"]);
    expect(types?.match("Makefile", false)).toBe("include");
    expect(types?.match("GNUmakefile", false)).toBe("include");
    expect(types?.match("x.mk", false)).toBe("include");
    expect(types?.match("a.ts", false)).toBe("include");
    expect(types?.match("a.TS", false)).toBe("exclude");
    expect(types?.match("a.js", false)).toBe("exclude");
    expect(types?.match("src.ts", true)).toBeUndefined();
    expect(compileTypes([])).toBeUndefined();
  });

  test("an unknown name fails with ripgrep's message", () => {
    expect(() => compileTypes(["nope"])).toThrow("unrecognized file type: nope");
    // Not inherited object keys.
    expect(() => compileTypes(["constructor"])).toThrow("unrecognized file type: constructor");
  });
});
