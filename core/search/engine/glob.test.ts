import { describe, expect, test } from "vitest";
import { compileGlob, GlobSyntaxError } from "./glob.ts";
import { compileOverrides } from "./overrides.ts";
import { parseRule, RuleSyntaxError } from "./rules.ts";
import { byteString, trimEndWhiteSpace } from "./text.ts";

const matches = (glob: string, path: string, options?: Parameters<typeof compileGlob>[1]) =>
  compileGlob(glob, options).test(byteString(path));

describe("glob compiler (rule G)", () => {
  test("`?` and classes see bytes, so a two-byte character needs two of them", () => {
    expect(matches("?1.txt", "é1.txt")).toBe(false);
    expect(matches("??1.txt", "é1.txt")).toBe(true);
    expect(matches("[é][é]1.txt", "é1.txt")).toBe(true);
    expect(matches("[é]1.txt", "é1.txt")).toBe(false);
  });

  test("a range between multi-byte characters spans the bytes globset puts between them", () => {
    // [é-ü] is the bytes C3, A9..C3, BC: one byte of é matches, the whole character does not.
    expect(matches("[é-ü]", "\u00e9")).toBe(false);
    const re = compileGlob("[é-ü]");
    // Byte strings: one character per byte.
    expect(["\xc3", "\xa9", "\xb0", "\xbc", "\xa8", "\xc4"].map((b) => re.test(b))).toEqual([true, true, true, true, false, false]);
  });

  test("`*` stays within a component; a negated class can match `/`", () => {
    expect(matches("*.ts", "src/x.ts")).toBe(false);
    expect(matches("src[!a]x.ts", "src/x.ts")).toBe(true);
    expect(matches("src[/]x.ts", "src/x.ts")).toBe(true);
  });

  test("the forms of `**`", () => {
    expect(matches("**", "a/b/c")).toBe(true);
    expect(matches("**/x", "x")).toBe(true);
    expect(matches("**/x", "a/b/x")).toBe(true);
    expect(matches("a/**/b", "a/b")).toBe(true);
    expect(matches("a/**/b", "a/x/y/b")).toBe(true);
    expect(matches("a/**", "a/x/y")).toBe(true);
    expect(matches("a/**", "a")).toBe(false);
    expect(matches("a**", "ab")).toBe(true);
    expect(matches("a**", "a/b")).toBe(false);
    // At the start of a brace branch `**` followed by `,` or `}` is only a star.
    expect(matches("{a,**}", "x/y")).toBe(false);
    expect(matches("{a,**}", "xy")).toBe(true);
  });

  test("`**` matches newlines in names, as globset's dot-all regex does", () => {
    expect(matches("**/x", "a\nb/x")).toBe(true);
  });

  test("brace groups: nesting, dropped empty branches, literal commas outside", () => {
    expect(matches("*.{t{s,x},js}", "a.tx")).toBe(true);
    expect(matches("ab{,c}.txt", "ab.txt")).toBe(false);
    expect(matches("ab{,c}.txt", "abc.txt")).toBe(true);
    expect(matches("a{,}b", "ab")).toBe(true);
    expect(matches("a,b", "a,b")).toBe(true);
  });

  test("classes: `]` first, `-` first or last, backslash literal, no POSIX names", () => {
    expect(matches("a[]]b", "a]b")).toBe(true);
    expect(matches("a[-]b", "a-b")).toBe(true);
    expect(matches("a[b-]c", "a-c")).toBe(true);
    expect(matches("a[\\]b", "a\\b")).toBe(true);
    expect(matches("[[:upper:]]*", "A")).toBe(false);
    expect(matches("[[:upper:]]", ":]")).toBe(true);
  });

  test("case folding touches ASCII letters only, in literals and classes", () => {
    expect(matches("*.TS", "a.ts", { caseInsensitive: true })).toBe(true);
    expect(matches("[a-c]x", "Bx", { caseInsensitive: true })).toBe(true);
    expect(matches("CAFÉ", "café", { caseInsensitive: true })).toBe(false);
    expect(matches("[!a]x", "Ax", { caseInsensitive: true })).toBe(false);
  });

  test.each([
    ["[z-a]", "invalid range; 'z' > 'a'"],
    ["{a,b", "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"],
    ["a}", "unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)"],
    ["[ab", "unclosed character class; missing ']'"],
    ["[]", "unclosed character class; missing ']'"],
    ["[!]", "unclosed character class; missing ']'"],
    ["foo\\", "dangling '\\'"],
  ])("%s fails with globset's reason", (glob, reason) => {
    expect(() => compileGlob(glob)).toThrow(new GlobSyntaxError(reason));
  });

  test("ignore files read an unclosed `[` as a literal, and every later `[` too", () => {
    expect(matches("[ab", "[ab", { allowUnclosedClass: true })).toBe(true);
    expect(matches("x[a[b", "x[a[b", { allowUnclosedClass: true })).toBe(true);
  });
});

