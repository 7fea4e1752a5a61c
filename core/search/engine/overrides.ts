// The `-g` / `--iglob` override matcher (rules O1-O7): gitignore lines with `!` flipped, so a plain glob
// includes and `!glob` excludes.
import type { GlobArg } from "../backend.ts";
import { SearchError } from "../errors.ts";
import { MAX_GLOB_BYTES } from "../limits.ts";
import { GLOB_NEST_LIMIT } from "./glob.ts";
import { type GlobRule, matchRules, type ParsedRule, readRule, RuleSyntaxError } from "./rules.ts";
import { utf8Length } from "./text.ts";

/** What the overrides say about one path. */
export type OverrideMatch = "include" | "exclude" | undefined;

export interface Overrides {
  match(path: string, isDir: boolean): OverrideMatch;
}

/** Compiles the globs of a request; a malformed one fails SEARCH_INVALID_PATTERN with ripgrep's message. */
export function compileOverrides(globs: readonly GlobArg[] | undefined): Overrides {
  const parsed = parseOverrides(globs);
  const rules: GlobRule[] = [];
  for (const { rule, glob } of parsed) rules.push(invalidOnFailure(glob, () => rule.compile()));
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

/**
 * The checks ripgrep's backend makes before it starts ripgrep, so that it refuses what the engine refuses with
 * the same message: the size limit, and (when every glob parses; otherwise ripgrep reports the syntax error
 * itself) ripgrep's nest limit, which ripgrep reports only as `error parsing pattern 0`.
 */
export function precheckGlobs(globs: readonly GlobArg[] | undefined): void {
  try {
    parseOverrides(globs);
  } catch (error) {
    if (error instanceof SearchError && error.details.tooDeep !== true && error.details.tooLong !== true) return;
    throw error;
  }
}

interface ParsedOverride {
  readonly glob: string;
  readonly rule: ParsedRule;
}

// ripgrep parses each glob as it is added (syntax errors first, in order), then builds the set, which is
// where the nest limit fails.
function parseOverrides(globs: readonly GlobArg[] | undefined): ParsedOverride[] {
  const all = globs ?? [];
  const bytes = all.reduce((n, { glob }) => n + utf8Length(glob), 0);
  if (bytes > MAX_GLOB_BYTES) {
    const what = all.length === 1 ? "The glob is" : `The ${all.length} globs are`;
    throw new SearchError(
      "SEARCH_INVALID_PATTERN",
      `${what} ${bytes} bytes long; a search takes at most ${MAX_GLOB_BYTES} bytes of globs. Use a shorter pattern.`,
      { details: { tooLong: true, bytes, maxBytes: MAX_GLOB_BYTES } },
    );
  }
  // ripgrep adds every case-insensitive glob after all the others, whatever the command-line order.
  const ordered = [...all.filter((g) => !g.caseInsensitive), ...all.filter((g) => g.caseInsensitive)];
  const parsed: ParsedOverride[] = [];
  for (const { glob, caseInsensitive } of ordered) {
    const rule = invalidOnFailure(glob, () => readRule(glob, { caseInsensitive: caseInsensitive ?? false }));
    if (rule) parsed.push({ glob, rule });
  }
  const deep = parsed.find(({ rule }) => rule.depth > GLOB_NEST_LIMIT);
  if (deep) invalidOnFailure(deep.glob, () => deep.rule.compile());
  return parsed;
}

function invalidOnFailure<T>(glob: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof RuleSyntaxError) {
      throw new SearchError("SEARCH_INVALID_PATTERN", error.message, { details: { glob, ...(error.tooDeep ? { tooDeep: true } : {}) } });
    }
    throw error;
  }
}
