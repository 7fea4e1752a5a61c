import { describe, expect, test } from "vitest";
import { compileGlob, GLOB_NEST_LIMIT, GlobSyntaxError, GlobTooDeepError, globSteps, parseGlob } from "./glob.ts";
import { MAX_GLOB_BYTES } from "../limits.ts";
import { compileOverrides } from "./overrides.ts";
import { parseRule, RuleSyntaxError } from "./rules.ts";
import { byteString, trimEndWhiteSpace } from "./text.ts";

const matches = (glob: string, path: string, options?: Parameters<typeof compileGlob>[1]) => compileGlob(glob, options).test(byteString(path));

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

describe("linear-time matching", () => {
  // The work one match may take: a step per byte, plus the NFA states visited when a DFA state is built
  // (at most the program's size, a few instructions per glob character) for each byte.
  const budget = (glob: string, path: string) => (path.length + 1) * (12 * glob.length + 40);
  const counted = (glob: string, path: string) => {
    const matcher = compileGlob(glob);
    const before = globSteps();
    const result = matcher.test(path);
    return { result, steps: globSteps() - before };
  };

  test("the globs that made a backtracking matcher take exponential time answer within the step budget", () => {
    for (const stars of [1, 2, 5, 10, 20]) {
      for (const n of [10, 24, 40, 100, 1000, 4000]) {
        const path = "a".repeat(n);
        const failing = `${"*a".repeat(stars)}*c`;
        const passing = `${"*a".repeat(stars)}*`;
        const a = counted(failing, path);
        const b = counted(passing, path);
        expect(a.result).toBe(false);
        expect(b.result).toBe(n >= stars);
        expect(a.steps).toBeLessThanOrEqual(budget(failing, path));
        expect(b.steps).toBeLessThanOrEqual(budget(passing, path));
      }
    }
  });

  test("random star-heavy globs agree with a regex on short paths and stay within the budget on long ones", () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // Each piece with the regex globset writes for it.
    const pieces: [string, string][] = [
      ["*", "[^/]*"],
      ["?", "[^/]"],
      ["a", "a"],
      ["*a", "[^/]*a"],
      ["{a,*}", "(?:a|[^/]*)"],
      ["{*,?b}", "(?:[^/]*|[^/]b)"],
      ["[ab]", "[ab]"],
      ["[!a]", "[^a]"],
      ["/**/", "(?:/|/[\\s\\S]*/)"],
      ["/", "/"],
    ];
    for (let q = 0; q < 300; q++) {
      let glob = "";
      let source = "";
      for (let i = 1 + next(12); i > 0; i--) {
        const [g, r] = pieces[next(pieces.length)] as [string, string];
        // `/**/` right after a `/` would be read as other tokens; keep the generator's pieces unambiguous.
        if (g.startsWith("/") && glob.endsWith("/")) continue;
        glob += g;
        source += r;
      }
      const reference = new RegExp(`^${source}$`);
      const matcher = compileGlob(glob);
      for (let k = 0; k < 20; k++) {
        const length = k < 15 ? next(14) : 200 + next(300);
        let path = "";
        for (let i = 0; i < length; i++) path += "aab/"[next(4)];
        const before = globSteps();
        const result = matcher.test(path);
        expect(globSteps() - before, `${glob} on ${path}`).toBeLessThanOrEqual(budget(glob, path));
        if (length < 14) expect(result, `${glob} on ${path}`).toBe(reference.test(path));
      }
    }
  });

  test("a glob whose DFA outgrows the cache keeps answering correctly after the cache is cleared", () => {
    // `*a` then 13 bytes: the DFA must remember where each of the last 14 bytes was an `a` (2^13 states).
    const glob = `*a${"?".repeat(13)}`;
    const matcher = compileGlob(glob);
    let seed = 3;
    for (let q = 0; q < 3000; q++) {
      let path = "";
      for (let i = 0; i < 40; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        path += (seed >> 8) % 2 === 0 ? "a" : "b";
      }
      const before = globSteps();
      expect(matcher.test(path)).toBe(path[path.length - 14] === "a");
      expect(globSteps() - before).toBeLessThanOrEqual(budget(glob, path));
    }
  });

  test("10,000 stars, a long run of ? and long literals compile and answer", () => {
    expect(compileGlob("*".repeat(10_000)).test("abc")).toBe(true);
    expect(compileGlob("?".repeat(60_000)).test("abc")).toBe(false);
    expect(compileGlob(`${"ab".repeat(30_000)}*`).test(`${"ab".repeat(30_000)}x`)).toBe(true);
  });
});

