// Glob rules the way ripgrep reads them: a `-g` value and a line of an ignore file share one syntax (the
// gitignore line), and only the meaning of `!` differs. Rules O1-O7 of the research spec.
import { quoteInput } from "../../errors/mod.ts";
import { type GlobMatcher, GlobSyntaxError, GlobTooDeepError, parseGlob } from "./glob.ts";
import { trimEndWhiteSpace } from "./text.ts";

/** One parsed rule line. */
export interface GlobRule {
  readonly matcher: GlobMatcher;
  /** The line started with `!`. */
  readonly negated: boolean;
  /** The line ended with `/`: it applies to directories only. */
  readonly dirOnly: boolean;
}

/** A rule line that does not compile; the message is ripgrep's `error parsing glob '…': …`. */
export class RuleSyntaxError extends Error {
  override readonly name = "RuleSyntaxError";
  /**
   * The glob parses but nests past ripgrep's limit: ripgrep only notices when it builds the whole set, so such
   * a line fails every `-g` value at once and drops its whole ignore file.
   */
  readonly tooDeep: boolean;

  constructor(message: string, tooDeep = false) {
    super(message);
    this.tooDeep = tooDeep;
  }
}

/** A parsed rule line whose glob is compiled on demand (so every line's syntax is checked first). */
export interface ParsedRule {
  readonly negated: boolean;
  readonly dirOnly: boolean;
  /** How deep ripgrep's regex for the glob nests (see GLOB_NEST_LIMIT). */
  readonly depth: number;
  /** Throws RuleSyntaxError with `tooDeep` set past ripgrep's nest limit. */
  compile(): GlobRule;
}

export interface RuleOptions {
  readonly caseInsensitive?: boolean;
  /** Ignore files read an unclosed `[` as a literal; `-g` values fail on it. */
  readonly allowUnclosedClass?: boolean;
}

/** Parses and compiles one rule line; undefined for a comment or a blank line. Throws RuleSyntaxError. */
export function parseRule(line: string, options?: RuleOptions): GlobRule | undefined {
  return readRule(line, options)?.compile();
}

/** Parses one rule line without compiling it; undefined for a comment or a blank line. Throws RuleSyntaxError. */
export function readRule(line: string, options?: RuleOptions): ParsedRule | undefined {
  if (line.startsWith("#")) return undefined;
  const original = line.endsWith("\\ ") ? line : trimEndWhiteSpace(line);
  if (original === "") return undefined;
  let glob = original;
  let negated = false;
  let anchored = false;
  if (glob.startsWith("\\!") || glob.startsWith("\\#")) {
    glob = glob.slice(1);
  } else {
    if (glob.startsWith("!")) {
      negated = true;
      glob = glob.slice(1);
    }
    if (glob.startsWith("/")) {
      anchored = true;
      glob = glob.slice(1);
    }
  }
  let dirOnly = false;
  if (glob.endsWith("/")) {
    dirOnly = true;
    glob = glob.slice(0, -1);
    if (glob.endsWith("\\")) glob = glob.slice(0, -1);
  }
  if (!anchored && !glob.includes("/") && !glob.startsWith("**/") && glob !== "**") glob = `**/${glob}`;
  if (glob.endsWith("/**")) glob = `${glob}/*`;
  const fail = (error: unknown): never => {
    if (error instanceof GlobSyntaxError) {
      throw new RuleSyntaxError(`error parsing glob ${quoteInput(original, "'")}: ${error.message}`, error instanceof GlobTooDeepError);
    }
    throw error;
  };
  let parsed: ReturnType<typeof parseGlob>;
  try {
    parsed = parseGlob(glob, options);
  } catch (error) {
    return fail(error);
  }
  return {
    negated,
    dirOnly,
    depth: parsed.depth,
    compile() {
      try {
        return { matcher: parsed.compile(), negated, dirOnly };
      } catch (error) {
        return fail(error);
      }
    },
  };
}

/** How a rule list judged a path: gitignore terms, where `whitelist` is a `!` line. */
export type RuleMatch = "ignore" | "whitelist" | undefined;

/** The last rule that matches `path` (a byte string) decides; directory-only rules skip files. */
export function matchRules(rules: readonly GlobRule[], path: string, isDir: boolean): RuleMatch {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i] as GlobRule;
    if (rule.dirOnly && !isDir) continue;
    if (rule.matcher.test(path)) return rule.negated ? "whitelist" : "ignore";
  }
  return undefined;
}
