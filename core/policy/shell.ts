// The confined shell's view of the filesystem, derived from the same rules as the file tools' fence: the
// writable roots, the protected paths inside them, the read scope and the deny list. Deny patterns are globs,
// and a mount can only hide a path that exists, so they are expanded here, at the start of each command, by
// walking the workspace (and the readable roots under the "workspace" read scope). What a pattern would match
// but that does not exist yet, or that lies elsewhere, cannot be hidden this way; see note 0010.
import { FsError, throwIfAborted } from "../fs/errors.ts";
import { baseName, isWithin, joinPath, parentPath } from "../fs/paths.ts";
import type { FileSystem, FsTarget } from "../fs/types.ts";
import type { ConfinementView } from "../process/bubblewrap.ts";
import { type SandboxMode, sandboxMarker, type SandboxRules } from "./sandbox.ts";

/**
 * Entries a deny-list walk may visit before the command is refused rather than run with the list unapplied.
 * A walk costs about 20-30 µs an entry (measured on a 2-core VM, warm), so this bounds it near 2-3 s.
 */
export const DEFAULT_DENY_SCAN_LIMIT = 100_000;

export interface ShellViewOptions {
  readonly signal?: AbortSignal;
  /** See {@link DEFAULT_DENY_SCAN_LIMIT}. */
  readonly scanLimit?: number;
}

type Mask = ConfinementView["masks"][number];

/** The view for one command under `rules` and `mode`. */
export async function shellView(fs: FileSystem, rules: SandboxRules, mode: SandboxMode, options?: ShellViewOptions): Promise<ConfinementView> {
  const signal = options?.signal;
  const exists = async (target: FsTarget) => (await fs.stat(target, signal ? { signal } : undefined))?.type;
  const writable: string[] = [];
  const readOnly: string[] = [];
  if (mode === "workspace-write") {
    for (const root of rules.writable) if ((await exists(root)) === "directory") writable.push(root.key);
    for (const path of rules.protected) {
      if (writable.some((root) => isWithin(root, path.key)) && (await exists(path)) !== undefined) readOnly.push(path.key);
    }
  }
  let readable: string[] | undefined;
  if (rules.readable) {
    readable = [];
    for (const root of rules.readable) if ((await exists(root)) === "directory") readable.push(root.key);
  }
  const masks = await denyMasks(fs, rules, mode, options);
  const pinned = pins(rules, masks, mode === "full-access", writable, readOnly);
  return {
    writeAnywhere: mode === "full-access",
    writable: [...new Set(writable)],
    readOnly: [...new Set(readOnly)],
    ...(readable ? { readable: [...new Set(readable)] } : {}),
    ...(pinned.length > 0 ? { pinned } : {}),
    masks,
    network: rules.policy.network,
  };
}

/**
 * The writable directories above the masks, which a command could rename to carry a denied path somewhere its
 * pattern no longer names (`mv config cfg` with `config/secrets.json` denied): each is bound onto itself, and
 * the kernel refuses to rename a mount point. Mounts move with a renamed parent inside the sandbox, so the
 * mask alone would still hide the file there, but the host would see it at a path no rule denies. A mask
 * denied by its own name (`.env`) stays denied wherever it is moved and needs none; a read-only directory
 * cannot be renamed anyway; a root or a mask is a mount point already.
 */
function pins(rules: SandboxRules, masks: readonly Mask[], writeAnywhere: boolean, writable: readonly string[], readOnly: readonly string[]): string[] {
  const mounted = new Set([...writable, ...readOnly, ...masks.map((mask) => mask.path), "/"]);
  const isWritable = (dir: string) => (writeAnywhere || writable.some((root) => isWithin(root, dir))) && !readOnly.some((path) => isWithin(path, dir));
  const out = new Set<string>();
  for (const mask of masks) {
    if (rules.deny.deniesName(baseName(mask.path))) continue;
    for (let dir = parentPath(mask.path); dir !== "/" && !out.has(dir); dir = parentPath(dir)) {
      if (!mounted.has(dir) && isWritable(dir)) out.add(dir);
    }
  }
  return [...out];
}

async function denyMasks(fs: FileSystem, rules: SandboxRules, mode: SandboxMode, options: ShellViewOptions | undefined): Promise<Mask[]> {
  const deny = rules.deny;
  if (deny.empty) return [];
  const signal = options?.signal;
  const found = new Map<string, boolean>();
  const add = async (target: FsTarget) => {
    const info = await fs.stat(target, signal ? { signal } : undefined).catch(() => undefined);
    if (info) found.set(target.key, info.type === "directory");
  };
  for (const literal of deny.literals) {
    const target = await fs.resolve(literal, signal ? { signal } : undefined).catch(() => undefined);
    if (target) await add(target);
  }
  if (deny.needsWalk) {
    const limit = options?.scanLimit ?? DEFAULT_DENY_SCAN_LIMIT;
    const denied = deny.matcher();
    // The workspace and the readable roots; not the other writable roots, which are usually the system's
    // temp directories, shared with every other program.
    const others = rules.writable.slice(1).map((root) => root.key);
    const roots = [rules.writable[0]!, ...(rules.readable ?? []).filter((root) => !others.includes(root.key))].sort((a, b) => a.key.length - b.key.length);
    const pending: FsTarget[] = [];
    for (const root of roots) {
      if (pending.some((other) => isWithin(other.key, root.key))) continue;
      if (denied(root.key) !== undefined) await add(root);
      else pending.push(root);
    }
    let visited = 0;
    const visit = async (dir: FsTarget): Promise<void> => {
      throwIfAborted(signal);
      const entries = await fs.listDir(dir, signal ? { signal } : undefined).catch(() => []);
      visited += entries.length;
      if (visited > limit) {
        throw new FsError(
          "FS_SANDBOX_DENIED",
          `${sandboxMarker(mode)} The command was not run: hiding the deny list's matches from it means checking every ` +
            `path under ${roots.map((r) => r.key).join(", ")}, and there are more than ${limit}. Ask the user to narrow the workspace or the deny list`,
          { details: { mode, rule: "deny", limit } },
        );
      }
      for (const entry of entries) {
        // The entry as it sits in the directory (the walk follows no link), and where a symlink leads.
        const path = joinPath(dir.key, entry.name);
        if (denied(path) !== undefined) {
          if (entry.type === "symlink") await add(entry.target);
          else found.set(path, entry.type === "directory");
        } else if (entry.type === "symlink") {
          if (denied(entry.target.key) !== undefined) await add(entry.target);
        } else if (entry.type === "directory") {
          pending.push({ key: path as FsTarget["key"], displayPath: path });
        }
      }
    };
    for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) await visit(dir);
  }
  // A mask inside a hidden directory is both needless and impossible (its mount point is gone).
  const sorted = [...found].sort(([a], [b]) => a.length - b.length);
  const masks: Mask[] = [];
  for (const [path, directory] of sorted) {
    if (masks.some((mask) => mask.directory && isWithin(mask.path, path))) continue;
    masks.push({ path, directory });
  }
  return masks;
}
