// Seeds and snapshots of a workspace through the seam, for the apply_patch tool tests and the scenario: the same
// code reads a memory, a node or an overlay tree, so their results compare byte for byte.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createNodeProvider } from "../adapters/node/mod.ts";
import type { FileSystem } from "../core/mod.ts";

/** Every file under `root` (relative path → text), in path order; an empty directory appears as `path/`: null. */
export async function snapshot(fs: FileSystem, root: string = fs.cwd): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  const walk = async (dir: string, prefix: string) => {
    for (const entry of await fs.listDir(await fs.resolve(dir))) {
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.type === "directory") {
        const before = Object.keys(out).length;
        await walk(`${dir}/${entry.name}`, rel);
        if (Object.keys(out).length === before) out[`${rel}/`] = null;
      } else if (entry.type === "file") {
        const { bytes } = await fs.readBytes(entry.target, { maxBytes: 1 << 26 });
        out[rel] = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
      } else out[rel] = `<${entry.type}>`;
    }
  };
  await walk(root, "");
  return out;
}

export interface Subject {
  readonly name: string;
  readonly fs: FileSystem;
  /** Removes what the subject made on disk. */
  dispose(): void;
}

/** The memory and node providers over the same seed, each rooted at its workspace. */
export const SUBJECTS: readonly { readonly name: string; make(files: Readonly<Record<string, string>>): Subject }[] = [
  { name: "memory", make: (files) => ({ name: "memory", fs: createMemoryProvider({ files, cwd: "/ws" }), dispose: () => {} }) },
  {
    name: "node",
    make: (files) => {
      const dir = mkdtempSync(join(tmpdir(), "toolfs-patch-tool-"));
      seedDisk(dir, files);
      return { name: "node", fs: createNodeProvider({ cwd: dir }), dispose: () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
];

/** Writes `files` (relative path → text) under `dir`. */
export function seedDisk(dir: string, files: Readonly<Record<string, string>>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}
