// POSIX path arithmetic for canonical keys and display paths. Core cannot import node:path, and every
// backend here speaks absolute POSIX paths, so the few operations needed are written once.

/** True when the path starts at the root. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/");
}

/** Lexical normalization of an absolute path: collapses `.`, `..`, repeated and trailing separators. */
export function normalizeAbsolute(path: string): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return `/${out.join("/")}`;
}

/** Resolves `path` against the absolute `base`, lexically (symlinks are not consulted). */
export function resolvePath(base: string, path: string): string {
  return normalizeAbsolute(isAbsolutePath(path) ? path : `${base}/${path}`);
}

/** Joins a normalized absolute directory and one entry name. */
export function joinPath(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** The parent of a normalized absolute path; the root is its own parent. */
export function parentPath(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

/** The last segment of a normalized absolute path; empty for the root. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** True when `child` is `parent` or lies beneath it; both normalized absolute paths. */
export function isWithin(parent: string, child: string): boolean {
  if (child === parent) return true;
  return child.startsWith(parent === "/" ? "/" : `${parent}/`);
}

/**
 * The path of `child` relative to `parent` with `/` separators, or undefined when it is not inside.
 * The parent itself gives ".".
 */
export function relativeWithin(parent: string, child: string): string | undefined {
  if (child === parent) return ".";
  if (!isWithin(parent, child)) return undefined;
  return child.slice(parent === "/" ? 1 : parent.length + 1);
}

/**
 * Orders strings by their UTF-8 bytes, the order ripgrep and `ls` use for names. JavaScript's `<` compares
 * UTF-16 code units, which puts astral characters (surrogate pairs) before U+E000..U+FFFF; UTF-8 order is
 * code-point order.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x < y ? -1 : 1;
    return xs ? 1 : -1;
  }
  return a.length - b.length;
}

/** Lexicographic byte comparison. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  }
  return a.length - b.length;
}
