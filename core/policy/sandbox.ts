import { FsError } from "../fs/errors.ts";
import { baseName, isAbsolutePath, isWithin, joinPath, parentPath, resolvePath } from "../fs/paths.ts";
import type { FileSystem, FsFence, FsTarget } from "../fs/types.ts";
import { DenyList } from "./deny.ts";

/** How far writes may reach: nowhere, the workspace and temp roots, or anywhere. */
export type SandboxMode = "read-only" | "workspace-write" | "full-access";

export const SANDBOX_MODES: readonly SandboxMode[] = ["read-only", "workspace-write", "full-access"];

/** Where reads may reach: anywhere (the default), or only the workspace and the readable and writable roots. */
export type ReadScope = "anywhere" | "workspace";

export const READ_SCOPES: readonly ReadScope[] = ["anywhere", "workspace"];

/**
 * Paths that stay read-only inside a writable root whatever else the host lists: git runs `.git`'s hooks and
 * obeys its config outside any sandbox the next time the user runs it.
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [".git"];

/** True when `mode` allows strictly more than `than`. */
export function isWiderMode(mode: SandboxMode, than: SandboxMode): boolean {
  return SANDBOX_MODES.indexOf(mode) > SANDBOX_MODES.indexOf(than);
}

/** The modes wider than `mode`, narrowest first. */
export function widerModes(mode: SandboxMode): SandboxMode[] {
  return SANDBOX_MODES.filter((m) => isWiderMode(m, mode));
}

/**
 * The access a mode grants, in words for the person asked to approve it: "full access", "workspace-write
 * access" (a bare `${mode} access` would read "full-access access").
 */
export function accessWords(mode: SandboxMode): string {
  return mode === "full-access" ? "full access" : `${mode} access`;
}

/** The line every sandbox refusal starts with, so a model (and a UI) can recognise one. */
export function sandboxMarker(mode: SandboxMode): string {
  return `[sandbox: ${mode}]`;
}

/**
 * Everything the sandbox decides, in one place: the file tools' fence, the read checks, the search filter and
 * the confined shell are all derived from it, so they cannot disagree.
 */
export interface SandboxPolicy {
  readonly mode: SandboxMode;
  /** Absolute; writable under workspace-write, always readable, and where relative deny patterns start. */
  readonly workspace: string;
  /** Absolute directories writable under workspace-write besides the workspace (such as temp directories). */
  readonly writableRoots: readonly string[];
  readonly readScope: ReadScope;
  /** Absolute directories readable under the "workspace" read scope besides the workspace and writable roots. */
  readonly readableRoots: readonly string[];
  /**
   * Read-only even inside a writable root: a name without `/` (such as `.git`) stands for that name in every
   * writable root; an absolute path for itself. Always includes {@link DEFAULT_PROTECTED_PATHS}.
   */
  readonly protectedPaths: readonly string[];
  /** Refused to every tool and hidden from the shell, in every mode. */
  readonly deny: DenyList;
  /** Whether a confined shell may use the network; by default only under full-access. */
  readonly network: boolean;
}

/** A {@link SandboxPolicy} resolved against the filesystem for one call: every root by its canonical key. */
export interface SandboxRules {
  readonly policy: SandboxPolicy;
  /** The workspace first, then the other writable roots. */
  readonly writable: readonly FsTarget[];
  /** Undefined when reads may go anywhere. */
  readonly readable: readonly FsTarget[] | undefined;
  /** Canonical protected paths, whether or not they exist yet. */
  readonly protected: readonly FsTarget[];
  /** The policy's deny list, each pattern also at its canonical literal prefix (see DenyList.canonical). */
  readonly deny: DenyList;
}

// A `.git` file (a worktree or submodule) names the real git directory, which runs hooks just the same.
const GITDIR_FILE_MAX = 4096;

/** Resolves the policy's roots and protected paths to canonical targets. */
export async function resolveSandbox(fs: FileSystem, policy: SandboxPolicy, signal?: AbortSignal): Promise<SandboxRules> {
  const resolve = (path: string) => fs.resolve(path, signal ? { signal } : undefined);
  const writable = await Promise.all([policy.workspace, ...policy.writableRoots].map(resolve));
  const readable = policy.readScope === "anywhere" ? undefined : [...writable, ...(await Promise.all(policy.readableRoots.map(resolve)))];
  const names = [...new Set([...DEFAULT_PROTECTED_PATHS, ...policy.protectedPaths])];
  const paths = names.flatMap((name) => (isAbsolutePath(name) ? [name] : writable.map((root) => joinPath(root.key, name))));
  const protectedTargets: FsTarget[] = [];
  for (const path of new Set(paths)) {
    const target = await resolve(path);
    protectedTargets.push(target);
    const gitdir = await gitdirOf(fs, target, signal);
    if (gitdir) protectedTargets.push(await fs.resolve(gitdir, { cwd: parentPath(target.key), ...(signal ? { signal } : {}) }));
  }
  const deny = await policy.deny.canonical(async (path) => (await resolve(path).catch(() => undefined))?.key);
  return { policy, writable, readable, protected: protectedTargets, deny };
}