describe("nesting (ripgrep's regex nest limit)", () => {
  test("each brace level counts, and the glob's prefix `**/` adds its own levels", () => {
    // `(?-u)^…$` is one level, `{a}` one more per level: 249 braces are depth 250, the most ripgrep takes.
    expect(parseGlob(`${"{".repeat(249)}a${"}".repeat(249)}`).depth).toBe(250);
    expect(() => compileGlob(`${"{".repeat(250)}a${"}".repeat(250)}`)).toThrow(GlobTooDeepError);
    // `{ab}` is a group holding a concatenation: two levels each.
    expect(parseGlob(`${"{a".repeat(124)}b${"}".repeat(124)}`).depth).toBe(GLOB_NEST_LIMIT - 1);
    // Empty groups write nothing, however deep.
    expect(parseGlob(`a${"{".repeat(5000)}${"}".repeat(5000)}`).depth).toBe(1);
  });

  test("2,000 levels are refused without recursing through them", () => {
    const deep = `${"{".repeat(2000)}a${"}".repeat(2000)}`;
    expect(() => compileGlob(deep)).toThrow(GlobTooDeepError);
    const parsed = parseGlob(`${"{a,".repeat(100_000)}b${"}".repeat(100_000)}`);
    expect(parsed.depth).toBeGreaterThan(GLOB_NEST_LIMIT);
  });
});

describe("rule lines (rules O1-O5)", () => {
  const rule = (line: string) => parseRule(line);

  test("comments and blank lines are no rules; trailing whitespace is trimmed unless escaped", () => {
    expect(rule("#a")).toBeUndefined();
    expect(rule("   ")).toBeUndefined();
    expect(rule("ab.txt \t")?.matcher.test("ab.txt")).toBe(true);
    expect(rule("ab\\ ")?.matcher.test("ab ")).toBe(true);
  });

  test("a glob without `/` matches at any depth; with one, from the start", () => {
    expect(rule("x.ts")?.matcher.test("src/x.ts")).toBe(true);
    expect(rule("deep/z.ts")?.matcher.test("src/deep/z.ts")).toBe(false);
    expect(rule("/x.ts")?.matcher.test("src/x.ts")).toBe(false);
    expect(rule("./a.ts")?.matcher.test("a.ts")).toBe(false);
  });

  test("`!`, `\\!`, `\\#`, a trailing `/` and a trailing `/**`", () => {
    expect(rule("!x")).toMatchObject({ negated: true });
    expect(rule("\\!x")).toMatchObject({ negated: false });
    expect(rule("\\!x")?.matcher.test("!x")).toBe(true);
    expect(rule("\\#x")?.matcher.test("#x")).toBe(true);
    expect(rule("src/")).toMatchObject({ dirOnly: true });
    expect(rule("src/**")?.matcher.test("src")).toBe(false);
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

  test("globs past 65,536 bytes in all are refused before anything is parsed", () => {
    expect(() => compileOverrides([{ glob: "*".repeat(MAX_GLOB_BYTES) }])).not.toThrow();
    expect(() => compileOverrides([{ glob: "*".repeat(MAX_GLOB_BYTES - 1) }, { glob: "é" }])).toThrow(
      expect.objectContaining({ code: "SEARCH_INVALID_PATTERN", details: expect.objectContaining({ tooLong: true, bytes: MAX_GLOB_BYTES + 1 }) }),
    );
  });

  test("syntax errors come before the nest limit, which ripgrep only meets when it builds the set", () => {
    const deep = `${"{".repeat(300)}a${"}".repeat(300)}`;
    expect(() => compileOverrides([{ glob: deep }, { glob: "[z-a]" }])).toThrow(
      expect.objectContaining({ message: "error parsing glob '[z-a]': invalid range; 'z' > 'a'" }),
    );
    expect(() => compileOverrides([{ glob: deep }, { glob: "ok" }])).toThrow(
      expect.objectContaining({ code: "SEARCH_INVALID_PATTERN", details: expect.objectContaining({ tooDeep: true }) }),
    );
  });

  test("a malformed glob fails SEARCH_INVALID_PATTERN with ripgrep's message", () => {
    expect(() => compileOverrides([{ glob: "ok" }, { glob: "[z-a]" }])).toThrow(
      expect.objectContaining({ code: "SEARCH_INVALID_PATTERN", message: "error parsing glob '[z-a]': invalid range; 'z' > 'a'" }),
    );
  });
});
