// The deny list: paths no tool may read or write and the confined shell cannot see, in every sandbox mode.
// Patterns are globs with ripgrep's syntax (compiled by the search engine's compiler, so `*` stays within one
// segment and `**` crosses them), judged against absolute paths. A path is denied when it, or any directory
// above it, matches: denying `~/.ssh` denies everything inside it. Patterns and paths are compared folded (lower
// case, NFC), so `.env` also denies `.ENV` and a decomposed spelling of a name; see note 0009 for why always.
import { isAbsolutePath, normalizeAbsolute, resolvePath } from "../fs/paths.ts";
import { compileGlob, type GlobMatcher, GlobSyntaxError } from "../search/engine/glob.ts";
import { byteString } from "../search/engine/text.ts";

export interface DenyListOptions {
  /** Relative patterns that contain a `/` are anchored here. */
  readonly workspace: string;
  /** What a leading `~` stands for; a pattern that uses `~` without it is refused. */
  readonly home?: string | undefined;
}

interface Rule {
  readonly pattern: string;
  /** Matched against each segment's name (a pattern without `/`), or against whole absolute paths. */
  readonly scope: "name" | "path";
  readonly regex: GlobMatcher;
  /** The glob compiled, for a "path" rule absolute. */
  readonly glob: string;
  /** The absolute path it names when it has no wildcard. */
  readonly literal: string | undefined;
}

const WILDCARD = /[*?[\]{}\\]/;

/** Compiled deny patterns; see the module comment for what they match. */
export class DenyList {
  readonly patterns: readonly string[];
  readonly #rules: readonly Rule[];

  private constructor(patterns: readonly string[], rules: readonly Rule[]) {
    this.patterns = patterns;
    this.#rules = rules;
  }

  /**
   * Compiles the patterns. A pattern without `/` matches a file or directory name at any depth (`.env`,
   * `*.pem`); one starting with `/`, `~/` or `**` is absolute; any other relative one is anchored at the
   * workspace. Throws RangeError naming the pattern that is not a valid glob.
   */
  static compile(patterns: readonly string[], options: DenyListOptions): DenyList {
    const rules = patterns.map((pattern) => compileRule(pattern, options));
    return new DenyList([...patterns], rules);
  }

