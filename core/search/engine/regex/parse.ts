// A parser for ripgrep's regex dialect (Rust's regex-syntax, Unicode on, ripgrep's defaults: multi-line
// anchors, no newline). It parses the pattern wrapped as `(?:PATTERN)`, exactly as ripgrep does, so error
// positions and the few wrapping quirks (a `(?x)` comment swallowing the closing parenthesis) come out the
// same. Constructs ripgrep rejects fail with ripgrep's reason; constructs the engine cannot reproduce fail
// with a refusal that names them (rules X1-X5).
//
// Over 400 lines: this is one recursive-descent parser, whose methods call one another over a single cursor
// and flag set, the way regex-syntax's parser is one unit; split, a reader would chase each case across files.
import type { AssertionKind, ClassItem, Node } from "./ast.ts";
import { containsBannedNewline, containsNul, NUL_BANNED } from "./ban.ts";
import { classParts } from "./classes.ts";
import { resolveProperty } from "./properties.ts";

/** A pattern that does not compile. `start`/`end` index characters of the wrapped pattern. */
export class RegexError extends Error {
  override readonly name = "RegexError";
  readonly reason: string;
  readonly start: number;
  readonly end: number;
  /** ripgrep's own top-level message (no parse-error framing), such as the newline ban. */
  readonly bare: boolean;

  constructor(reason: string, start: number, end: number, bare = false) {
    super(reason);
    this.reason = reason;
    this.start = start;
    this.end = end;
    this.bare = bare;
  }
}

/** Thrown for what ripgrep accepts but the engine cannot reproduce exactly. */
export class RegexRefusal extends RegexError {}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
  u: boolean;
  x: boolean;
}

/** Parses a pattern as ripgrep reads it. Throws RegexError (or its RegexRefusal subclass). */
/** How ripgrep's flags set the parser up before the pattern's own flags. */
export interface RegexOptions {
  /** `-i`: start case-insensitive, as if the pattern began with `(?i)`. */
  readonly caseInsensitive?: boolean;
}

export function parseRegex(pattern: string, options: RegexOptions = {}): { readonly node: Node; readonly wrapped: string } {
  const wrapped = `(?:${pattern})`;
  const parser = new Parser(wrapped, options.caseInsensitive ?? false);
  const node = parser.parse();
  // ripgrep checks this before the newline ban: binary detection stops at a NUL, so no line can hold one.
  if (containsNul(node)) throw new RegexError(NUL_BANNED, 0, 0, true);
  if (containsBannedNewline(node)) {
    throw new RegexError('the literal "\\n" is not allowed in a regex', 0, 0, true);
  }
  return { node, wrapped };
}

const META_ESCAPES = new Set(Array.from("\\.+*?()|[]{}^$#&-~"));

// Escapes that are zero-width assertions, besides `\b` (whose `{…}` forms are parsed separately).
const ESCAPED_ASSERTIONS: Readonly<Record<string, AssertionKind>> = {
  B: "notBoundary",
  A: "textStart",
  z: "textEnd",
  "<": "wordStart",
  ">": "wordEnd",
};
const MAX_REPEAT = 1000;

class Parser {
  readonly #chars: number[];
  #pos = 0;
  readonly #names = new Set<string>();

  readonly #fold: boolean;

  constructor(text: string, fold: boolean) {
    this.#chars = Array.from(text, (c) => c.codePointAt(0) as number);
    this.#fold = fold;
  }

  parse(): Node {
    const flags: Flags = { i: this.#fold, m: true, s: false, U: false, u: true, x: false };
    const node = this.#alternation(flags);
    if (this.#pos < this.#chars.length) throw new RegexError("unopened group", this.#pos, this.#pos + 1);
    return node;
  }

  #peek(offset = 0): number | undefined {
    return this.#chars[this.#pos + offset];
  }

  #is(char: string, offset = 0): boolean {
    return this.#peek(offset) === char.codePointAt(0);
  }

  // In (?x) mode whitespace is insignificant and `#` starts a comment that runs to the end of the line.
  #skipSpace(flags: Flags): void {
    if (!flags.x) return;
    for (;;) {
      const c = this.#peek();
      if (c === undefined) return;
      if (isWhiteSpace(c)) this.#pos++;
      else if (c === 0x23) {
        while (this.#peek() !== undefined && this.#peek() !== 0x0a) this.#pos++;
      } else return;
    }
  }

