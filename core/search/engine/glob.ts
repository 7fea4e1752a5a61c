// The glob compiler: one glob (already stripped of its rule syntax, see rules.ts) to a JavaScript RegExp
// over the path's UTF-8 bytes, each byte one character 0-255 (see byteString in text.ts). ripgrep's globset
// matches bytes, not characters, so `?` and classes see a multi-byte character as several units; matching
// the byte string reproduces that exactly. docs/notes/0003-search-engine.md explains why this is written by
// hand rather than taken from picomatch.
import { encodeUtf8 } from "../../text/mod.ts";
import { memberRuns } from "./text.ts";

/** A glob that does not parse; `message` is globset's wording for the reason. */
export class GlobSyntaxError extends Error {
  override readonly name = "GlobSyntaxError";
}

export interface GlobOptions {
  /** Fold ASCII letters only (`--iglob`); other characters stay case-sensitive, as in ripgrep. */
  readonly caseInsensitive?: boolean;
  /** Treat a `[` without its `]` as a literal (ignore files) instead of failing (`-g`). */
  readonly allowUnclosedClass?: boolean;
}

type Token =
  | { readonly kind: "literal"; readonly char: string }
  | { readonly kind: "any" }
  | { readonly kind: "star" }
  | { readonly kind: "recursivePrefix" }
  | { readonly kind: "recursiveSuffix" }
  | { readonly kind: "recursiveMiddle" }
  | { readonly kind: "class"; readonly negated: boolean; readonly ranges: readonly (readonly [string, string])[] }
  | { readonly kind: "alternates"; readonly branches: readonly Token[][] };

const STAR: Token = { kind: "star" };

/** Compiles `glob` to an anchored RegExp over byte strings; throws GlobSyntaxError. */
export function compileGlob(glob: string, options?: GlobOptions): RegExp {
  const tokens = new GlobParser(glob, options?.allowUnclosedClass ?? false).parse();
  const fold = options?.caseInsensitive ?? false;
  // A glob that is exactly `**` matches every path, including ones with no `/` at all.
  const body = tokens.length === 1 && tokens[0]?.kind === "recursivePrefix" ? ANY_RUN : emit(tokens, fold);
  return new RegExp(`^${body}$`);
}

// `.` in globset's regex matches every byte, newline included.
const ANY_RUN = "[\\s\\S]*";

class GlobParser {
  readonly #chars: string[];
  readonly #allowUnclosed: boolean;
  #pos = 0;
  // Branch token lists: the first is the glob's top level; each open `{` adds one per branch.
  readonly #branches: Token[][] = [[]];
  // Index into #branches where each open alternation's branches start.
  readonly #openGroups: number[] = [];
  // After one unclosed class, every later `[` is literal too (as in globset, which also avoids quadratic
  // rescans this way).
  #sawUnclosedClass = false;

  constructor(glob: string, allowUnclosed: boolean) {
    this.#chars = Array.from(glob);
    this.#allowUnclosed = allowUnclosed;
  }

  parse(): Token[] {
    for (let c = this.#next(); c !== undefined; c = this.#next()) {
      switch (c) {
        case "?":
          this.#push({ kind: "any" });
          break;
        case "*":
          this.#star();
          break;
        case "[":
          if (this.#sawUnclosedClass) this.#push({ kind: "literal", char: c });
          else this.#klass();
          break;
        case "{":
          this.#openGroups.push(this.#branches.length);
          this.#branches.push([]);
          break;
        case "}": {
          const start = this.#openGroups.pop();
          if (start === undefined) throw new GlobSyntaxError("unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)");
          this.#push({ kind: "alternates", branches: this.#branches.splice(start) });
          break;
        }
        case ",":
          if (this.#openGroups.length === 0) this.#push({ kind: "literal", char: c });
          else this.#branches.push([]);
          break;
        case "\\": {
          const escaped = this.#next();
          if (escaped === undefined) throw new GlobSyntaxError("dangling '\\'");
          this.#push({ kind: "literal", char: escaped });
          break;
        }
        default:
          this.#push({ kind: "literal", char: c });
      }
    }
    if (this.#branches.length > 1) {
      throw new GlobSyntaxError("unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)");
    }
    return this.#branches[0] as Token[];
  }

  #next(): string | undefined {
    return this.#chars[this.#pos++];
  }

  #peek(): string | undefined {
    return this.#chars[this.#pos];
  }

