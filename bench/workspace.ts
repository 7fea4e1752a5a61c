// A generated workspace shaped like a JavaScript project with its dependencies installed: a few source
// folders beside one node_modules holding most of the files, as npm leaves it (every file of a package
// carries npm's fixed 1985 timestamp, so ripgrep's modified order ties and falls back to the walk order).
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface WorkspaceShape {
  /** Files in the whole tree, about. */
  readonly files: number;
}

export interface Workspace {
  readonly files: number;
  /** Lines containing "function" across the tree. */
  readonly functionLines: number;
  /** Files holding at least one of them. */
  readonly functionFiles: number;
}

const NPM_MTIME = Date.UTC(1985, 9, 26, 8, 15) / 1000;
const SOURCE = ["src", "test", "docs", "scripts"];
const PACKAGE_DIRS = ["lib", "dist", "src", "lib/internal", "dist/esm/helpers", "dist/cjs/helpers", "types"];
// Real dependency paths run to 70-90 bytes (node_modules/@scope/long-package-name/dist/esm/some-module.d.ts).
const WORDS = ["plugin", "transform", "runtime", "parser", "utils", "helper", "config", "eslint", "types", "core"];

/** Writes the workspace under `root` (which must not exist yet). */
export function makeWorkspace(root: string, shape: WorkspaceShape): Workspace {
  let files = 0;
  let functionLines = 0;
  let functionFiles = 0;
  const write = (path: string, content: string, mtime: number) => {
    writeFileSync(path, content);
    utimesSync(path, mtime, mtime);
    files++;
    const count = content.split("function").length - 1;
    if (count > 0) {
      functionLines += count;
      functionFiles++;
    }
  };
  const now = Date.UTC(2026, 0, 1) / 1000;
  for (const [i, dir] of SOURCE.entries()) {
    mkdirSync(join(root, dir), { recursive: true });
    for (let f = 0; f < 40; f++) write(join(root, dir, `m${f}.ts`), `export function m${f}() {\n  return ${f};\n}\n`, now - i * 86_400 - f * 60);
  }
  write(join(root, "package.json"), '{ "name": "app" }\n', now);
  write(join(root, "README.md"), "# app\n", now);
  const modules = join(root, "node_modules");
  // Packages of 10 to 400 files, one in five scoped, one in six with a nested node_modules of its own.
  for (let p = 0; files < shape.files; p++) {
    const words = `${WORDS[p % 10]}-${WORDS[(p >> 2) % 10]}-${p}`;
    const name = p % 5 === 0 ? `@scope-${WORDS[p % 7]}/${words}` : words;
    const base = join(modules, name);
    const size = 10 + ((p * 7919) % 391);
    writePackage(base, size, p, write);
    if (p % 6 === 0) writePackage(join(base, "node_modules", `dep${p}`), Math.min(40, size), p + 1, write);
  }
  return { files, functionLines, functionFiles };
}

function writePackage(base: string, size: number, seed: number, write: (path: string, content: string, mtime: number) => void): void {
  mkdirSync(base, { recursive: true });
  write(join(base, "package.json"), `{ "name": "p${seed}", "main": "lib/index.js" }\n`, NPM_MTIME);
  for (const dir of PACKAGE_DIRS) mkdirSync(join(base, dir), { recursive: true });
  for (let f = 1; f < size; f++) {
    const dir = PACKAGE_DIRS[(f + seed) % PACKAGE_DIRS.length] as string;
    // One file in three defines functions (one to three of them); the rest are data.
    const kind = (f * 31 + seed) % 3;
    const content =
      kind === 0
        ? `"use strict";\n${Array.from({ length: 1 + (f % 3) }, (_, k) => `function f${f}_${k}(a) {\n  return a + ${k};\n}\n`).join("")}`
        : `module.exports = { id: ${f}, seed: ${seed} };\n`;
    write(join(base, dir, `${WORDS[(f * 3) % 10]}-module-${f}.js`), content, NPM_MTIME);
  }
}
