// Glob rules the way ripgrep reads them: a `-g` value and a line of an ignore file share one syntax (the
// gitignore line), and only the meaning of `!` differs. Rules O1-O7 of the research spec.
import { compileGlob, GlobSyntaxError } from "./glob.ts";
import { trimEndWhiteSpace } from "./text.ts";

/** One parsed rule line. */
export interface GlobRule {
  readonly regex: RegExp;
  /** The line started with `!`. */
  readonly negated: boolean;
  /** The line ended with `/`: it applies to directories only. */
  readonly dirOnly: boolean;
}

/** A rule line that does not compile; the message is ripgrep's `error parsing glob '…': …`. */
export class RuleSyntaxError extends Error {
  override readonly name = "RuleSyntaxError";
}

export interface RuleOptions {
  readonly caseInsensitive?: boolean;
  /** Ignore files read an unclosed `[` as a literal; `-g` values fail on it. */
  readonly allowUnclosedClass?: boolean;
}

/** Parses one rule line; undefined for a comment or a blank line. Throws RuleSyntaxError. */
export function parseRule(line: string, options?: RuleOptions): GlobRule | undefined {
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
  try {
    const regex = compileGlob(glob, options);
    return { regex, negated, dirOnly };
  } catch (error) {
    if (error instanceof GlobSyntaxError) throw new RuleSyntaxError(`error parsing glob '${original}': ${error.message}`);
    throw error;
  }
}

/** How a rule list judged a path: gitignore terms, where `whitelist` is a `!` line. */
export type RuleMatch = "ignore" | "whitelist" | undefined;

/** The last rule that matches `path` (a byte string) decides; directory-only rules skip files. */
export function matchRules(rules: readonly GlobRule[], path: string, isDir: boolean): RuleMatch {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i] as GlobRule;
    if (rule.dirOnly && !isDir) continue;
    if (rule.regex.test(path)) return rule.negated ? "whitelist" : "ignore";
  }
  return undefined;
}