  /**
   * This list plus, for each pattern whose literal prefix (the segments before the first wildcard) resolves
   * elsewhere through a symlink, the same pattern at the canonical prefix: the file tools judge canonical
   * paths, so `~/.ssh` with `/home` a link to `/var/home` must also deny `/var/home/u/.ssh`. `resolve` gives
   * a path's canonical form (undefined when it cannot be resolved). Only the prefix is resolved: a symlink
   * below a wildcard is found by the shell's walk, not here.
   */
  async canonical(resolve: (path: string) => Promise<string | undefined>): Promise<DenyList> {
    const added: Rule[] = [];
    for (const rule of this.#rules) {
      if (rule.scope !== "path") continue;
      const segments = rule.glob.split("/");
      let literalEnd = segments.findIndex((segment) => WILDCARD.test(segment));
      if (literalEnd === -1) literalEnd = segments.length;
      const prefix = segments.slice(0, literalEnd).join("/");
      if (prefix === "" || prefix === "/") continue;
      const real = await resolve(prefix);
      if (real === undefined || real === prefix) continue;
      const rest = segments.slice(literalEnd);
      const glob = [escapeGlob(real === "/" ? "" : real), ...rest].join("/") || "/";
      const literal = rule.literal === undefined ? undefined : normalizeAbsolute([real, ...rest].join("/"));
      added.push({ pattern: rule.pattern, scope: "path", regex: compileGlob(fold(glob)), glob, literal });
    }
    return added.length === 0 ? this : new DenyList(this.patterns, [...this.#rules, ...added]);
  }

  static readonly none: DenyList = new DenyList([], []);

  get empty(): boolean {
    return this.#rules.length === 0;
  }

  /** Absolute paths the list names without a wildcard (they can be found without walking a tree). */
  get literals(): readonly string[] {
    return this.#rules.flatMap((rule) => (rule.literal === undefined ? [] : [rule.literal]));
  }

  /** True when some pattern has a wildcard or matches names, so only a walk finds what it denies. */
  get needsWalk(): boolean {
    return this.#rules.some((rule) => rule.literal === undefined);
  }

  /** The pattern that denies `path` (an absolute path) or a directory above it; undefined when none does. */
  match(path: string): string | undefined {
    if (this.#rules.length === 0) return undefined;
    const normalized = normalizeAbsolute(path);
    let prefix = "";
    for (const segment of normalized.split("/").slice(1)) {
      if (segment === "") break;
      prefix += `/${segment}`;
      const hit = this.#matchOne(prefix, segment);
      if (hit !== undefined) return hit;
    }
    return normalized === "/" ? this.#matchOne("/", "") : undefined;
  }

  /**
   * A `match` for many paths at once (a search result): remembers each directory's verdict, so a hundred
   * thousand paths under a few directories cost one check per directory and one per name.
   */
  matcher(): (path: string) => string | undefined {
    if (this.#rules.length === 0) return () => undefined;
    const directories = new Map<string, string | null>();
    const verdict = (prefix: string, segment: string, cache: boolean): string | undefined => {
      if (cache) {
        const known = directories.get(prefix);
        if (known !== undefined) return known ?? undefined;
      }
      const hit = this.#matchOne(prefix, segment);
      if (cache) directories.set(prefix, hit ?? null);
      return hit;
    };
    return (path) => {
      const segments = normalizeAbsolute(path).split("/").slice(1);
      let prefix = "";
      for (let i = 0; i < segments.length; i++) {
        const segment = segments[i]!;
        if (segment === "") break;
        prefix += `/${segment}`;
        const hit = verdict(prefix, segment, i < segments.length - 1);
        if (hit !== undefined) return hit;
      }
      return undefined;
    };
  }

  /**
   * True when a rule that matches names denies `name` wherever it is: renaming a directory above such a
   * path does not lift its denial, as it would for a pattern with a `/`.
   */
  deniesName(name: string): boolean {
    const bytes = byteString(fold(name));
    return this.#rules.some((rule) => rule.scope === "name" && rule.regex.test(bytes));
  }

  #matchOne(prefix: string, segment: string): string | undefined {
    const path = byteString(fold(prefix));
    const name = byteString(fold(segment));
    for (const rule of this.#rules) {
      if (rule.regex.test(rule.scope === "name" ? name : path)) return rule.pattern;
    }
    return undefined;
  }
}

function compileRule(pattern: string, options: DenyListOptions): Rule {
  if (typeof pattern !== "string" || pattern.trim() === "" || pattern.includes("\0")) {
    throw new RangeError(`deny patterns must be non-empty strings without NUL bytes, got ${JSON.stringify(pattern)}`);
  }
  let text = pattern.length > 1 ? pattern.replace(/\/+$/, "") : pattern;
  if (text === "~" || text.startsWith("~/")) {
    if (options.home === undefined || !isAbsolutePath(options.home)) {
      throw new RangeError(`deny pattern ${JSON.stringify(pattern)} starts with ~, but no home directory was given`);
    }
    text = options.home + text.slice(1);
  }
  let scope: Rule["scope"] = "path";
  let glob: string;
  if (!text.includes("/")) {
    scope = "name";
    glob = text;
  } else if (text.startsWith("**/")) {
    glob = `/${text}`;
  } else if (isAbsolutePath(text)) {
    glob = WILDCARD.test(text) ? text : normalizeAbsolute(text);
  } else {
    glob = resolvePath(options.workspace, text);
  }
  let regex: GlobMatcher;
  try {
    regex = compileGlob(fold(glob));
  } catch (error) {
    const reason = error instanceof GlobSyntaxError ? error.message : String(error);
    throw new RangeError(`deny pattern ${JSON.stringify(pattern)} is not a valid glob: ${reason}`);
  }
  const literal = scope === "path" && !WILDCARD.test(glob) ? normalizeAbsolute(glob) : undefined;
  return { pattern, scope, regex, glob, literal };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII, control characters included.
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Lower case, then NFC: what case-insensitive or normalizing volumes (APFS, HFS+, NTFS, ext4 casefold) treat
 * as one name. Folding a glob leaves its syntax alone: none of `*?[]{}\` has a case.
 */
function fold(text: string): string {
  const lower = text.toLowerCase();
  return NON_ASCII.test(lower) ? lower.normalize("NFC") : lower;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]{}\\]/g, "\\$&");
}