/** The directory a `.git` file names (`gitdir: …`, relative to the file's folder or absolute); undefined for anything else. */
export async function gitdirOf(fs: FileSystem, target: FsTarget, signal: AbortSignal | undefined): Promise<string | undefined> {
  try {
    const info = await fs.stat(target, signal ? { signal } : undefined);
    if (info?.type !== "file" || info.size > GITDIR_FILE_MAX) return undefined;
    const { bytes } = await fs.readBytes(target, { maxBytes: GITDIR_FILE_MAX, ...(signal ? { signal } : {}) });
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(new TextDecoder().decode(bytes));
    return match?.[1];
  } catch {
    return undefined;
  }
}

/** Why the sandbox refused a path; hosts and the toolkit branch on it (a deny-list refusal cannot be escalated). */
export type SandboxRule = "read-only" | "outside-writable" | "protected" | "deny" | "outside-readable";

/**
 * A publication fence for one call. It judges the canonical destination the provider hands it (re-resolved
 * right before publication, so symlinks and `..` are already followed) against canonical writable roots,
 * segment by segment (`/ws` does not contain `/ws-evil`). The deny list applies in every mode; protected
 * paths in workspace-write, where writes would otherwise reach them.
 */
export function sandboxFence(
  fs: FileSystem,
  mode: SandboxMode,
  roots: readonly FsTarget[],
  extra?: { readonly protected?: readonly FsTarget[]; readonly deny?: DenyList },
): FsFence {
  const deny = extra?.deny ?? DenyList.none;
  return async (destination) => {
    const pattern = deny.match(destination.displayPath) ?? deny.match(destination.key);
    if (pattern !== undefined) throw denied(mode, destination, "write", `it is on the deny list (${JSON.stringify(pattern)})`, "deny");
    if (mode === "full-access") return;
    if (mode === "read-only") throw denied(mode, destination, "write", "writes are not allowed in this session", "read-only");
    if (!roots.some((root) => fs.contains(root, destination))) {
      throw denied(mode, destination, "write", `it is outside the writable roots (${roots.map((r) => r.key).join(", ")})`, "outside-writable");
    }
    const listed = extra?.protected?.find((path) => fs.contains(path, destination))?.key;
    const gitDir = listed === undefined ? await gitDirectoryAbove(fs, roots, destination) : undefined;
    const guarded = listed ?? gitDir;
    if (guarded !== undefined) {
      const git = gitDir !== undefined || baseName(guarded) === ".git" || guarded.includes("/.git/");
      const what = git ? " (git runs its hooks and config outside the sandbox)" : "";
      throw denied(mode, destination, "write", `"${guarded}" is protected and stays read-only${what}`, "protected");
    }
  };
}

/**
 * The git directory `destination` lies in, below the writable root that holds it; undefined when none. A
 * repository nested at any depth has one, and git runs its hooks the next time the user commits there: a
 * `.git` segment (any case: git on a case-insensitive disk reads `.GIT` too), or a directory git itself would
 * take for one (a `HEAD` file beside `objects` and `refs`, or a worktree's `commondir`), which is where a
 * `gitdir:` file points. The root itself is not judged: a workspace that is a bare repository stays writable.
 */
async function gitDirectoryAbove(fs: FileSystem, roots: readonly FsTarget[], destination: FsTarget): Promise<string | undefined> {
  const root = roots.filter((r) => fs.contains(r, destination)).sort((a, b) => b.key.length - a.key.length)[0];
  if (!root || destination.key === root.key) return undefined;
  const below = (root.key === "/" ? destination.key.slice(1) : destination.key.slice(root.key.length + 1)).split("/");
  let dir: string = root.key;
  for (const segment of below) {
    const path = joinPath(dir, segment);
    if (segment.toLowerCase() === ".git") return path;
    dir = path;
  }
  // The directories between the root and the destination, nearest the root first.
  dir = root.key;
  for (const segment of below.slice(0, -1)) {
    dir = joinPath(dir, segment);
    if (await isGitDirectory(fs, dir)) return dir;
  }
  return undefined;
}

