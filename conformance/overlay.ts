// An overlay subject over any base subject: the provider under test is an overlay over the base subject's
// provider; the probe seeds and inspects the merged view with raw calls (the base subject's own probe, and the
// upper's nodes), never through the overlay.
import {
  createOverlayProvider,
  createOverlaySearchBackend,
  createOverlayUpper,
  type FileSystem,
  joinPath,
  type OverlayFileSystem,
  type OverlayUpper,
  parentPath,
  resolvePath,
  baseName,
} from "../core/mod.ts";
import type { Probe, ProbeInfo, RaceHooks, Subject } from "./harness.ts";

/**
 * A subject whose provider is an overlay over `base.provider`, searched by the overlay's merged backend
 * over `base.search` (when the base subject has one). Sibling providers share the upper; the base subject's
 * swapper races the base; writers in other processes are not offered (no other process reaches the upper).
 */
export function createOverlaySubject(base: Subject): Subject {
  const upper = createOverlayUpper();
  const make = (): OverlayFileSystem => createOverlayProvider({ base: base.provider, upper });
  const provider = make();
  const races: RaceHooks = {
    sibling: async () => make(),
    ...(base.races?.swapper ? { swapper: base.races.swapper.bind(base.races) } : {}),
  };
  return {
    provider,
    probe: overlayProbe(base.probe, base.provider, upper),
    ...(base.search ? { search: createOverlaySearchBackend(provider, base.search) } : {}),
    races,
    baseProbe: base.probe,
    dispose: () => base.dispose(),
  };
}

/**
 * The merged view through raw calls: a path the upper holds is read and written there, anything else in the
 * base through the base subject's probe. The base provider only canonicalizes paths for the upper's keys.
 */
export function overlayProbe(baseProbe: Probe, baseFs: FileSystem, upper: OverlayUpper): Probe {
  const root = baseProbe.root;
  const at = (path: string) => resolvePath(root, path);
  // Followed to the end (for file contents), or with the last segment kept (for entries).
  const followed = async (path: string) => (await baseFs.resolve(at(path)).catch(() => undefined))?.key ?? at(path);
  const entry = async (path: string) => {
    const absolute = at(path);
    if (absolute === "/") return absolute;
    return joinPath(await followed(parentPath(absolute)), baseName(absolute));
  };
  const infoOf = (path: string): ProbeInfo | "deleted" | undefined => {
    if (upper.hides(path)) return "deleted";
    const node = upper.get(path);
    if (!node || node.type === "whiteout") return undefined;
    return node.type === "file"
      ? { type: "file", size: node.bytes.length, mtimeMs: node.mtimeMs, mode: 0o644 }
      : { type: "directory", size: 0, mtimeMs: node.mtimeMs, mode: 0o755 };
  };
  return {
    root,
    outside: baseProbe.outside,
    async writeFile(path, content) {
      const key = await followed(path);
      // Over a deletion too: the file is back in the merged view, as another writer of the overlay would put it.
      if (upper.get(key)?.type === "file" || upper.get(key)?.type === "whiteout")
        upper.writeFile(key, typeof content === "string" ? new TextEncoder().encode(content) : content);
      else await baseProbe.writeFile(path, content);
    },
    async readFile(path) {
      const key = await followed(path);
      if (upper.hides(key)) return undefined;
      const node = upper.get(key);
      if (node) return node.type === "file" ? node.bytes.slice() : undefined;
      return baseProbe.readFile(path);
    },
    mkdir: (path) => baseProbe.mkdir(path),
    symlink: (linkTarget, path) => baseProbe.symlink(linkTarget, path),
    async rename(from, to) {
      const [source, destination] = [await entry(from), await entry(to)];
      if (await baseProbe.info(from)) await baseProbe.rename(from, to);
      upper.move(source, destination);
    },
    async remove(path) {
      upper.remove(await entry(path));
      await baseProbe.remove(path);
    },
    async list(path) {
      const key = await followed(path);
      const names = new Set(upper.children(key));
      try {
        for (const name of await baseProbe.list(path)) if (!upper.hides(joinPath(key, name))) names.add(name);
      } catch (error) {
        if (upper.get(key)?.type !== "directory") throw error;
      }
      return [...names].sort();
    },
    async info(path) {
      const info = infoOf(await entry(path));
      return info === "deleted" ? undefined : (info ?? baseProbe.info(path));
    },
    async setMtime(path, mtimeMs) {
      const key = await followed(path);
      if (upper.get(key)) upper.setMtime(key, mtimeMs);
      else await baseProbe.setMtime(path, mtimeMs);
    },
    async chmod(path, mode) {
      if (upper.get(await followed(path))) throw new Error(`${path} is held by the overlay's upper, which keeps no permission bits`);
      await baseProbe.chmod(path, mode);
    },
  };
}
