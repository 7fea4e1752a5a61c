// A directory outside the system temp directories, for tests of what `toolfs mcp` refuses: the servers treat
// the temp directories as writable (and so readable) roots, so a directory there is not "outside".
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = realpathSync(fileURLToPath(new URL("..", import.meta.url)));

/**
 * A fresh directory under the repository's .tmp, or the reason there is none: a repository cloned under a
 * temp directory is itself inside a writable root.
 */
export function outsideTemp(prefix: string): { readonly path: string; dispose(): void } | { readonly reason: string } {
  const temps = [...new Set([tmpdir(), "/tmp"])].map((dir) => {
    try {
      return realpathSync(dir);
    } catch {
      return dir;
    }
  });
  const holder = temps.find((dir) => root === dir || root.startsWith(dir.endsWith(sep) ? dir : dir + sep));
  if (holder) return { reason: `the repository is inside the temp directory ${holder}, a writable root of toolfs mcp` };
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const path = mkdtempSync(join(root, ".tmp", prefix));
  return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
}
