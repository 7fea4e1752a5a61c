// The glob compiler: one glob (already stripped of its rule syntax, see rules.ts) to a matcher over the
// path's UTF-8 bytes, each byte one character 0-255 (see byteString in text.ts). ripgrep's globset matches
// bytes, not characters, so `?` and classes see a multi-byte character as several units; matching the byte
// string reproduces that exactly. docs/notes/0003-search-engine.md explains why this is written by hand
// rather than taken from picomatch.
//
// This file parses; glob-tokens.ts measures the tokens and glob-automaton.ts matches with them, in time
// linear in the path length whatever the glob (docs/notes/0014).
import { GlobAutomaton, type GlobMatcher } from "./glob-automaton.ts";
import { alternates, sequenceShape, type Token } from "./glob-tokens.ts";

export { globSteps } from "./glob-automaton.ts";
export type { GlobMatcher } from "./glob-automaton.ts";

/** A glob that does not parse; `message` is globset's wording for the reason. */
export class GlobSyntaxError extends Error {
  override readonly name = "GlobSyntaxError";
}

/**
 * A glob that parses but nests deeper than ripgrep's regex parser allows once the glob is written as a
 * regex. ripgrep fails a `-g` value this way, and drops a whole ignore file holding such a line.
 */
export class GlobTooDeepError extends GlobSyntaxError {}

/** regex-syntax's default nest limit, which ripgrep's glob regexes are parsed under. */
export const GLOB_NEST_LIMIT = 250;

export interface GlobOptions {
  /** Fold ASCII letters only (`--iglob`); other characters stay case-sensitive, as in ripgrep. */
  readonly caseInsensitive?: boolean;
  /** Treat a `[` without its `]` as a literal (ignore files) instead of failing (`-g`). */
  readonly allowUnclosedClass?: boolean;
}

/** A parsed glob, checked for syntax; {@link ParsedGlob.compile} checks the nesting and builds the matcher. */
export interface ParsedGlob {
  /** How deep ripgrep's regex for this glob nests (regex-syntax's count); over GLOB_NEST_LIMIT fails. */
  readonly depth: number;
  /** Throws GlobTooDeepError past the nest limit. */
  compile(): GlobMatcher;
}

const STAR: Token = { kind: "star" };

/** Parses `glob`; throws GlobSyntaxError. */
export function parseGlob(glob: string, options?: GlobOptions): ParsedGlob {
  const tokens = new GlobParser(glob, options?.allowUnclosedClass ?? false).parse();
  const fold = options?.caseInsensitive ?? false;
  // A glob that is exactly `**` matches every path, including ones with no `/` at all (globset: `^.*$`).
  const everything = tokens.length === 1 && tokens[0]?.kind === "recursivePrefix";
  // globset writes `(?-u)^…$` (plus `(?i)`): a concatenation, one level, around the tokens' items.
  const depth = 1 + (everything ? 1 : sequenceShape(tokens).maxDepth);
  return {
    depth,
    compile() {
      if (depth > GLOB_NEST_LIMIT) {
        throw new GlobTooDeepError(`nested too deeply: ripgrep allows ${GLOB_NEST_LIMIT} levels once it writes a glob as a regex, and this one needs ${depth}`);
      }
      return new GlobAutomaton(tokens, fold, everything);
    },
  };
}

/** Compiles `glob` to a matcher; throws GlobSyntaxError (GlobTooDeepError past the nest limit). */
export function compileGlob(glob: string, options?: GlobOptions): GlobMatcher {
  return parseGlob(glob, options).compile();
}

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
          this.#push(alternates(this.#branches.splice(start)));
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