  // Alternatives and concatenations up to a `)` or the end. `flags` belongs to the enclosing group: a
  // `(?i)` inside changes it for the rest of that group, across `|` too.
  #alternation(flags: Flags): Node {
    const branches: Node[] = [];
    let items: Node[] = [];
    let repeatable = false;
    for (;;) {
      this.#skipSpace(flags);
      const c = this.#peek();
      if (c === undefined || c === 0x29) break;
      if (c === 0x7c) {
        this.#pos++;
        branches.push(concat(items));
        items = [];
        repeatable = false;
        continue;
      }
      if (c === 0x2a || c === 0x2b || c === 0x3f || c === 0x7b) {
        if (!repeatable) throw new RegexError("repetition operator missing expression", this.#pos, this.#pos + 1);
        items.push(this.#repetition(items.pop() as Node, flags));
        continue;
      }
      const atom = this.#atom(flags);
      if (atom === undefined) {
        repeatable = false;
        continue;
      }
      items.push(atom);
      repeatable = true;
    }
    branches.push(concat(items));
    return branches.length === 1 ? (branches[0] as Node) : { kind: "alternation", nodes: branches };
  }

  #atom(flags: Flags): Node | undefined {
    const start = this.#pos;
    const c = this.#chars[this.#pos++] as number;
    switch (c) {
      case 0x28:
        return this.#group(flags, start);
      case 0x5b:
        return this.#class(flags, start);
      case 0x2e:
        if (!flags.u) throw refusal("(?-u:.) can match part of a UTF-8 character", start, this.#pos);
        return { kind: "dot", unicode: true };
      case 0x5e:
        return { kind: "assertion", assertion: flags.m ? "lineStart" : "textStart", unicode: flags.u };
      case 0x24:
        return { kind: "assertion", assertion: "textEnd", unicode: flags.u };
      case 0x5c:
        return this.#escape(flags, start);
      default:
        return this.#literal(c, flags);
    }
  }

  #literal(cp: number, flags: Flags): Node {
    return { kind: "literal", cp, fold: flags.i, unicode: flags.u };
  }

  #group(outer: Flags, start: number): Node | undefined {
    if (!this.#is("?")) return this.#groupBody({ ...outer }, start, true);
    this.#pos++;
    if (this.#is("=") || this.#is("!") || (this.#is("<") && (this.#is("=", 1) || this.#is("!", 1)))) {
      const end = this.#pos + (this.#is("<") ? 2 : 1);
      throw new RegexError("look-around, including look-ahead and look-behind, is not supported", start, end);
    }
    if (this.#is("P") && this.#is("<", 1)) {
      this.#pos += 2;
      this.#captureName();
      return this.#groupBody({ ...outer }, start, true);
    }
    if (this.#is("<")) {
      this.#pos++;
      this.#captureName();
      return this.#groupBody({ ...outer }, start, true);
    }
    // Flags: `(?flags)` changes the enclosing group from here on; `(?flags:…)` scopes them to a group.
    const flags = { ...outer };
    let negate = false;
    let any = false;
    for (;;) {
      const c = this.#peek();
      if (c === undefined) throw new RegexError("unclosed group", start, start + 1);
      const at = this.#pos++;
      const ch = String.fromCodePoint(c);
      if (ch === ")" || ch === ":") {
        if (!any && ch === ")") throw new RegexError("repetition operator missing expression", at - 1, at);
        if (ch === ")") {
          Object.assign(outer, flags);
          return undefined;
        }
        return this.#groupBody(flags, start);
      }
      if (ch === "-") {
        if (negate) throw new RegexError("flag negation operator repeated", at, at + 1);
        negate = true;
        continue;
      }
      if (ch === "R") throw refusal("CRLF mode (?R) is not supported by the search engine", at, at + 1);
      if (ch !== "i" && ch !== "m" && ch !== "s" && ch !== "U" && ch !== "u" && ch !== "x") {
        throw new RegexError("unrecognized flag", at, at + 1);
      }
      flags[ch] = !negate;
      any = true;
    }
  }

