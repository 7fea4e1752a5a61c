// A directory outside the system temp directories, for tests of what `toolfs mcp` refuses: the servers treat
// the temp directories as writable (and so readable) roots, so a directory there is not "outside".
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = realpathSync(fileURLToPath(new URL("..", import.meta.url)));

function real(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * Where directories outside every temp directory go: the repository's .tmp, or, for a repository cloned under a
 * temp directory (as a fresh CI clone may be), /var/tmp or ~/.cache; else the reason there is none.
 */
export function outsideHolder(): { readonly holder: string } | { readonly reason: string } {
  const temps = [...new Set([tmpdir(), "/tmp"])].map(real);
  const inTemp = (dir: string) => temps.some((temp) => dir === temp || dir.startsWith(temp.endsWith(sep) ? temp : temp + sep));
  const tried: string[] = [];
  for (const holder of [join(root, ".tmp"), "/var/tmp", join(homedir(), ".cache")]) {
    try {
      mkdirSync(holder, { recursive: true });
      const at = real(holder);
      if (!inTemp(at)) return { holder: at };
      tried.push(`${holder} is inside a temp directory`);
    } catch (error) {
      tried.push(`${holder}: ${(error as Error).message}`);
    }
  }
  return { reason: `no directory outside the temp directories (${temps.join(", ")}), a writable root of toolfs mcp: ${tried.join("; ")}` };
}

/** A fresh directory under {@link outsideHolder}, or the reason there is none. */
export function outsideTemp(prefix: string): { readonly path: string; dispose(): void } | { readonly reason: string } {
  const found = outsideHolder();
  if (!("holder" in found)) return found;
  const path = mkdtempSync(join(found.holder, prefix));
  return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
}