  #branch(): Token[] {
    return this.#branches[this.#branches.length - 1] as Token[];
  }

  #push(token: Token): void {
    this.#branch().push(token);
  }

  // `*` and the forms of `**` (rule G2). `prev` is the character before the stars.
  #star(): void {
    const prev = this.#pos >= 2 ? this.#chars[this.#pos - 2] : undefined;
    if (this.#peek() !== "*") {
      this.#push(STAR);
      return;
    }
    this.#pos++;
    if (this.#branch().length === 0) {
      const after = this.#peek();
      if (after === undefined || after === "/") {
        this.#pos++;
        this.#push({ kind: "recursivePrefix" });
      } else {
        this.#push(STAR);
        this.#push(STAR);
      }
      return;
    }
    if (prev !== "/") {
      this.#push(STAR);
      this.#push(STAR);
      return;
    }
    const after = this.#peek();
    let suffix: boolean;
    if (after === undefined) suffix = true;
    else if ((after === "," || after === "}") && this.#branches.length >= 2) suffix = true;
    else if (after === "/") {
      this.#pos++;
      suffix = false;
    } else {
      this.#push(STAR);
      this.#push(STAR);
      return;
    }
    const previous = this.#branch().pop() as Token;
    if (previous.kind === "recursivePrefix" || previous.kind === "recursiveSuffix") this.#push(previous);
    else this.#push({ kind: suffix ? "recursiveSuffix" : "recursiveMiddle" });
  }

  // A bracket class (rule G3): no escapes, no POSIX names, `]` first and `-` first or last are literal.
  #klass(): void {
    const restart = this.#pos;
    let negated = false;
    if (this.#peek() === "!" || this.#peek() === "^") {
      negated = true;
      this.#pos++;
    }
    const ranges: [string, string][] = [];
    let first = true;
    let inRange = false;
    for (;;) {
      const c = this.#next();
      if (c === undefined) {
        if (!this.#allowUnclosed) throw new GlobSyntaxError("unclosed character class; missing ']'");
        this.#pos = restart;
        this.#sawUnclosedClass = true;
        this.#push({ kind: "literal", char: "[" });
        return;
      }
      if (c === "]" && !first) break;
      if (c === "-" && !first && !inRange) {
        inRange = true;
      } else if (inRange) {
        const last = ranges[ranges.length - 1] as [string, string];
        last[1] = c;
        if ((c.codePointAt(0) as number) < (last[0].codePointAt(0) as number)) {
          throw new GlobSyntaxError(`invalid range; '${last[0]}' > '${c}'`);
        }
        inRange = false;
      } else {
        ranges.push([c, c]);
      }
      first = false;
    }
    if (inRange) ranges.push(["-", "-"]);
    this.#push({ kind: "class", negated, ranges });
  }
}

function emit(tokens: readonly Token[], fold: boolean): string {
  let out = "";
  for (const token of tokens) {
    switch (token.kind) {
      case "literal":
        for (const byte of encodeUtf8(token.char)) out += byteAtom(byte, fold);
        break;
      case "any":
        out += "[^/]";
        break;
      case "star":
        out += "[^/]*";
        break;
      case "recursivePrefix":
        out += `(?:/?|${ANY_RUN}/)`;
        break;
      case "recursiveSuffix":
        out += `/${ANY_RUN}`;
        break;
      case "recursiveMiddle":
        out += `(?:/|/${ANY_RUN}/)`;
        break;
      case "class":
        out += classAtom(token.negated, token.ranges, fold);
        break;
      case "alternates": {
        // Empty branches are dropped; a group left with none disappears (rule G4).
        const parts = token.branches.map((b) => emit(b, fold)).filter((p) => p !== "");
        if (parts.length > 0) out += `(?:${parts.join("|")})`;
        break;
      }
    }
  }
  return out;
}

function hex(byte: number): string {
  return `\\x${byte.toString(16).padStart(2, "0")}`;
}

function isAsciiLetter(byte: number): boolean {
  return (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}

function byteAtom(byte: number, fold: boolean): string {
  if (fold && isAsciiLetter(byte)) return `[${hex(byte)}${hex(byte ^ 0x20)}]`;
  return hex(byte);
}

// Each member contributes its UTF-8 bytes; a range spans from the last byte of its start to the first byte
// of its end, with the other bytes of both ends as single members, the way globset writes a byte class.
function classAtom(negated: boolean, ranges: readonly (readonly [string, string])[], fold: boolean): string {
  const members = new Uint8Array(256);
  const add = (lo: number, hi: number) => {
    for (let b = lo; b <= hi; b++) members[b] = 1;
  };
  for (const [start, end] of ranges) {
    const a = encodeUtf8(start);
    const b = encodeUtf8(end);
    if (start === end) {
      for (const byte of a) add(byte, byte);
      continue;
    }
    for (let i = 0; i < a.length - 1; i++) add(a[i] as number, a[i] as number);
    add(a[a.length - 1] as number, b[0] as number);
    for (let i = 1; i < b.length; i++) add(b[i] as number, b[i] as number);
  }
  if (fold) {
    for (let byte = 0; byte < 128; byte++) if (members[byte] && isAsciiLetter(byte)) members[byte ^ 0x20] = 1;
  }
  const body = memberRuns(members).map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`));
  return `[${negated ? "^" : ""}${body.join("")}]`;
}