  #captureName(): void {
    const start = this.#pos;
    let name = "";
    for (;;) {
      const c = this.#peek();
      if (c === undefined) throw new RegexError("unclosed capture group name", start, this.#pos);
      if (c === 0x3e) break;
      const ch = String.fromCodePoint(c);
      const ok = name === "" ? /^[_A-Za-z]$/.test(ch) : /^[_A-Za-z0-9.[\]]$/.test(ch);
      if (!ok) throw new RegexError("invalid capture group character", this.#pos, this.#pos + 1);
      name += ch;
      this.#pos++;
    }
    if (name === "") throw new RegexError("empty capture group name", start, start);
    if (this.#names.has(name)) throw new RegexError("duplicate capture group name", start, this.#pos);
    this.#names.add(name);
    this.#pos++;
  }

  #groupBody(flags: Flags, start: number, capture = false): Node {
    const node = this.#alternation(flags);
    if (!this.#is(")")) throw new RegexError("unclosed group", start, start + 1);
    this.#pos++;
    return capture ? { kind: "group", node, capture } : { kind: "group", node };
  }

  #repetition(node: Node, flags: Flags): Node {
    const start = this.#pos;
    const c = this.#chars[this.#pos++] as number;
    let min: number;
    let max: number;
    if (c === 0x2a) [min, max] = [0, Infinity];
    else if (c === 0x2b) [min, max] = [1, Infinity];
    else if (c === 0x3f) [min, max] = [0, 1];
    else {
      this.#skipSpace(flags);
      min = this.#decimal();
      max = min;
      this.#skipSpace(flags);
      if (this.#is(",")) {
        this.#pos++;
        this.#skipSpace(flags);
        max = this.#is("}") ? Infinity : this.#decimal();
        this.#skipSpace(flags);
      }
      if (this.#peek() === undefined) throw new RegexError("unclosed counted repetition", start, this.#pos);
      if (!this.#is("}")) throw new RegexError("repetition quantifier expects a valid decimal", this.#pos, this.#pos + 1);
      this.#pos++;
      if (min > max) {
        throw new RegexError("invalid repetition count range, the start must be <= the end", start, this.#pos);
      }
      if (max !== Infinity ? max > MAX_REPEAT : min > MAX_REPEAT) {
        throw refusal(`repetition counts above ${MAX_REPEAT} are not supported by the search engine`, start, this.#pos);
      }
    }
    let greedy = true;
    if (this.#is("?")) {
      this.#pos++;
      greedy = false;
    }
    if (flags.U) greedy = !greedy;
    return { kind: "repeat", node, min, max, greedy };
  }

  #decimal(): number {
    const start = this.#pos;
    while (isDigit(this.#peek())) this.#pos++;
    if (this.#pos === start) {
      throw new RegexError("repetition quantifier expects a valid decimal", start, start + 1);
    }
    const value = Number(String.fromCodePoint(...this.#chars.slice(start, this.#pos)));
    if (value > 0xffffffff) throw new RegexError("decimal literal invalid", start, this.#pos);
    return value;
  }

  // An escape outside a class. `start` is the backslash.
  #escape(flags: Flags, start: number): Node {
    const c = this.#peek();
    if (c === undefined) {
      throw new RegexError("incomplete escape sequence, reached end of pattern prematurely", start, start + 1);
    }
    const ch = String.fromCodePoint(c);
    const kind = ch === "b" ? "boundary" : ESCAPED_ASSERTIONS[ch];
    if (kind !== undefined) {
      this.#pos++;
      const assertion = kind === "boundary" ? (this.#specialBoundary() ?? kind) : kind;
      return { kind: "assertion", assertion, unicode: flags.u };
    }
    const item = this.#escapeValue(flags, start, false);
    if (typeof item === "number") return this.#literal(item, flags);
    if (item.kind === "byte") return item;
    return this.#classNode([item], false, flags, start);
  }

  // `\b{start}` and friends; undefined when the `{` begins a repetition of `\b` instead.
  #specialBoundary(): AssertionKind | undefined {
    if (!this.#is("{")) return undefined;
    let end = this.#pos + 1;
    while (this.#chars[end] !== undefined && /^[a-z-]$/.test(String.fromCodePoint(this.#chars[end] as number))) end++;
    if (this.#chars[end] !== 0x7d || end === this.#pos + 1) return undefined;
    const name = String.fromCodePoint(...this.#chars.slice(this.#pos + 1, end));
    const kinds: Record<string, AssertionKind> = {
      start: "wordStart",
      end: "wordEnd",
      "start-half": "wordStartHalf",
      "end-half": "wordEndHalf",
    };
    const kind = kinds[name];
    if (kind === undefined) {
      throw new RegexError("unrecognized special word boundary assertion, valid choices are: start, end, start-half or end-half", this.#pos + 1, end);
    }
    this.#pos = end + 1;
    return kind;
  }

  // The escapes shared by classes and the top level: a literal code point, a raw byte, or a class item.
  #escapeValue(flags: Flags, start: number, inClass: boolean): number | ClassItem | { kind: "byte"; byte: number } {
    const c = this.#chars[this.#pos++] as number;
    const ch = String.fromCodePoint(c);
    if (isDigit(c)) throw new RegexError("backreferences are not supported", start, this.#pos);
    switch (ch) {
      case "d":
      case "s":
      case "w":
      case "D":
      case "S":
      case "W": {
        const negated = ch !== ch.toLowerCase();
        if (negated && !flags.u) {
          throw refusal(`(?-u:\\${ch}) can match part of a UTF-8 character`, start, this.#pos);
        }
        return { kind: "perl", which: ch.toLowerCase() as "d" | "s" | "w", negated };
      }
      case "p":
      case "P":
        return this.#property(ch === "P", flags, start);
      case "x":
      case "u":
      case "U":
        return this.#hex(ch, flags, start);
      case "n":
        return 0x0a;
      case "t":
        return 0x09;
      case "r":
        return 0x0d;
      case "f":
        return 0x0c;
      case "v":
        return 0x0b;
      case "a":
        return 0x07;
    }
    if (inClass && (ch === "b" || ESCAPED_ASSERTIONS[ch] !== undefined)) {
      throw new RegexError("invalid escape sequence found in character class", start, this.#pos);
    }
    if (META_ESCAPES.has(ch) || (c < 0x80 && !/[0-9A-Za-z<>]/.test(ch))) return c;
    throw new RegexError("unrecognized escape sequence", start, this.#pos);
  }

  #property(negated: boolean, flags: Flags, start: number): ClassItem {
    let name: string;
    if (this.#is("{")) {
      const close = this.#chars.indexOf(0x7d, this.#pos);
      if (close === -1) throw new RegexError("unclosed Unicode class literal", start, this.#chars.length);
      name = String.fromCodePoint(...this.#chars.slice(this.#pos + 1, close));
      this.#pos = close + 1;
    } else {
      const c = this.#peek();
      if (c === undefined) throw new RegexError("incomplete escape sequence, reached end of pattern prematurely", start, this.#pos);
      name = String.fromCodePoint(c);
      this.#pos++;
    }
    if (!flags.u) throw new RegexError("Unicode not allowed here", start, this.#pos);
    if (name.startsWith("^")) throw new RegexError("Unicode property not found", start, this.#pos);
    if (resolveProperty(name) === undefined) {
      throw refusal("Unicode property not found (the search engine knows general categories, scripts and a few binary properties)", start, this.#pos);
    }
    return { kind: "property", name, negated };
  }

  #hex(kind: string, flags: Flags, start: number): number | { kind: "byte"; byte: number } {
    let digits: string;
    const digitsStart = this.#pos + (this.#is("{") ? 1 : 0);
    if (this.#is("{")) {
      const close = this.#chars.indexOf(0x7d, this.#pos);
      if (close === -1) throw new RegexError("hexadecimal literal is missing a closing brace", start, this.#chars.length);
      digits = String.fromCodePoint(...this.#chars.slice(this.#pos + 1, close));
      this.#pos = close + 1;
      if (digits === "") throw new RegexError("hexadecimal literal empty", digitsStart, digitsStart);
    } else {
      const width = kind === "x" ? 2 : kind === "u" ? 4 : 8;
      digits = "";
      for (let i = 0; i < width; i++) {
        const c = this.#peek();
        if (c === undefined || !isHex(c)) throw new RegexError("invalid hexadecimal digit", this.#pos, this.#pos + 1);
        digits += String.fromCodePoint(c);
        this.#pos++;
      }
    }
    const bad = Array.from(digits).findIndex((d) => !isHex(d.codePointAt(0) as number));
    if (bad !== -1) throw new RegexError("invalid hexadecimal digit", digitsStart + bad, digitsStart + bad + 1);
    const value = digits.length > 8 ? Infinity : parseInt(digits, 16);
    if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) {
      throw new RegexError("hexadecimal literal is not a Unicode scalar value", digitsStart, this.#pos - (this.#chars[this.#pos - 1] === 0x7d ? 1 : 0));
    }
    if (flags.u || value < 0x80) return value;
    if (value > 0xff) throw new RegexError("Unicode not allowed here", start, this.#pos);
    // Bytes that can never occur in UTF-8 are matched where they stand; the others could also match inside
    // a valid character, which the engine cannot reproduce.
    if (value === 0xc0 || value === 0xc1 || value >= 0xf5) return { kind: "byte", byte: value };
    throw refusal(`(?-u:\\x${digits}) can match part of a UTF-8 character`, start, this.#pos);
  }

  #classNode(items: ClassItem[], negated: boolean, flags: Flags, start: number): Node {
    const node: Node = { kind: "class", negated, items, fold: flags.i, unicode: flags.u };
    // Fail here, with the class's position, when the emitter could not write it.
    classParts(node, (reason) => refusal(reason, start, this.#pos));
    return node;
  }

  // A bracket class; `start` is its `[`.
  #class(flags: Flags, start: number): Node {
    const { negated, items } = this.#classBody(flags, start);
    return this.#classNode(items, negated, flags, start);
  }

  #classBody(flags: Flags, start: number): { negated: boolean; items: ClassItem[] } {
    let negated = false;
    if (this.#is("^")) {
      negated = true;
      this.#pos++;
    }
    const items: ClassItem[] = [];
    let first = true;
    for (;;) {
      this.#skipSpace(flags);
      const c = this.#peek();
      if (c === undefined) throw new RegexError("unclosed character class", start, start + 1);
      if (c === 0x5d && !first) {
        this.#pos++;
        return { negated, items };
      }
      const here = this.#pos;
      if (c === 0x5b) {
        items.push(this.#posix() ?? this.#nested(flags, here));
        first = false;
        continue;
      }
      const pair = String.fromCodePoint(c) + (this.#peek(1) === undefined ? "" : String.fromCodePoint(this.#peek(1) as number));
      if (pair === "&&" || pair === "~~" || (pair === "--" && !first)) {
        throw refusal("class set operations (&&, --, ~~) are not supported by the search engine", here, here + 2);
      }
      const lo = this.#classAtom(flags);
      if (this.#is("-") && this.#is("-", 1)) {
        throw refusal("class set operations (&&, --, ~~) are not supported by the search engine", this.#pos, this.#pos + 2);
      }
      if (typeof lo === "number" && this.#is("-") && this.#peek(1) !== undefined && !this.#is("]", 1)) {
        this.#pos++;
        const hi = this.#classAtom(flags);
        if (typeof hi !== "number") throw new RegexError("invalid range boundary, must be a literal", here, this.#pos);
        if (lo > hi) throw new RegexError("invalid character class range, the start must be <= the end", here, this.#pos);
        items.push({ kind: "range", lo, hi });
      } else if (typeof lo === "number") {
        items.push({ kind: "range", lo, hi: lo });
      } else {
        items.push(lo);
      }
      first = false;
    }
  }

  #nested(flags: Flags, start: number): ClassItem {
    this.#pos++;
    const { negated, items } = this.#classBody(flags, start);
    return { kind: "nested", negated, items };
  }

  // `[:name:]` or `[:^name:]` with a known name; anything else is an ordinary nested class.
  #posix(): ClassItem | undefined {
    const rest = String.fromCodePoint(...this.#chars.slice(this.#pos, this.#pos + 14));
    const m = /^\[:(\^?)([a-z]+):\]/.exec(rest);
    if (!m || !POSIX_NAMES.has(m[2] as string)) return undefined;
    this.#pos += m[0].length;
    return { kind: "posix", name: m[2] as string, negated: m[1] === "^" };
  }

  // One class member: a literal code point (possibly escaped) or an escaped class.
  #classAtom(flags: Flags): number | ClassItem {
    const start = this.#pos;
    const c = this.#chars[this.#pos++] as number;
    let value: number | ClassItem | { kind: "byte"; byte: number } = c;
    if (c === 0x5c) {
      if (this.#peek() === undefined) {
        throw new RegexError("incomplete escape sequence, reached end of pattern prematurely", start, start + 1);
      }
      value = this.#escapeValue(flags, start, true);
    }
    if (typeof value === "object" && value.kind === "byte") {
      throw refusal("a byte escape inside a (?-u) class is not supported by the search engine", start, this.#pos);
    }
    if (typeof value === "number" && !flags.u && value >= 0x80) throw new RegexError("Unicode not allowed here", start, this.#pos);
    return value;
  }
}

const POSIX_NAMES = new Set(["alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word", "xdigit"]);

function refusal(reason: string, start: number, end: number): RegexRefusal {
  return new RegexRefusal(reason, start, end);
}

function concat(items: Node[]): Node {
  if (items.length === 0) return { kind: "empty" };
  return items.length === 1 ? (items[0] as Node) : { kind: "concat", nodes: items };
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

// Rust's char::is_whitespace, which (?x) mode skips.
function isWhiteSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}
