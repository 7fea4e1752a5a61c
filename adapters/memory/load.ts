// Copies a directory from the local disk into a fresh memfs volume at the same absolute path, keeping
// modification times and symlinks, so a memory-backed session sees the tree the disk holds.
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import { Volume } from "memfs";

/** A volume (new, or the one given) holding a copy of `root` (an absolute, canonical directory path). */
export async function loadDirectory(root: string, volume: Volume = new Volume()): Promise<Volume> {
  volume.mkdirSync(root, { recursive: true });
  await copy(root, root, volume);
  return volume;
}

async function copy(dir: string, root: string, volume: Volume): Promise<void> {
  for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) {
      volume.symlinkSync(await fsp.readlink(path), path);
    } else if (entry.isDirectory()) {
      volume.mkdirSync(path);
      await copy(path, root, volume);
      const { mtimeMs } = await fsp.stat(path);
      volume.utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
    } else if (entry.isFile()) {
      const stat = await fsp.stat(path);
      volume.writeFileSync(path, await fsp.readFile(path));
      volume.chmodSync(path, stat.mode & 0o777);
      volume.utimesSync(path, stat.mtimeMs / 1000, stat.mtimeMs / 1000);
    }
  }
}
