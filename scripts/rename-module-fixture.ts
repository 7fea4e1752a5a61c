// Writes the rename-module scenario's model script (fixtures/acp/rename-module/script.json) and the unified
// diff git makes of the same change (change.diff), from the tree in fixtures/acp/rename-module/tree.ts.
// `npx tsx scripts/rename-module-fixture.ts`; review the diff before committing.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixtureBytes, importerPath, RENAME_IMPORTERS, renameModuleTree } from "../fixtures/mod.ts";

const dir = fileURLToPath(new URL("../fixtures/acp/rename-module/", import.meta.url));
const test =
  'import { expect, test } from "vitest";\nimport { capitalize, slugify } from "../src/strings";\n\ntest("strings", () => {\n  expect(slugify(capitalize("hello world"))).toBe("hello-world");\n});\n';

// The one patch: rename utils.ts (with a comment added), fix every import, delete legacy.ts, add a test.
const patch = [
  "*** Begin Patch",
  "*** Update File: src/utils.ts",
  "*** Move to: src/strings.ts",
  "@@",
  "+// String helpers (formerly src/utils.ts).",
  " export function capitalize(s: string): string {",
];
for (let i = 0; i < RENAME_IMPORTERS; i++) {
  const from = i % 2 === 0 ? "./" : "../";
  patch.push(
    `*** Update File: ${importerPath(i)}`,
    "@@",
    `-import { capitalize, slugify } from "${from}utils";`,
    `+import { capitalize, slugify } from "${from}strings";`,
  );
}
patch.push(
  "*** Delete File: src/legacy.ts",
  "*** Add File: test/strings.test.ts",
  ...test
    .slice(0, -1)
    .split("\n")
    .map((l) => `+${l}`),
  "*** End Patch",
);

const reads = renameModuleTree.files.map((f) => ({ name: "read", arguments: { path: f.path } }));
const script = {
  applyPatch: true,
  turns: [
    { toolCalls: reads },
    { toolCalls: [{ name: "apply_patch", arguments: { input: patch.join("\n") } }] },
    { text: `Renamed src/utils.ts to src/strings.ts, updated its ${RENAME_IMPORTERS} importers, deleted src/legacy.ts and added test/strings.test.ts.` },
  ],
};
writeFileSync(join(dir, "script.json"), `${JSON.stringify(script, null, 2)}\n`);

// The same change made by hand in a git repository; git's diff of it is what `git apply` replays.
const repo = mkdtempSync(join(tmpdir(), "toolfs-rename-fixture-"));
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "core.autocrlf=false", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
    cwd: repo,
    encoding: "utf8",
  });
try {
  git("init", "-q");
  for (const file of renameModuleTree.files) {
    mkdirSync(dirname(join(repo, file.path)), { recursive: true });
    writeFileSync(join(repo, file.path), fixtureBytes(file));
  }
  git("add", "-A");
  git("commit", "-qm", "base");
  const utils = readFileSync(join(repo, "src/utils.ts"), "utf8");
  writeFileSync(join(repo, "src/strings.ts"), `// String helpers (formerly src/utils.ts).\n${utils}`);
  unlinkSync(join(repo, "src/utils.ts"));
  for (let i = 0; i < RENAME_IMPORTERS; i++) {
    const path = join(repo, importerPath(i));
    writeFileSync(path, readFileSync(path, "utf8").replace(/(\.\.?\/)utils"/, '$1strings"'));
  }
  unlinkSync(join(repo, "src/legacy.ts"));
  mkdirSync(join(repo, "test"));
  writeFileSync(join(repo, "test/strings.test.ts"), test);
  git("add", "-A");
  writeFileSync(join(dir, "change.diff"), git("diff", "--cached", "-M", "--binary"));
  void renameSync;
} finally {
  rmSync(repo, { recursive: true, force: true });
}
console.log(`wrote script.json and change.diff in ${dir}`);
