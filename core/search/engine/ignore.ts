// ripgrep's default ignore rules (research spec §6): `.rgignore`, `.ignore` and `.gitignore` files in the
// walked directories and in every ancestor of the search root, `.git/info/exclude`, repository boundaries.
// The global git excludes file is never read (the ripgrep backend passes --no-ignore-global).
import type { FileSystem, FsDirEntry, FsTarget } from "../../fs/mod.ts";
import { GLOB_NEST_LIMIT } from "./glob.ts";
import { type GlobRule, matchRules, type ParsedRule, type RuleMatch, RuleSyntaxError, readRule } from "./rules.ts";
import { byteString, strictUtf8 } from "./text.ts";

/** The ignore rules of one directory, linked to those of its parent directory. */
export interface IgnoreLevel {
  /** Absolute path of the directory, as a byte string (see byteString). */
  readonly dirBytes: string;
  readonly parent: IgnoreLevel | undefined;
  /** The directory holds `.git` (directory or file) or `.jj`: a repository root. */
  readonly hasGit: boolean;
  /** This directory or an ancestor is a repository root, so `.gitignore` files count. */
  readonly anyGit: boolean;
  /** This level or one above it has at least one rule. */
  readonly anyRules: boolean;
  readonly rgignore: readonly GlobRule[];
  readonly ignore: readonly GlobRule[];
  readonly gitignore: readonly GlobRule[];
  readonly exclude: readonly GlobRule[];
}

const NONE: readonly GlobRule[] = [];

/**
 * Decides a path by the ignore files from `level` upwards. Within one kind of file the deepest match wins;
 * across kinds `.rgignore` beats `.ignore`, which beats `.gitignore`, which beats `.git/info/exclude`, at
 * any depth. `.gitignore` and exclude rules stop at the first repository root.
 */
export function matchIgnore(level: IgnoreLevel, absBytes: string, isDir: boolean): RuleMatch {
  if (!level.anyRules) return undefined;
  let rg: RuleMatch;
  let ig: RuleMatch;
  let gi: RuleMatch;
  let ex: RuleMatch;
  const git = level.anyGit;
  let sawGit = false;
  for (let l: IgnoreLevel | undefined = level; l; l = l.parent) {
    if (!l.anyRules) break;
    const checkGit = git && !sawGit;
    if (l.rgignore.length + l.ignore.length > 0 || (checkGit && l.gitignore.length + l.exclude.length > 0)) {
      const rel = relativeTo(l.dirBytes, absBytes);
      rg ??= matchRules(l.rgignore, rel, isDir);
      ig ??= matchRules(l.ignore, rel, isDir);
      if (checkGit) {
        gi ??= matchRules(l.gitignore, rel, isDir);
        ex ??= matchRules(l.exclude, rel, isDir);
      }
    }
    sawGit ||= l.hasGit;
  }
  return rg ?? ig ?? gi ?? ex;
}

function relativeTo(dirBytes: string, absBytes: string): string {
  return absBytes.slice(dirBytes === "/" ? 1 : dirBytes.length + 1);
}

/** Builds the levels for the ancestors of `dir` (outermost first), ending with the one for its parent. */
export async function ancestorLevels(fs: FileSystem, dir: string, signal: AbortSignal | undefined): Promise<IgnoreLevel | undefined> {
  const ancestors: string[] = [];
  for (let d = dir; d !== "/"; ) {
    d = d.slice(0, Math.max(1, d.lastIndexOf("/")));
    ancestors.unshift(d);
  }
  let level: IgnoreLevel | undefined;
  for (const ancestor of ancestors) {
    const present = new Map<string, FsTarget>();
    for (const name of MARKERS) {
      const target = await fs.resolve(joinAbs(ancestor, name), { signal }).catch(() => undefined);
      if (target) present.set(name, target);
    }
    level = await buildLevel(fs, ancestor, present, level, signal);
  }
  return level;
}

