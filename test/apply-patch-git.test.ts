// apply_patch against git apply: the same changes, once as an apply_patch planned by toolfs's core and once as
// the unified diff git writes, applied by git to the same files; every resulting file must be byte-identical.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { parsePatch, planPatch } from "../core/text/patch/mod.ts";
import { type PatchCase, patchCase } from "./patch-cases.ts";

const dir = mkdtempSync(join(tmpdir(), "toolfs-apply-patch-git-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const git = (...args: string[]) =>
  execFileSync("git", ["-c", "core.autocrlf=false", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
    cwd: dir,
    encoding: "utf8",
  });

test("git apply of git's own diff and toolfs's plan of the apply_patch leave the same bytes", async () => {
  // A handful of generated cases: four each with CRLF, with a BOM, without a final newline, and plain.
  const kinds: ((c: PatchCase) => boolean)[] = [
    (c) => c.original.includes("\r\n"),
    (c) => c.original.startsWith("\ufeff"),
    (c) => c.original.length > 0 && !c.original.endsWith("\n"),
    () => true,
  ];
  const cases: PatchCase[] = [];
  for (const kind of kinds) {
    for (let seed = 1000, found = 0; found < 4; seed++) {
      const c = patchCase(seed);
      if (c !== undefined && kind(c) && !cases.some((k) => k.seed === seed)) {
        cases.push(c);
        found++;
      }
    }
  }

  const originals: Record<string, string> = {
    "gone.txt": "obsolete\n",
    "old-name.ts": 'import { a } from "./a";\nexport const b = a + 1;\n',
  };
  cases.forEach((c, i) => {
    originals[`f${i}.txt`] = c.original;
  });
  git("init", "-q");
  for (const [name, text] of Object.entries(originals)) writeFileSync(join(dir, name), text);
  git("add", "-A");
  git("commit", "-qm", "base");

  const patch = ["*** Begin Patch"];
  cases.forEach((c, i) => {
    patch.push(`*** Update File: f${i}.txt`, ...c.body);
  });
  patch.push(
    "*** Delete File: gone.txt",
    "*** Update File: old-name.ts",
    "*** Move to: new-name.ts",
    "@@",
    '-import { a } from "./a";',
    '+import { a } from "./alpha";',
  );
  patch.push("*** Add File: added.txt", "+hello", "+world", "*** End Patch");
  const plan = await planPatch(parsePatch(patch.join("\n")), async (path) => originals[path]);
  const ours = new Map<string, string>(Object.entries(originals));
  for (const change of plan.changes) {
    if (change.kind === "delete") ours.delete(change.path);
    else if (change.kind === "move") {
      ours.delete(change.path);
      ours.set(change.to, change.after);
    } else ours.set(change.path, change.after);
  }

  // The same change made by hand, diffed by git, undone, and applied by git.
  cases.forEach((c, i) => {
    writeFileSync(join(dir, `f${i}.txt`), c.expected);
  });
  rmSync(join(dir, "gone.txt"));
  renameSync(join(dir, "old-name.ts"), join(dir, "new-name.ts"));
  writeFileSync(join(dir, "new-name.ts"), 'import { a } from "./alpha";\nexport const b = a + 1;\n');
  writeFileSync(join(dir, "added.txt"), "hello\nworld\n");
  git("add", "-A");
  const diff = git("diff", "--cached", "--binary", "-M", "HEAD");
  git("reset", "-q", "--hard", "HEAD");
  writeFileSync(`${dir}.diff`, diff);
  git("apply", "--whitespace=nowarn", `${dir}.diff`);
  rmSync(`${dir}.diff`);

  const theirs = new Map<string, string>();
  for (const name of readdirSync(dir)) if (name !== ".git") theirs.set(name, readFileSync(join(dir, name), "latin1"));
  const encode = (m: Map<string, string>) => new Map([...m].map(([k, v]) => [k, Buffer.from(v, "utf8").toString("latin1")]));
  expect(new Map([...encode(ours)].sort())).toEqual(new Map([...theirs].sort()));
});