describe("rule lines (rules O1-O5)", () => {
  const rule = (line: string) => parseRule(line);

  test("comments and blank lines are no rules; trailing whitespace is trimmed unless escaped", () => {
    expect(rule("#a")).toBeUndefined();
    expect(rule("   ")).toBeUndefined();
    expect(rule("ab.txt \t")?.regex.test("ab.txt")).toBe(true);
    expect(rule("ab\\ ")?.regex.test("ab ")).toBe(true);
  });

  test("a glob without `/` matches at any depth; with one, from the start", () => {
    expect(rule("x.ts")?.regex.test("src/x.ts")).toBe(true);
    expect(rule("deep/z.ts")?.regex.test("src/deep/z.ts")).toBe(false);
    expect(rule("/x.ts")?.regex.test("src/x.ts")).toBe(false);
    expect(rule("./a.ts")?.regex.test("a.ts")).toBe(false);
  });

  test("`!`, `\\!`, `\\#`, a trailing `/` and a trailing `/**`", () => {
    expect(rule("!x")).toMatchObject({ negated: true });
    expect(rule("\\!x")).toMatchObject({ negated: false });
    expect(rule("\\!x")?.regex.test("!x")).toBe(true);
    expect(rule("\\#x")?.regex.test("#x")).toBe(true);
    expect(rule("src/")).toMatchObject({ dirOnly: true });
    expect(rule("src/**")?.regex.test("src")).toBe(false);
  });

  test("errors quote the value after trimming, with its `!` and slashes", () => {
    expect(() => rule("!/[z-a]/  ")).toThrow(new RuleSyntaxError("error parsing glob '!/[z-a]/': invalid range; 'z' > 'a'"));
  });

  test("Rust's whitespace set: U+0085 is trimmed, U+FEFF is not", () => {
    expect(trimEndWhiteSpace("a\u0085")).toBe("a");
    expect(trimEndWhiteSpace("a\ufeff")).toBe("a\ufeff");
  });
});

describe("overrides (rules O6-O7)", () => {
  test("the last matching glob wins; case-insensitive globs count after all others", () => {
    const o = compileOverrides([{ glob: "!*.ts" }, { glob: "*.TS", caseInsensitive: true }, { glob: "*.ts" }]);
    expect(o.match("a.ts", false)).toBe("include");
    const p = compileOverrides([{ glob: "*.ts", caseInsensitive: true }, { glob: "!*.ts" }]);
    expect(p.match("a.ts", false)).toBe("include");
  });

  test("with an include, an unmatched file is excluded and an unmatched directory is entered", () => {
    const o = compileOverrides([{ glob: "*.ts" }]);
    expect(o.match("b.js", false)).toBe("exclude");
    expect(o.match("src", true)).toBeUndefined();
    expect(compileOverrides([{ glob: "!*.ts" }]).match("b.js", false)).toBeUndefined();
  });

  test("a directory-only rule is skipped for files", () => {
    const o = compileOverrides([{ glob: "*.js" }, { glob: "!node_modules/" }]);
    expect(o.match("node_modules", true)).toBe("exclude");
    expect(o.match("x/node_modules", false)).toBe("exclude");
  });

  test("a malformed glob fails SEARCH_INVALID_PATTERN with ripgrep's message", () => {
    expect(() => compileOverrides([{ glob: "ok" }, { glob: "[z-a]" }])).toThrow(
      expect.objectContaining({ code: "SEARCH_INVALID_PATTERN", message: "error parsing glob '[z-a]': invalid range; 'z' > 'a'" }),
    );
  });
});
