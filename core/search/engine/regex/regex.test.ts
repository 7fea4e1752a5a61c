import { RE2JS } from "re2js";
import { describe, expect, test } from "vitest";
import { isSearchError } from "../../errors.ts";
import { emit } from "./emit.ts";
import { type LineRegex, compileRegex } from "./mod.ts";
import { parseRegex } from "./parse.ts";
import { PikeVm } from "./vm.ts";

const encoder = new TextEncoder();

/** ripgrep's submatch loop over one line (R-M2), for a line that starts a buffer. */
function spans(regex: LineRegex, text: string | Uint8Array): string[] | undefined {
  const line = typeof text === "string" ? encoder.encode(text) : text;
  const valid = (() => {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(line);
      return true;
    } catch {
      return false;
    }
  })();
  const info = { valid, ascii: line.every((b) => b < 0x80) };
  if (!regex.test(line, info)) return undefined;
  const out: string[] = [];
  let pos = 0;
  let last = -1;
  while (pos <= line.length) {
    const m = regex.find(line, pos, true, info);
    if (!m) break;
    const [s, e] = m;
    if (s === e && s === last) {
      pos = s + 1;
      continue;
    }
    out.push(`${s}-${e}`);
    last = e;
    pos = e > s ? e : e + 1;
  }
  return out;
}

const run = (pattern: string, text: string | Uint8Array) => spans(compileRegex(pattern), text);

function rejection(pattern: string): { message: string; refused: boolean } {
  try {
    compileRegex(pattern);
  } catch (error) {
    if (isSearchError(error, "SEARCH_INVALID_PATTERN")) return { message: error.message, refused: error.details.refused === true };
    throw error;
  }
  throw new Error(`${pattern} compiled`);
}

describe("ripgrep's dialect (rules X2, X3)", () => {
  test("Perl classes are Unicode-aware", () => {
    expect(run("\\d+", "123 ٣٤ ５")).toEqual(["0-3", "4-8", "9-12"]);
    expect(run("\\w+", "héllo wörld")).toEqual(["0-6", "7-13"]);
    expect(run("\\s", "nbsp\u00a0here")).toEqual(["4-6"]);
    expect(run("\\s", "bom\ufeffin")).toBeUndefined();
    expect(run("\\W+", "a日本b")).toBeUndefined();
  });

  test("word boundaries use Unicode word characters, on any line", () => {
    expect(run("\\bfoo\\b", "éfoo foo_bar foo")).toEqual(["14-17"]);
    expect(run("\\bfoo\\b", "xfoo foo_bar foo")).toEqual(["13-16"]);
    expect(run("\\b{start}", "foo bar é")).toEqual(["0-0", "4-4", "8-8"]);
    expect(run("\\<é", "é xé")).toEqual(["0-2"]);
    expect(run("é\\>", "é éx")).toEqual(["0-2"]);
  });

  test("escapes and names ripgrep accepts and re2js does not", () => {
    expect(run("\\u00e9", "café")).toEqual(["3-5"]);
    expect(run("\\U0001F600", "a😀")).toEqual(["1-5"]);
    expect(run("\\p{Letter}+", "ab1")).toEqual(["0-2"]);
    expect(run("\\p{sc=Grek}+", "ωx")).toEqual(["0-2"]);
    expect(run("\\p{ greek }", "ω")).toEqual(["0-2"]);
    expect(run("a++", "aaa")).toEqual(["0-3"]);
    expect(run("a{2}{2}", "aaaaa")).toEqual(["0-4"]);
    expect(run("(?x) a b # comment\n c", "abc")).toEqual(["0-3"]);
    expect(run("[[:alpha:]]+", "héllo")).toEqual(["0-1", "3-6"]);
    expect(run("[a[bc]]+", "xabcx")).toEqual(["1-4"]);
    expect(run("[[:foo:]]", "o")).toEqual(["0-1"]);
  });

  test("case folding is Unicode's simple folding; (?-u) folds ASCII only", () => {
    expect(run("(?i)k", "\u212a")).toEqual(["0-3"]);
    expect(run("(?i)é", "É")).toEqual(["0-2"]);
    expect(run("(?i-u:é)", "É")).toBeUndefined();
    expect(run("(?i-u:[a-c])", "B")).toEqual(["0-1"]);
  });

  test("invalid UTF-8 is matched only by (?-u) bytes", () => {
    const line = Uint8Array.of(0x78, 0xff, 0x79);
    expect(run("x.y", line)).toBeUndefined();
    expect(run("[^a]", line)).toEqual(["0-1", "2-3"]);
    expect(run("(?-u:\\xff)", line)).toEqual(["1-2"]);
    expect(run("(?-u:x\\xffy)", line)).toEqual(["0-3"]);
  });

  test("empty matches: after a match, at each byte, even inside a character", () => {
    expect(run("x*", "two x")).toEqual(["0-0", "1-1", "2-2", "3-3", "4-5"]);
    expect(run("", "é")).toEqual(["0-0", "1-1", "2-2"]);
    // `\B` needs a whole character on each side, so it never holds inside one.
    expect(run("\\B", "éé")).toEqual(["2-2"]);
  });

  test("line anchors: `\\A` and `^` at the line start, `$` and `\\z` at its end", () => {
    expect(run("\\Aab", "ab")).toEqual(["0-2"]);
    expect(run("ab$", "xab")).toEqual(["1-3"]);
    expect(run("ab\\z", "xab")).toEqual(["1-3"]);
    expect(run("(?-m)^a", "ab")).toEqual(["0-1"]);
    const regex = compileRegex("\\Aab");
    const line = encoder.encode("ab");
    expect(regex.find(line, 0, false, { valid: true, ascii: true })).toBeUndefined();
  });
});

