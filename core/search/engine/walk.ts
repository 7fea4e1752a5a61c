// The tree walk shared by `files` and `grep` (rules W1-W6, and §1.3/§1.5/§2 of the research spec): which
// entries ripgrep visits, under which path, in which order.
import type { FileSystem, FsDirEntry, FsTarget } from "../../fs/mod.ts";
import type { SearchScope } from "../backend.ts";
import type { Budget } from "./budget.ts";
import { ancestorLevels, childLevel, type IgnoreLevel, matchIgnore } from "./ignore.ts";
import { compileOverrides, type Overrides } from "./overrides.ts";
import { compileTypes, type TypeFilter } from "./types.ts";
import { byteString, errorMessage } from "./text.ts";

/** A file the walk selected. */
export interface WalkedFile {
  /** The path as ripgrep prints it. */
  readonly path: string;
  readonly target: FsTarget;
  readonly mtimeMs: number;
  /** Bytes, as the listing or stat saw them (a hint for how much reading it ahead holds). */
  readonly size: number;
  /** Named as a path argument: ripgrep searches such a file whatever the filters and binary rules say. */
  readonly explicit: boolean;
}

interface Frame {
  readonly target: FsTarget;
  /** Output path of the directory; "" for the implicit root, whose entries print without a prefix. */
  readonly out: string;
  /** Canonical absolute path of the directory, for ignore-file matching. */
  readonly abs: string;
  readonly level: IgnoreLevel | undefined;
  /** Canonical keys of this directory and its ancestors in the walk, for loop detection under `follow`. */
  readonly chain: readonly { readonly key: string; readonly out: string }[];
}

/**
 * Walks the scope depth-first, each directory's entries in UTF-8 byte order, and hands every selected file
 * to `onFile` in that order. Per-path failures are appended to `problems`; the walk goes on.
 */
export async function walk(
  fs: FileSystem,
  scope: SearchScope,
  budget: Budget,
  problems: string[],
  onFile: (file: WalkedFile) => void | Promise<void>,
  overrides: Overrides = compileOverrides(scope.globs),
): Promise<{ withheld: number }> {
  const walker = new Walker(fs, scope, budget, problems, onFile, overrides);
  const paths = scope.paths;
  if (paths === undefined || paths.length === 0) {
    await walker.root(undefined, paths?.length ?? 0);
  } else {
    for (const path of paths) await walker.root(path, paths.length);
  }
  return { withheld: walker.withheld };
}

class Walker {
  readonly #fs: FileSystem;
  readonly #scope: SearchScope;
  readonly #budget: Budget;
  readonly #problems: string[];
  readonly #onFile: (file: WalkedFile) => void | Promise<void>;
  readonly #overrides: Overrides;
  readonly #types: TypeFilter | undefined;
  readonly #cwdBytes: string;
  /** Entries the filters selected that the read rules (`scope.readable`) kept the walk from. */
  withheld = 0;
  // The current root is the implicit one: ripgrep walks it as `./` and names paths that way in messages.
  #implicit = true;

  constructor(
    fs: FileSystem,
    scope: SearchScope,
    budget: Budget,
    problems: string[],
    onFile: (file: WalkedFile) => void | Promise<void>,
    overrides: Overrides,
  ) {
    this.#fs = fs;
    this.#scope = scope;
    this.#budget = budget;
    this.#problems = problems;
    this.#onFile = onFile;
    this.#overrides = overrides;
    this.#types = compileTypes(scope.types);
    this.#cwdBytes = byteString(scope.cwd);
  }

  async root(arg: string | undefined, count: number): Promise<void> {
    this.#budget.check();
    const signal = this.#budget.signal;
    const spelled = arg ?? ".";
    this.#implicit = arg === undefined;
    const target = await this.#fs.resolve(spelled, { cwd: this.#scope.cwd, signal }).catch(rethrowAbort(signal));
    if (target && this.#scope.readable && !this.#scope.readable(target.key)) {
      this.#problems.push(`${spelled}: not searched: it now leads where this search may not look`);
      return;
    }
    // A root named on the command line is followed even when it is a symbolic link.
    const info = target && (await this.#fs.stat(target, { signal }).catch(rethrowAbort(signal)));
    if (!target || !info) {
      const reason = "No such file or directory (os error 2)";
      this.#problems.push(count <= 1 ? `${spelled}: IO error for operation on ${spelled}: ${reason}` : `${spelled}: ${reason}`);
      return;
    }
    if (info.type === "file") {
      await this.#onFile({ path: spelled, target, mtimeMs: info.mtimeMs, size: info.size, explicit: true });
      return;
    }
    if (info.type !== "directory") return;
    const noIgnore = this.#scope.noIgnore ?? false;
    const parents = noIgnore ? undefined : await ancestorLevels(this.#fs, target.key, signal);
    await this.#directory({
      target,
      out: arg ?? "",
      abs: target.key,
      level: parents,
      chain: [{ key: target.key, out: arg ?? "./" }],
    });
  }

