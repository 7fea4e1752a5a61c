// The workspace roots, and the one rule by which every tool shows a path to the model and reads a path the
// model gives back. See docs/notes/0008-where-agents-live.md ("Several roots").
import { baseName, relativeWithin } from "../fs/paths.ts";

/** A workspace root after the first, and the name its paths are written and shown with. */
export interface NamedRoot {
  readonly name: string;
  /** Normalized absolute directory. */
  readonly path: string;
}

// `~` alone already means the home directory in a path argument.
const RESERVED = new Set(["~"]);

/**
 * One or more workspace roots. With one, a path inside it is shown relative to it and anything else in full,
 * as always. With several, each root after the first has a name (its directory's base name, numbered
 * `-2`, `-3`… in root order when taken), and:
 *
 * - a path inside the first root is shown relative to it, with `./` in front when its first segment is a
 *   root's name;
 * - a path inside another root (the first in order that holds it) is shown as `name/relative`, the root
 *   itself as `name`;
 * - any other path is shown in full;
 * - a relative path argument whose first segment is a root's name is in that root; anything else is left
 *   as given (relative to the working directory, or absolute).
 *
 * So a shown path, given back, always leads to the same file.
 */
export class WorkspaceRoots {
  /** Where relative paths start. */
  readonly first: string;
  /** The other roots, in order, each with its name. */
  readonly named: readonly NamedRoot[];
  readonly #byName: ReadonlyMap<string, string>;

  /** `roots` are normalized absolute directories, the first one first, without repeats. */
  constructor(roots: readonly [string, ...string[]]) {
    const [first, ...others] = roots;
    this.first = first;
    this.named = nameRoots(first, others);
    this.#byName = new Map(this.named.map((root) => [root.name, root.path]));
  }

  /** True when there are roots besides the first. */
  get several(): boolean {
    return this.named.length > 0;
  }

  /** The path as the model sees it: relative to the root it is in (see the class), or in full. */
  show(path: string): string {
    const inFirst = relativeWithin(this.first, path);
    if (inFirst !== undefined) return this.#escaped(inFirst);
    for (const root of this.named) {
      const inside = relativeWithin(root.path, path);
      if (inside !== undefined) return inside === "." ? root.name : `${root.name}/${inside}`;
    }
    return path;
  }

  /**
   * How the paths found beneath directory `dir` are shown, given relative to it. One prefix for all of them
   * (a search can return a hundred thousand), except beneath the first root itself, where a path whose first
   * segment is a root's name needs `./`.
   */
  beneath(dir: string): { display(relative: string): string; displayLines(relatives: readonly string[]): string } {
    if (dir === this.first && this.several) {
      const display = (relative: string) => this.#escaped(relative);
      return { display, displayLines: (relatives) => relatives.map(display).join("\n") };
    }
    const shown = this.show(dir);
    const prefix = shown === "." ? "" : shown === "/" ? "/" : `${shown}/`;
    return {
      display: (relative) => prefix + relative,
      displayLines: (relatives) => (prefix === "" || relatives.length === 0 ? relatives.join("\n") : `${prefix}${relatives.join(`\n${prefix}`)}`),
    };
  }

  /**
   * A path argument as the tools resolve it: `name` or `name/…` of a root after the first becomes that root's
   * absolute path; anything else is returned as given.
   */
  resolve(path: string): string {
    if (!this.several || path.startsWith("/")) return path;
    const cut = path.indexOf("/");
    const root = this.#byName.get(cut === -1 ? path : path.slice(0, cut));
    if (root === undefined) return path;
    const rest = cut === -1 ? "" : path.slice(cut + 1);
    return rest === "" ? root : `${root === "/" ? "" : root}/${rest}`;
  }

  // A path relative to the first root, spelled so that it does not read as another root's.
  #escaped(relative: string): string {
    if (!this.several) return relative;
    const cut = relative.indexOf("/");
    return this.#byName.has(cut === -1 ? relative : relative.slice(0, cut)) ? `./${relative}` : relative;
  }
}

// Base names, in root order. A name held by one root only is that root's; where several roots share one, the
// first keeps it and the others take the lowest free `name-N`. The first root's own base name is never
// given to another root, so that a model reading "app" in the guidance is not led to a different directory.
function nameRoots(first: string, others: readonly string[]): NamedRoot[] {
  const base = (path: string) => baseName(path) || "root";
  const taken = new Set([...RESERVED, base(first)]);
  const counts = new Map<string, number>();
  for (const path of others) counts.set(base(path), (counts.get(base(path)) ?? 0) + 1);
  const names: (string | undefined)[] = others.map((path) => (counts.get(base(path)) === 1 && !taken.has(base(path)) ? base(path) : undefined));
  for (const name of names) if (name !== undefined) taken.add(name);
  return others.map((path, i) => {
    let name = names[i];
    if (name === undefined) {
      const wanted = base(path);
      name = wanted;
      for (let n = 2; taken.has(name); n++) name = `${wanted}-${n}`;
      taken.add(name);
    }
    return { name, path };
  });
}
