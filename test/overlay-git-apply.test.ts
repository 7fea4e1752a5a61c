// The overlay's patch, deletions and renames included, is what git means by it: `git apply` of the patch to a
// copy of the base gives the overlay's merged tree, and so does the commit, on the node base.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { createNodeProvider } from "../adapters/node/mod.ts";
import { createOverlayProvider, type FileSystem, type OverlayFileSystem } from "../core/mod.ts";

let dir: string;
let base: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-overlay-apply-")));
  base = join(dir, "base");
  const files: Record<string, string> = {
    "README.md": "# demo\n",
    "src/utils.ts": "export const a = 1;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\n",
    "src/strings.txt": "unchanged\n",
    "src/old/keep.ts": "keep\n",
    "src/old/deep/x.ts": "x\n",
    "obsolete.ts": "gone soon\n",
    "edit.ts": "1\n2\n3\n4\n5\n",
    "bin.dat": "\u0000\u0001binary",
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(base, path, ".."), { recursive: true });
    writeFileSync(join(base, path), content);
  }
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every file under `root` by relative path, with its bytes as text. */
function onDisk(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else out[path] = readFileSync(join(root, path), "latin1");
    }
  };
  walk("");
  return out;
}

/** The merged tree as the overlay lists and reads it. */
async function merged(fs: FileSystem, root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const entry of await fs.listDir(await fs.resolve(rel ? join(root, rel) : root))) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.type === "directory") await walk(path);
      else out[path] = Buffer.from((await fs.readBytes(entry.target, { maxBytes: 1 << 20 })).bytes).toString("latin1");
    }
  };
  await walk("");
  return out;
}

async function changed(): Promise<OverlayFileSystem> {
  const ov = createOverlayProvider({ base: createNodeProvider({ cwd: base }) });
  const at = (path: string) => ov.resolve(path);
  await ov.move(await at("src/utils.ts"), await at("src/strings.ts"));
  await ov.move(await at("src/old"), await at("lib/new"), { parents: true });
  await ov.remove(await at("obsolete.ts"));
  await ov.move(await at("edit.ts"), await at("edited.ts"));
  await ov.write(await at("edited.ts"), new TextEncoder().encode("1\n2\nthree\n4\n5\n"));
  await ov.write(await at("lib/new/deep/x.ts"), new TextEncoder().encode("x changed after the move\n"));
  await ov.write(await at("src/added.ts"), new TextEncoder().encode("added\n"));
  await ov.move(await at("bin.dat"), await at("data/bin.dat"), { parents: true });
  return ov;
}

test("git apply of the patch to a copy of the base gives the overlay's merged tree", async () => {
  const ov = await changed();
  const patch = await ov.patch();
  expect(patch).toContain("diff --git a/obsolete.ts b/obsolete.ts\ndeleted file mode 100644\n");
  expect(patch).toContain("diff --git a/src/utils.ts b/src/strings.ts\nsimilarity index 100%\nrename from src/utils.ts\nrename to src/strings.ts\n");
  expect(patch).toContain("rename from src/old/keep.ts\nrename to lib/new/keep.ts\n");
  expect(patch).toContain("diff --git a/edit.ts b/edited.ts\nsimilarity index 57%\nrename from edit.ts\nrename to edited.ts\n--- a/edit.ts\n+++ b/edited.ts\n");
  // Rewritten whole after its move: below git's rename threshold, a deletion and a creation.
  expect(patch).toContain("diff --git a/src/old/deep/x.ts b/src/old/deep/x.ts\ndeleted file mode 100644\n");
  const copy = join(dir, "copy");
  cpSync(base, copy, { recursive: true });
  writeFileSync(join(dir, "changes.patch"), patch);
  execFileSync("git", ["apply", "--check", join(dir, "changes.patch")], { cwd: copy });
  execFileSync("git", ["apply", join(dir, "changes.patch")], { cwd: copy });
  const want = await merged(ov, base);
  expect(Object.keys(want)).toEqual([
    "README.md",
    "data/bin.dat",
    "edited.ts",
    "lib/new/deep/x.ts",
    "lib/new/keep.ts",
    "src/added.ts",
    "src/strings.ts",
    "src/strings.txt",
  ]);
  expect(onDisk(copy)).toEqual(want);
  // The base is untouched until the commit, which gives the same tree.
  expect(onDisk(base)["obsolete.ts"]).toBe("gone soon\n");
  const result = await ov.commit();
  expect([result.ok, result.conflicts]).toEqual([true, []]);
  expect(onDisk(base)).toEqual(want);
  expect(readdirSync(join(base, "src")).sort()).toEqual(["added.ts", "strings.ts", "strings.txt"]);
});