describe("rejections (rules X1, X5): ripgrep's reasons, with its framing", () => {
  test.each([
    ["a(?=b)", "regex parse error:\n    (?:a(?=b))\n        ^^^\nerror: look-around, including look-ahead and look-behind, is not supported"],
    ["(a)\\1", "regex parse error:\n    (?:(a)\\1)\n          ^^\nerror: backreferences are not supported"],
    ["\\Qa.b\\E", "regex parse error:\n    (?:\\Qa.b\\E)\n       ^^\nerror: unrecognized escape sequence"],
    ["a{,3}", "regex parse error:\n    (?:a{,3})\n         ^\nerror: repetition quantifier expects a valid decimal"],
    ["(", "regex parse error:\n    (?:()\n    ^\nerror: unclosed group"],
    [")", "regex parse error:\n    (?:))\n        ^\nerror: unopened group"],
    ["[z-a]", "regex parse error:\n    (?:[z-a])\n        ^^^\nerror: invalid character class range, the start must be <= the end"],
    ["a{3,2}", "regex parse error:\n    (?:a{3,2})\n        ^^^^^\nerror: invalid repetition count range, the start must be <= the end"],
    ["\\x{D800}", "regex parse error:\n    (?:\\x{D800})\n          ^^^^\nerror: hexadecimal literal is not a Unicode scalar value"],
    ["(?z)", "regex parse error:\n    (?:(?z))\n         ^\nerror: unrecognized flag"],
    ["{", "regex parse error:\n    (?:{)\n       ^\nerror: repetition operator missing expression"],
    ["(?x) a b # c", "regex parse error:\n    (?:(?x) a b # c)\n    ^\nerror: unclosed group"],
  ])("%s", (pattern, message) => {
    expect(rejection(pattern)).toEqual({ message, refused: false });
  });

  test("a long pattern is quoted up to a bound; the caret line only when the span falls within it", () => {
    const late = rejection(`${"a".repeat(5000)}[z-a]`).message;
    expect(late).toBe(
      `regex parse error:\n    (?:${"a".repeat(1021)}… (3985 more characters)\nerror: invalid character class range, the start must be <= the end`,
    );
    const early = rejection(`a[z-a]${"a".repeat(5000)}`).message;
    expect(early.split("\n")[2]).toBe("         ^^^");
    expect(early.length).toBeLessThan(1200);
  });

  test("a pattern that must match a NUL byte is refused as ripgrep refuses it", () => {
    for (const pattern of ["foo\\x00?", "\\x{0}", "[^\\x01-\\x{10FFFF}]", "(\\x00)|(a)", "(?i)\\x00|a", "a\0b"]) {
      expect(rejection(pattern).message, pattern).toMatch(/^pattern contains "\\0" but it is impossible to match: /);
    }
    for (const pattern of ["\\x00|a", "[\\x00a]", "\\x00{0}", "(?:\\x00|a)|bc"]) expect(() => compileRegex(pattern), pattern).not.toThrow();
  });

  test("a newline the pattern must match is refused with ripgrep's own sentence", () => {
    for (const pattern of ["\\n", "[\\n]", "\\x0A", "a\nb", "\\n|\\n"]) {
      expect(rejection(pattern)).toEqual({ message: 'the literal "\\n" is not allowed in a regex', refused: false });
    }
    expect(run("a|\\n", "xa")).toEqual(["1-2"]);
  });

  test.each(["\\0", "\\e", "\\p{^Greek}", "a{", "[]", "\\x{110000}", "(?P<n>a)(?P<n>b)", "(?-u)[é]", "(?-u)\\pL"])(
    "%s is rejected like ripgrep rejects it",
    (pattern) => {
      expect(rejection(pattern).refused).toBe(false);
    },
  );
});