async function isGitDirectory(fs: FileSystem, dir: string): Promise<boolean> {
  const type = async (name: string) => {
    try {
      return (await fs.stat(await fs.resolve(joinPath(dir, name))))?.type;
    } catch {
      return undefined;
    }
  };
  if ((await type("HEAD")) !== "file") return false;
  if ((await type("commondir")) === "file") return true;
  return (await type("objects")) === "directory" && (await type("refs")) === "directory";
}

/** The fence for a call under resolved rules and a mode (the standing one, or one approved for the call). */
export function rulesFence(fs: FileSystem, rules: SandboxRules, mode: SandboxMode): FsFence {
  return sandboxFence(fs, mode, rules.writable, { protected: rules.protected, deny: rules.deny });
}

/**
 * Refuses, with FS_SANDBOX_DENIED, a read (or search) of a target the rules do not let the model see: one on
 * the deny list (by the path as given or as resolved), or, under the "workspace" read scope, one whose
 * canonical path lies outside every readable root.
 */
export function checkReadable(fs: FileSystem, rules: SandboxRules, target: FsTarget, verb = "read"): void {
  const mode = rules.policy.mode;
  const pattern = rules.deny.match(target.displayPath) ?? rules.deny.match(target.key);
  if (pattern !== undefined) throw denied(mode, target, verb, `it is on the deny list (${JSON.stringify(pattern)})`, "deny");
  const readable = rules.readable;
  if (readable && !readable.some((root) => fs.contains(root, target))) {
    throw denied(mode, target, verb, `it is outside the readable roots (${readable.map((r) => r.key).join(", ")})`, "outside-readable");
  }
}

/**
 * A predicate for many canonical absolute paths at once (a listing or a search result): true for those the
 * rules let the model see.
 */
export function readableFilter(rules: SandboxRules): (key: string) => boolean {
  const deny = rules.deny.matcher();
  const readable = rules.readable;
  return (key) => deny(key) === undefined && (readable === undefined || readable.some((root) => isWithin(root.key, key)));
}

function denied(mode: SandboxMode, target: FsTarget, verb: string, why: string, rule: SandboxRule): FsError {
  const resolved = target.key === target.displayPath ? "" : ` (resolves to "${target.key}")`;
  return new FsError("FS_SANDBOX_DENIED", `${sandboxMarker(mode)} Cannot ${verb} "${target.displayPath}"${resolved}: ${why}`, {
    details: { path: target.displayPath, mode, destination: target.key, rule, reason: why },
  });
}

/** Builds a policy from host options, checking every path; throws RangeError for a bad one. */
export function sandboxPolicy(options: {
  readonly mode: SandboxMode;
  readonly workspace: string;
  readonly writableRoots?: readonly string[] | undefined;
  readonly readScope?: ReadScope | undefined;
  readonly readableRoots?: readonly string[] | undefined;
  readonly protectedPaths?: readonly string[] | undefined;
  readonly deny?: readonly string[] | undefined;
  readonly home?: string | undefined;
  readonly network?: boolean | undefined;
}): SandboxPolicy {
  if (!SANDBOX_MODES.includes(options.mode))
    throw new RangeError(`sandbox mode must be one of ${SANDBOX_MODES.join(", ")}, got ${JSON.stringify(options.mode)}`);
  const readScope = options.readScope ?? "anywhere";
  if (!READ_SCOPES.includes(readScope)) throw new RangeError(`readScope must be one of ${READ_SCOPES.join(", ")}, got ${JSON.stringify(readScope)}`);
  const absolute = (what: string) => (path: string) => {
    if (typeof path !== "string" || !isAbsolutePath(path) || path.includes("\0"))
      throw new RangeError(`${what} must be absolute paths, got ${JSON.stringify(path)}`);
    return resolvePath("/", path);
  };
  const protectedPaths = (options.protectedPaths ?? []).map((path) => {
    if (typeof path !== "string" || path === "" || path.includes("\0") || (!isAbsolutePath(path) && (path.includes("/") || path === "." || path === ".."))) {
      throw new RangeError(`protectedPaths must be names (such as ".git") or absolute paths, got ${JSON.stringify(path)}`);
    }
    return isAbsolutePath(path) ? resolvePath("/", path) : path;
  });
  const workspace = absolute("workspace")(options.workspace);
  return {
    mode: options.mode,
    workspace,
    writableRoots: (options.writableRoots ?? []).map(absolute("writableRoots")),
    readScope,
    readableRoots: (options.readableRoots ?? []).map(absolute("readableRoots")),
    protectedPaths,
    deny: DenyList.compile(options.deny ?? [], { workspace, home: options.home }),
    // Full-access confines bash only to hide the deny list; it keeps the network unless told otherwise.
    network: options.network ?? options.mode === "full-access",
  };
}