  async #directory(frame: Frame): Promise<void> {
    this.#budget.check();
    const signal = this.#budget.signal;
    let entries: FsDirEntry[];
    try {
      entries = await this.#fs.listDir(frame.target, { signal });
    } catch (error) {
      if (signal?.aborted) this.#budget.check();
      this.#problems.push(`${frame.out === "" ? "." : frame.out}: ${errorMessage(error)}`);
      return;
    }
    // Ignore rules match the path as walked (through a followed link, not its target), as ripgrep's do.
    const level = this.#scope.noIgnore ? undefined : await childLevel(this.#fs, frame.abs, entries, frame.level, signal);
    for (const entry of entries) {
      const pause = this.#budget.pace(32 + entry.name.length);
      if (pause) await pause;
      let type = entry.type;
      const target = entry.target;
      const out = joinOut(frame.out, entry.name);
      const abs = `${frame.abs === "/" ? "" : frame.abs}/${entry.name}`;
      // Judged on the canonical path the listing found (a symlink's target), which is what would be read, and
      // never read or listed. ripgrep, which cannot judge, would have searched what the filters select here and
      // its caller dropped it: counted, so "nothing was searched" is said only when ripgrep would say it too.
      if (this.#scope.readable && !this.#scope.readable(target.key)) {
        if (type === "symlink" && !this.#scope.follow) continue;
        if (this.#selected(out, abs, entry.name, type === "directory", level)) this.withheld++;
        continue;
      }
      let mtimeMs = entry.mtimeMs;
      let size = entry.size;
      if (type === "symlink") {
        if (!this.#scope.follow) continue;
        const info = await this.#fs.stat(target, { signal }).catch(rethrowAbort(signal));
        if (!info) {
          this.#problems.push(`${this.#shown(out)}: No such file or directory (os error 2)`);
          continue;
        }
        type = info.type;
        mtimeMs = info.mtimeMs;
        size = info.size;
      }
      if (type !== "file" && type !== "directory") continue;
      const isDir = type === "directory";
      if (!this.#selected(out, abs, entry.name, isDir, level)) continue;
      if (isDir) {
        const ancestor = frame.chain.find((c) => c.key === target.key);
        if (ancestor) {
          this.#problems.push(`File system loop found: ${this.#shown(out)} points to an ancestor ${ancestor.out}`);
          continue;
        }
        await this.#directory({ target, out, abs, level, chain: [...frame.chain, { key: target.key, out: this.#shown(out) }] });
      } else {
        this.#budget.check();
        await this.#onFile({ path: out, target, mtimeMs, size, explicit: false });
      }
    }
  }

  #shown(out: string): string {
    return this.#implicit ? `./${out}` : out;
  }

  // Rules W3/W4 and §1.5: overrides decide first; then ignore files; then types (files only); a hidden entry
  // is dropped only when nothing above matched it.
  #selected(out: string, abs: string, name: string, isDir: boolean, level: IgnoreLevel | undefined): boolean {
    const verdict = this.#overrides.match(this.#matchPath(out), isDir);
    if (verdict !== undefined) return verdict === "include";
    const ignored = level?.anyRules ? matchIgnore(level, byteString(abs), isDir) : undefined;
    if (ignored === "ignore") return false;
    const typed = this.#types?.match(name, isDir);
    if (typed === "exclude") return false;
    if (ignored === undefined && typed === undefined && !(this.#scope.hidden ?? false) && name.startsWith(".")) return false;
    return true;
  }

  // Globs see the path as ripgrep built it, minus a leading `./`, and minus the cwd when it is absolute
  // beneath it (so anchored globs are relative to the cwd, not to the search root).
  #matchPath(out: string): string {
    let path = byteString(out);
    if (path.startsWith("./")) path = path.slice(2);
    else if (path.startsWith(this.#cwdBytes) && this.#cwdBytes !== "/") {
      path = path.slice(this.#cwdBytes.length);
      if (path.startsWith("/")) path = path.slice(1);
    }
    return path;
  }
}

function joinOut(dir: string, name: string): string {
  if (dir === "") return name;
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

function rethrowAbort(signal: AbortSignal | undefined): (error: unknown) => undefined {
  return (error) => {
    if (signal?.aborted) throw error;
    return undefined;
  };
}
