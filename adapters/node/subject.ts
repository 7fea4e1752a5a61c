// Test support: a conformance subject on a real temporary directory, probed with node:fs directly.
import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { Probe, ProbeInfo, Subject } from "../../conformance/mod.ts";
import type { FileSystem } from "../../core/mod.ts";
import { createNodeProvider, createNodeSearchBackend } from "./mod.ts";

/**
 * A fresh subject: an empty workspace and an outside directory under a new temporary directory, searched by
 * ripgrep from `@vscode/ripgrep`.
 */
export async function createNodeSubject(makeProvider?: (cwd: string) => FileSystem): Promise<Subject> {
  const base = await fsp.realpath(await fsp.mkdtemp(join(tmpdir(), "toolfs-conformance-")));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  await fsp.mkdir(root);
  await fsp.mkdir(outside);
  return {
    provider: makeProvider ? makeProvider(root) : createNodeProvider({ cwd: root }),
    probe: nodeProbe(root, outside),
    search: createNodeSearchBackend(),
    dispose: () => fsp.rm(base, { recursive: true, force: true }),
  };
}

/** A probe over node:fs rooted at `root`. */
export function nodeProbe(root: string, outside: string): Probe {
  const at = (path: string) => (isAbsolute(path) ? path : join(root, path));
  const parent = (path: string) => fsp.mkdir(join(at(path), ".."), { recursive: true });
  return {
    root,
    outside,
    async writeFile(path, content) {
      await parent(path);
      await fsp.writeFile(at(path), content);
    },
    async readFile(path) {
      try {
        return new Uint8Array(await fsp.readFile(at(path)));
      } catch {
        return undefined;
      }
    },
    async mkdir(path) {
      await fsp.mkdir(at(path), { recursive: true });
    },
    async symlink(linkTarget, path) {
      await parent(path);
      await fsp.symlink(linkTarget, at(path));
    },
    async rename(from, to) {
      await fsp.rename(at(from), at(to));
    },
    async remove(path) {
      await fsp.rm(at(path), { recursive: true, force: true });
    },
    async list(path) {
      return (await fsp.readdir(at(path))).sort();
    },
    async info(path): Promise<ProbeInfo | undefined> {
      try {
        const s = await fsp.lstat(at(path));
        const type = s.isFile() ? "file" : s.isDirectory() ? "directory" : s.isSymbolicLink() ? "symlink" : "other";
        return { type, size: s.size, mtimeMs: s.mtimeMs, mode: s.mode & 0o777 };
      } catch {
        return undefined;
      }
    },
    async setMtime(path, mtimeMs) {
      await fsp.utimes(at(path), mtimeMs / 1000, mtimeMs / 1000);
    },
    async chmod(path, mode) {
      await fsp.chmod(at(path), mode);
    },
  };
}
