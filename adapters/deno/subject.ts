// Test support: a conformance subject on a real temporary directory. Uses the Deno global directly, so it is
// type-checked by `deno check`/`deno test` only (tsconfig.node.json leaves it out).
import type { Probe, ProbeInfo, Subject } from "../../conformance/mod.ts";
import { parentPath, resolvePath } from "../../core/mod.ts";
import { createDenoProvider, createDenoSearchBackend } from "./mod.ts";

/**
 * A fresh subject: an empty workspace and an outside directory under a new temporary directory, probed with
 * Deno.* directly and searched by ripgrep from `@vscode/ripgrep` run through Deno.Command.
 */
export async function createDenoSubject(): Promise<Subject> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolfs-conformance-" }));
  const root = `${base}/ws`;
  const outside = `${base}/outside`;
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  return {
    provider: createDenoProvider({ cwd: root }),
    probe: denoProbe(root, outside),
    search: createDenoSearchBackend(),
    dispose: () => Deno.remove(base, { recursive: true }),
  };
}

/** A probe over Deno.* rooted at `root`. */
export function denoProbe(root: string, outside: string): Probe {
  const at = (path: string) => resolvePath(root, path);
  const parent = (path: string) => Deno.mkdir(parentPath(at(path)), { recursive: true });
  return {
    root,
    outside,
    async writeFile(path, content) {
      await parent(path);
      if (typeof content === "string") await Deno.writeTextFile(at(path), content);
      else await Deno.writeFile(at(path), content);
    },
    async readFile(path) {
      try {
        return await Deno.readFile(at(path));
      } catch {
        return undefined;
      }
    },
    async mkdir(path) {
      await Deno.mkdir(at(path), { recursive: true });
    },
    async symlink(linkTarget, path) {
      await parent(path);
      await Deno.symlink(linkTarget, at(path));
    },
    async rename(from, to) {
      await Deno.rename(at(from), at(to));
    },
    async remove(path) {
      await Deno.remove(at(path), { recursive: true }).catch(() => undefined);
    },
    async list(path) {
      const names: string[] = [];
      for await (const entry of Deno.readDir(at(path))) names.push(entry.name);
      return names.sort();
    },
    async info(path): Promise<ProbeInfo | undefined> {
      try {
        const s = await Deno.lstat(at(path));
        const type = s.isFile ? "file" : s.isDirectory ? "directory" : s.isSymlink ? "symlink" : "other";
        return { type, size: s.size, mtimeMs: s.mtime?.getTime() ?? 0, mode: (s.mode ?? 0) & 0o777 };
      } catch {
        return undefined;
      }
    },
    async setMtime(path, mtimeMs) {
      await Deno.utime(at(path), mtimeMs / 1000, mtimeMs / 1000);
    },
    async chmod(path, mode) {
      await Deno.chmod(at(path), mode);
    },
  };
}