/** Builds the level of a walked directory from its listing. */
export function childLevel(
  fs: FileSystem,
  dir: string,
  entries: readonly FsDirEntry[],
  parent: IgnoreLevel | undefined,
  signal: AbortSignal | undefined,
): Promise<IgnoreLevel> | IgnoreLevel {
  let present: Map<string, FsTarget> | undefined;
  for (const entry of entries) {
    if (entry.name.charCodeAt(0) !== 0x2e || !MARKERS.includes(entry.name)) continue;
    (present ??= new Map()).set(entry.name, entry.target);
  }
  if (!present) return plainLevel(dir, parent);
  return buildLevel(fs, dir, present, parent, signal);
}

const MARKERS = [".git", ".jj", ".rgignore", ".ignore", ".gitignore"];

function plainLevel(dir: string, parent: IgnoreLevel | undefined): IgnoreLevel {
  return {
    dirBytes: byteString(dir),
    parent,
    hasGit: false,
    anyGit: parent?.anyGit ?? false,
    anyRules: parent?.anyRules ?? false,
    rgignore: NONE,
    ignore: NONE,
    gitignore: NONE,
    exclude: NONE,
  };
}

async function buildLevel(
  fs: FileSystem,
  dir: string,
  present: ReadonlyMap<string, FsTarget>,
  parent: IgnoreLevel | undefined,
  signal: AbortSignal | undefined,
): Promise<IgnoreLevel> {
  // Existence follows symbolic links, as ripgrep's metadata check does.
  const exists = async (name: string) => {
    const target = present.get(name);
    return target ? await fs.stat(target, { signal }).catch(() => undefined) : undefined;
  };
  const git = await exists(".git");
  const hasGit = git !== undefined || (await exists(".jj")) !== undefined;
  const rgignore = await readRules(fs, present.get(".rgignore"), signal);
  const ignore = await readRules(fs, present.get(".ignore"), signal);
  const gitignore = await readRules(fs, present.get(".gitignore"), signal);
  let exclude = NONE;
  if (git?.type === "directory") {
    const target = await fs.resolve(joinAbs(dir, ".git/info/exclude"), { signal }).catch(() => undefined);
    exclude = await readRules(fs, target, signal);
  }
  const own = rgignore.length + ignore.length + gitignore.length + exclude.length > 0;
  return {
    dirBytes: byteString(dir),
    parent,
    hasGit,
    anyGit: hasGit || (parent?.anyGit ?? false),
    anyRules: own || (parent?.anyRules ?? false),
    rgignore,
    ignore,
    gitignore,
    exclude,
  };
}

function joinAbs(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

// Reads one ignore file; a missing or unreadable file has no rules, and a malformed line is skipped, as
// ripgrep only warns about both. Reading stops at the first line that is not UTF-8, as ripgrep's does. A
// line nested past ripgrep's limit makes ripgrep fail to build the file's matcher, so it warns and uses none
// of the file's rules.
async function readRules(fs: FileSystem, target: FsTarget | undefined, signal: AbortSignal | undefined): Promise<readonly GlobRule[]> {
  if (!target) return NONE;
  const read = await fs.readBytes(target, { maxBytes: Number.MAX_SAFE_INTEGER, signal }).catch(() => undefined);
  if (!read) return NONE;
  const parsed: ParsedRule[] = [];
  const bytes = read.bytes;
  let start = 0;
  for (let lineNo = 0; start < bytes.length; lineNo++) {
    let end = bytes.indexOf(0x0a, start);
    const next = end === -1 ? bytes.length : end + 1;
    if (end === -1) end = bytes.length;
    if (end > start && bytes[end - 1] === 0x0d) end--;
    let line = strictUtf8(bytes.subarray(start, end));
    if (line === undefined) break;
    if (lineNo === 0) line = line.replace(/^\uFEFF+/, "");
    try {
      const rule = readRule(line, { allowUnclosedClass: true });
      if (rule) parsed.push(rule);
    } catch (error) {
      if (!(error instanceof RuleSyntaxError)) throw error;
    }
    start = next;
  }
  if (parsed.length === 0 || parsed.some((rule) => rule.depth > GLOB_NEST_LIMIT)) return NONE;
  const rules: GlobRule[] = parsed.map((rule) => rule.compile());
  return rules;
}
