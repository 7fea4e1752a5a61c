// What the read-side tools (read, glob, grep) receive for one call when the sandbox limits what they may see:
// the check for a path, the filter for a listing, and search with hidden results removed.
import type { FileSystem, FsTarget } from "../fs/types.ts";
import type { ShellConfinement } from "../process/bubblewrap.ts";
import type { SearchBackend } from "../search/backend.ts";
import { checkReadable, readableFilter, type SandboxRules } from "./sandbox.ts";
import { guardSearch } from "./search.ts";

export interface ReadAccess {
  /** Throws FS_SANDBOX_DENIED when the model may not see `target`; `verb` goes into the message. */
  check(target: FsTarget, verb?: string): void;
  /** True when the model may see the canonical absolute path `key`. */
  visible(key: string): boolean;
  /**
   * `backend` with a hidden root refused and hidden results dropped, run where the rules hold against a
   * racing swap (see guardSearch).
   */
  search(backend: SearchBackend): SearchBackend;
}

/**
 * The read access the rules allow; undefined when they allow every read (nothing to check). `confinement`
 * is the OS confinement a search may run in (the one bash gets).
 */
export function readAccess(fs: FileSystem, rules: SandboxRules, confinement?: ShellConfinement): ReadAccess | undefined {
  if (rules.readable === undefined && rules.deny.empty) return undefined;
  const visible = readableFilter(rules);
  return {
    check: (target, verb) => checkReadable(fs, rules, target, verb),
    visible,
    search: (backend) => guardSearch(backend, fs, rules, confinement),
  };
}
