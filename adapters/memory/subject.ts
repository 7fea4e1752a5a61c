// Test support: a conformance subject on a fresh memfs volume, probed through the volume directly. Runs
// unchanged under vitest and deno test.
import type { Volume } from "memfs";
import type { Probe, ProbeInfo, RaceHooks, Subject } from "../../conformance/mod.ts";
import { createEngineBackend, type FileSystem, parentPath, resolvePath } from "../../core/mod.ts";
import { createMemoryProvider, createMemoryVolume } from "./mod.ts";

const ROOT = "/workspace";
const OUTSIDE = "/outside";

/**
 * A fresh subject on its own volume. It returns a promise of one subject, so the suite is handed
 * `() => createMemorySubject(make)`, which builds one per case.
 */
export async function createMemorySubject(makeProvider?: (volume: Volume, cwd: string) => FileSystem): Promise<Subject> {
  const volume = createMemoryVolume();
  volume.mkdirSync(ROOT, { recursive: true });
  volume.mkdirSync(OUTSIDE, { recursive: true });
  const make = makeProvider ?? ((v: Volume, cwd: string) => createMemoryProvider({ volume: v, cwd }));
  const provider = make(volume, ROOT);
  const races: RaceHooks = {
    sibling: async () => make(volume, ROOT),
    swapper: async (dir, link) => memorySwapper(volume, resolvePath(ROOT, dir), resolvePath(ROOT, link)),
  };
  return {
    provider,
    probe: memoryProbe(volume, ROOT, OUTSIDE),
    search: createEngineBackend(provider),
    races,
    dispose: async () => volume.reset(),
  };
}

// No other process can reach a volume, so the race is in-process: exchanges between the writer's steps
// (microtask turns). A macrotask turn every 100,000 exchanges keeps a writer that waits on a
// timer from starving; a writer that needs none is raced at every step.
function memorySwapper(volume: Volume, a: string, b: string): { stop(): Promise<number> } {
  let running = true;
  let count = 0;
  const exchange = () => {
    const [link, dir] = volume.lstatSync(a).isSymbolicLink() ? [a, b] : [b, a];
    const pointed = String(volume.readlinkSync(link));
    volume.unlinkSync(link);
    volume.renameSync(dir, link);
    volume.symlinkSync(pointed, dir);
    count++;
  };
  const loop = (async () => {
    while (running) {
      exchange();
      // Windows of 0 to 210 quiet steps, in a fixed cycle, so that some writes complete between exchanges and
      // the others meet one at every step of publication.
      for (let quiet = (count * 31) % 211; quiet > 0 && running; quiet--) await Promise.resolve();
      // A turn of the event loop now and then, for a writer waiting for a timer (the overlay takes such turns).
      await (count % 1_000 === 0 ? new Promise((resolve) => setTimeout(resolve, 0)) : Promise.resolve());
    }
    if (count % 2 === 1) exchange();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return count;
    },
  };
}

/** A probe over a memfs volume. */
export function memoryProbe(volume: Volume, root: string, outside: string): Probe {
  const at = (path: string) => resolvePath(root, path);
  const parent = (path: string) => volume.mkdirSync(parentPath(at(path)), { recursive: true });
  return {
    root,
    outside,
    async writeFile(path, content) {
      parent(path);
      volume.writeFileSync(at(path), content);
    },
    async readFile(path) {
      try {
        return new Uint8Array(volume.readFileSync(at(path)) as Uint8Array);
      } catch {
        return undefined;
      }
    },
    async mkdir(path) {
      volume.mkdirSync(at(path), { recursive: true });
    },
    async symlink(linkTarget, path) {
      parent(path);
      volume.symlinkSync(linkTarget, at(path));
    },
    async rename(from, to) {
      // memfs renames of symlinks and directories lose data; the probe moves entries the safe way.
      const source = at(from);
      const stat = volume.lstatSync(source);
      if (stat.isSymbolicLink()) {
        volume.symlinkSync(String(volume.readlinkSync(source)), at(to));
        volume.unlinkSync(source);
      } else {
        volume.renameSync(source, at(to));
      }
    },
    async remove(path) {
      // memfs's rmSync leaves a symlink in place; unlink removes the link itself, as rm does on disk.
      if (volume.lstatSync(at(path), { throwIfNoEntry: false })?.isSymbolicLink()) return volume.unlinkSync(at(path));
      volume.rmSync(at(path), { recursive: true, force: true });
    },
    async list(path) {
      return volume.readdirSync(at(path)).map(String).sort();
    },
    async info(path): Promise<ProbeInfo | undefined> {
      try {
        const s = volume.lstatSync(at(path));
        const type = s.isFile() ? "file" : s.isDirectory() ? "directory" : s.isSymbolicLink() ? "symlink" : "other";
        return { type, size: Number(s.size), mtimeMs: Number(s.mtimeMs), mode: Number(s.mode) & 0o777, owner: Number(s.uid) };
      } catch {
        return undefined;
      }
    },
    async setMtime(path, mtimeMs) {
      volume.utimesSync(at(path), mtimeMs / 1000, mtimeMs / 1000);
    },
    async chmod(path, mode) {
      volume.chmodSync(at(path), mode);
    },
    async chown(path, uid) {
      volume.lchownSync(at(path), uid, uid);
    },
  };
}