describe("refusals (rule X4): constructs the engine does not reproduce are named, never misread", () => {
  test.each([
    ["[a-z&&[^aeiou]]", "class set operations"],
    ["[a--b]", "class set operations"],
    ["[a~~b]", "class set operations"],
    ["[^\\W\\d]", "negated class holding a negated member"],
    ["(?-u:.)", "(?-u:.)"],
    ["(?-u:[^a])", "negated (?-u) class"],
    ["(?-u:\\W)", "(?-u:\\W)"],
    ["(?-u:\\xc3)", "(?-u:\\xc3)"],
    ["(?R)a", "CRLF mode"],
    ["a{1001}", "above 1000"],
    ["\\p{Ideographic}", "Unicode property not found"],
    ["\\p{scx=Grek}", "Unicode property not found"],
  ])("%s", (pattern, named) => {
    const { message, refused } = rejection(pattern);
    expect(refused).toBe(true);
    expect(message).toContain(named);
  });
});

describe("linear time (no backtracking)", () => {
  // A backtracking engine needs about 2^n steps for these on n repetitions and a failing end, so answering
  // at n = 100,000 shows the work is not exponential.
  const hostile: [string, (n: number) => string[] | undefined][] = [
    ["(a+)+$", () => undefined],
    ["(a|aa)+$", () => undefined],
    ["(a*)*b", () => undefined],
    ["(\\w+\\s?)+$", () => undefined],
    ["(.*a){12}", (n) => (n >= 12 ? [`0-${n}`] : undefined)],
  ];
  const sizes = [30, 1_000, 100_000];

  test.each(hostile)("%s on valid lines (re2js's matcher)", (pattern, expected) => {
    const regex = compileRegex(pattern);
    for (const n of sizes) expect(spans(regex, encoder.encode(`${"a".repeat(n)}!`))).toEqual(expected(n));
  });

  test.each(hostile)("%s on lines with invalid UTF-8 (the engine's VM)", (pattern, expected) => {
    const regex = compileRegex(pattern);
    for (const n of sizes) {
      const line = new Uint8Array(n + 2);
      line.fill(0x61, 0, n);
      line[n] = 0xff;
      line[n + 1] = 0x21;
      expect(spans(regex, line)).toEqual(expected(n));
    }
  });
});

describe("the VM agrees with re2js where both apply", () => {
  // Random patterns over a small alphabet and ASCII lines: the fast program on re2js's matcher and the VM
  // program on the engine's Pike VM must find the same leftmost-first matches.
  function* patterns(seed: number, count: number): Generator<string> {
    let x = seed;
    const next = (n: number) => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return (x >>> 8) % n;
    };
    const atoms = ["a", "b", ".", "[ab]", "[^a]", "\\w", "\\W", "\\b", "\\B", "^", "$", "\\d", "(?i:A)"];
    const gen = (depth: number): string => {
      const k = next(depth > 2 ? 2 : 6);
      if (k === 0 || k === 1) return atoms[next(atoms.length)] as string;
      if (k === 2) return `${gen(depth + 1)}${gen(depth + 1)}`;
      if (k === 3) return `(?:${gen(depth + 1)}|${gen(depth + 1)})`;
      if (k === 4) return `(?:${gen(depth + 1)})${["*", "+", "?", "{1,2}", "*?", "+?"][next(6)]}`;
      return `(${gen(depth + 1)})`;
    };
    for (let i = 0; i < count; i++) yield gen(0);
  }
  const lines = ["", "a", "ab", "ba ab", "aab_b 1a", "b-a.b", "aaa bbb", "A1 a!b"].map((l) => encoder.encode(l));

  test("on 400 random patterns", () => {
    let compared = 0;
    for (const pattern of patterns(7, 400)) {
      const { node } = parseRegex(pattern);
      const fast = RE2JS.compile(emit(node, "fast") as string);
      const vm = new PikeVm(RE2JS.compile(emit(node, "vm") as string));
      const matcher = fast.matcher(new Uint8Array(0));
      for (const line of lines) {
        for (let from = 0; from <= line.length; from++) {
          matcher.resetMatcherInput(line);
          const want = matcher.find(from) ? [matcher.start(), matcher.end()] : undefined;
          expect(vm.find(line, from, true), `${pattern} on ${new TextDecoder().decode(line)} from ${from}`).toEqual(want);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });
});
