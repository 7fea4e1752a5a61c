// The `-g` / `--iglob` override matcher (rules O1-O7): gitignore lines with `!` flipped, so a plain glob
// includes and `!glob` excludes.
import type { GlobArg } from "../backend.ts";
import { SearchError } from "../errors.ts";
import { type GlobRule, matchRules, parseRule, RuleSyntaxError } from "./rules.ts";

/** What the overrides say about one path. */
export type OverrideMatch = "include" | "exclude" | undefined;

export interface Overrides {
  match(path: string, isDir: boolean): OverrideMatch;
}

/** Compiles the globs of a request; a malformed one fails SEARCH_INVALID_PATTERN with ripgrep's message. */
export function compileOverrides(globs: readonly GlobArg[] | undefined): Overrides {
  const rules: GlobRule[] = [];
  // ripgrep adds every case-insensitive glob after all the others, whatever the command-line order.
  const ordered = [...(globs ?? []).filter((g) => !g.caseInsensitive), ...(globs ?? []).filter((g) => g.caseInsensitive)];
  for (const { glob, caseInsensitive } of ordered) {
    try {
      const rule = parseRule(glob, { caseInsensitive: caseInsensitive ?? false });
      if (rule) rules.push(rule);
    } catch (error) {
      if (error instanceof RuleSyntaxError) {
        throw new SearchError("SEARCH_INVALID_PATTERN", error.message, { details: { glob } });
      }
      throw error;
    }
  }
  const includes = rules.some((r) => !r.negated);
  return {
    match(path, isDir) {
      const found = matchRules(rules, path, isDir);
      if (found === "ignore") return "include";
      if (found === "whitelist") return "exclude";
      return includes && !isDir ? "exclude" : undefined;
    },
  };
}
