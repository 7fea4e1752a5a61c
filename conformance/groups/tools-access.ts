import type { SandboxOptions } from "../../core/mod.ts";
import { assert, assertBytes, assertEquals } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceGroup } from "../suite.ts";
import { needsSearch, needsSymlinks } from "../util.ts";
import { excludes, fails, includes, ok, toolkit } from "./tools-support.ts";

function kit(subject: Subject, sandbox: Partial<SandboxOptions>) {
  return toolkit(subject, { ...(subject.search ? { search: subject.search } : {}), sandbox: { mode: "workspace-write", ...sandbox } });
}

const SECRET = "SECRET-7f3a";

// A workspace with secrets in it: a .env at the top and deeper, a key by extension, a denied directory, and
// ordinary files that must stay visible.
async function seed(subject: Subject): Promise<void> {
  const { probe } = subject;
  await probe.writeFile(".env", `TOKEN=${SECRET}\n`);
  await probe.writeFile("app/.env", `TOKEN=${SECRET}\n`);
  await probe.writeFile("app/main.ts", "export const token = process.env.TOKEN;\n");
  await probe.writeFile("certs/server.pem", `${SECRET}\n`);
  await probe.writeFile("private/notes.txt", `${SECRET}\n`);
  await probe.writeFile("README.md", "TOKEN is read from the environment\n");
}

const DENY = [".env", "*.pem", "private"];

/** The deny list and the read scope on read, glob, grep, write and edit, and the protected paths. */
export const toolsAccessGroup: ConformanceGroup = {
  name: "tool-access",
  cases: [
    {
      name: "read refuses a denied path at any depth, inside a denied directory, and through ..",
      async run(subject) {
        await seed(subject);
        const k = kit(subject, { deny: DENY });
        for (const path of [".env", "app/.env", "certs/server.pem", "private/notes.txt", "app/../.env", `${subject.probe.root}/private/notes.txt`]) {
          const result = await fails(k, "read", { path }, "FS_SANDBOX_DENIED");
          includes(result.content, "[sandbox: workspace-write]", "deny list");
          excludes(result.content, SECRET, "[escalation]");
        }
        await ok(k, "read", { path: "app/main.ts" });
      },
    },
    {
      name: "the deny list holds in every mode, and a refused write or edit offers no escalation",
      async run(subject) {
        await seed(subject);
        for (const mode of ["read-only", "workspace-write", "full-access"] as const) {
          const k = kit(subject, { mode, deny: DENY, approve: async () => "allowed-once" });
          await fails(k, "read", { path: ".env" }, "FS_SANDBOX_DENIED");
          const write = await fails(k, "write", { path: ".env", content: "x" }, "FS_SANDBOX_DENIED");
          excludes(write.content, "[escalation]", SECRET);
          await fails(k, "write", { path: "app/new.pem", content: "x" }, "FS_SANDBOX_DENIED");
          if (mode !== "full-access") {
            await fails(k, "write", { path: ".env", content: "x", sandbox_permissions: "full-access", justification: "Needed." }, "FS_SANDBOX_DENIED");
          }
          await fails(k, "edit", { path: "app/.env", old_string: "TOKEN", new_string: "X" }, "FS_SANDBOX_DENIED");
        }
        assertBytes(await subject.probe.readFile(".env"), `TOKEN=${SECRET}\n`);
        assertEquals(await subject.probe.readFile("app/new.pem"), undefined);
      },
    },
    {
      name: "glob never lists a denied path, and its total says nothing about one",
      skip: needsSearch,
      async run(subject) {
        await seed(subject);
        const result = await ok(kit(subject, { deny: DENY }), "glob", { pattern: "*" });
        assertEquals(result.content.split("\n").sort(), ["README.md", "app/main.ts"]);
        assertEquals(result.meta.total, 2);
        const capped = await ok(
          toolkit(subject, { search: subject.search!, limits: { globMaxResults: 1 }, sandbox: { mode: "full-access", deny: DENY } }),
          "glob",
          { pattern: "*" },
        );
        includes(capped.content, "of 2 paths");
        excludes(capped.content, ".env", "server.pem", "private");
        await fails(kit(subject, { deny: DENY }), "glob", { pattern: "*", path: "private" }, "FS_SANDBOX_DENIED");
      },
    },
    {
      name: "grep finds nothing in denied files and refuses one named as its path",
      skip: needsSearch,
      async run(subject) {
        await seed(subject);
        const k = kit(subject, { deny: DENY });
        const result = await ok(k, "grep", { pattern: "TOKEN|SECRET" });
        excludes(result.content, SECRET, "app/.env", "server.pem", "private");
        assert(!result.content.split("\n").includes(".env"), result.content);
        assertEquals(result.meta.total, 2);
        const hidden = await ok(k, "grep", { pattern: "SECRET", include: "*.pem" });
        includes(hidden.content, "No matches");
        await fails(k, "grep", { pattern: "TOKEN", path: "app/.env" }, "FS_SANDBOX_DENIED");
        await fails(k, "grep", { pattern: "SECRET", path: "private" }, "FS_SANDBOX_DENIED");
      },
    },
    {
      name: "a missing file's suggestions do not name a denied sibling",
      async run(subject) {
        await seed(subject);
        const result = await fails(kit(subject, { deny: DENY }), "read", { path: ".envv" }, "FS_NOT_FOUND");
        excludes(result.content, '".env"');
        const control = await fails(kit(subject, {}), "read", { path: ".envv" }, "FS_NOT_FOUND");
        includes(control.content, '".env"');
      },
    },
    {
      name: "a symlink does not reach a denied file, and a denied name is refused whatever it points to",
      skip: needsSymlinks,
      async run(subject) {
        await seed(subject);
        await subject.probe.symlink(".env", "settings");
        await subject.probe.writeFile("plain.txt", "plain\n");
        await subject.probe.symlink("plain.txt", "other.pem");
        const k = kit(subject, { deny: DENY });
        await fails(k, "read", { path: "settings" }, "FS_SANDBOX_DENIED");
        await fails(k, "read", { path: "other.pem" }, "FS_SANDBOX_DENIED");
        await ok(k, "read", { path: "plain.txt" });
      },
    },
    {
      name: "~ in a deny pattern stands for the home directory given",
      async run(subject) {
        await subject.probe.writeFile(`${subject.probe.outside}/.ssh/id_ed25519`, SECRET);
        const k = kit(subject, { deny: ["~/.ssh"], home: subject.probe.outside });
        await fails(k, "read", { path: `${subject.probe.outside}/.ssh/id_ed25519` }, "FS_SANDBOX_DENIED");
      },
    },
    {
      name: "the workspace read scope refuses paths outside the readable roots, absolute or through ..",
      async run(subject) {
        await subject.probe.writeFile(`${subject.probe.outside}/secret.txt`, SECRET);
        await subject.probe.writeFile("inside.txt", "inside\n");
        const k = kit(subject, { readScope: "workspace" });
        await ok(k, "read", { path: "inside.txt" });
        for (const path of [`${subject.probe.outside}/secret.txt`, "../outside/secret.txt", `${subject.probe.outside}/missing.txt`]) {
          const result = await fails(k, "read", { path }, "FS_SANDBOX_DENIED");
          includes(result.content, "outside the readable roots");
          excludes(result.content, SECRET);
        }
        // The default scope reads anywhere, as before.
        await ok(kit(subject, {}), "read", { path: `${subject.probe.outside}/secret.txt` });
      },
    },
    {
      name: "readable and writable roots widen the workspace read scope",
      async run(subject) {
        await subject.probe.writeFile(`${subject.probe.outside}/r/doc.txt`, "doc\n");
        await subject.probe.writeFile(`${subject.probe.outside}/w/tmp.txt`, "tmp\n");
        const k = kit(subject, { readScope: "workspace", readableRoots: [`${subject.probe.outside}/r`], writableRoots: [`${subject.probe.outside}/w`] });
        await ok(k, "read", { path: `${subject.probe.outside}/r/doc.txt` });
        await ok(k, "read", { path: `${subject.probe.outside}/w/tmp.txt` });
        await fails(k, "write", { path: `${subject.probe.outside}/r/new.txt`, content: "x" }, "FS_SANDBOX_DENIED");
      },
    },
    {
      name: "the workspace read scope is judged on the canonical path: a symlink inside pointing outside is refused",
      skip: needsSymlinks,
      async run(subject) {
        await subject.probe.writeFile(`${subject.probe.outside}/secret.txt`, SECRET);
        await subject.probe.symlink(`${subject.probe.outside}/secret.txt`, "link.txt");
        await subject.probe.symlink(subject.probe.outside, "dir");
        const k = kit(subject, { readScope: "workspace" });
        await fails(k, "read", { path: "link.txt" }, "FS_SANDBOX_DENIED");
        await fails(k, "read", { path: "dir/secret.txt" }, "FS_SANDBOX_DENIED");
      },
    },
    {
      name: "glob and grep under the workspace read scope refuse an outside root and never list outside files",
      skip: needsSearch,
      async run(subject) {
        await subject.probe.writeFile(`${subject.probe.outside}/secret.txt`, SECRET);
        await subject.probe.writeFile("inside.txt", "inside\n");
        const k = kit(subject, { readScope: "workspace" });
        await fails(k, "glob", { pattern: "*", path: subject.probe.outside }, "FS_SANDBOX_DENIED");
        await fails(k, "glob", { pattern: "*", path: ".." }, "FS_SANDBOX_DENIED");
        await fails(k, "grep", { pattern: "SECRET", path: `${subject.probe.outside}/secret.txt` }, "FS_SANDBOX_DENIED");
        assertEquals((await ok(k, "glob", { pattern: "*" })).content, "inside.txt");
      },
    },
    {
      name: "workspace-write refuses writes into .git and into host-listed protected paths, naming the protection",
      async run(subject) {
        await subject.probe.writeFile(".git/config", "[core]\n");
        await subject.probe.writeFile(`${subject.probe.outside}/w/keep/x.txt`, "keep\n");
        const k = kit(subject, { protectedPaths: ["build", `${subject.probe.outside}/w/keep`], writableRoots: [`${subject.probe.outside}/w`] });
        for (const path of [
          ".git/config",
          ".git/hooks/pre-commit",
          "build/out.js",
          `${subject.probe.outside}/w/keep/x.txt`,
          `${subject.probe.outside}/w/.git/HEAD`,
        ]) {
          const result = await fails(k, "write", { path, content: "x" }, "FS_SANDBOX_DENIED");
          includes(result.content, "is protected");
        }
        const git = await fails(k, "write", { path: ".git/hooks/post-checkout", content: "x" }, "FS_SANDBOX_DENIED");
        includes(git.content, "hooks and config");
        await ok(k, "write", { path: "src/ok.ts", content: "x" });
        await ok(k, "write", { path: `${subject.probe.outside}/w/free.txt`, content: "x" });
        assertBytes(await subject.probe.readFile(".git/config"), "[core]\n");
        assertEquals(await subject.probe.readFile("build/out.js"), undefined);
      },
    },
    {
      name: "a .git file's gitdir is protected too",
      async run(subject) {
        await subject.probe.writeFile(".git", "gitdir: repo.git/worktrees/w\n");
        await subject.probe.writeFile("repo.git/worktrees/w/HEAD", "ref: refs/heads/main\n");
        const k = kit(subject, {});
        await fails(k, "write", { path: ".git", content: "gitdir: /elsewhere\n" }, "FS_SANDBOX_DENIED");
        await fails(k, "write", { path: "repo.git/worktrees/w/HEAD", content: "x" }, "FS_SANDBOX_DENIED");
        await ok(k, "write", { path: "repo.git/other.txt", content: "x" });
      },
    },
    {
      name: "a nested repository's .git is protected at any depth, and so is a git directory a gitdir: file points to",
      async run(subject) {
        await subject.probe.writeFile("sub/.git/config", "[core]\n");
        await subject.probe.writeFile("a/b/c/.GIT/config", "[core]\n");
        // A submodule-style checkout: its .git is a file naming a git directory elsewhere in the workspace.
        await subject.probe.writeFile("mod/.git", "gitdir: ../vendor/mod.git\n");
        await subject.probe.writeFile("vendor/mod.git/HEAD", "ref: refs/heads/main\n");
        await subject.probe.mkdir("vendor/mod.git/objects");
        await subject.probe.mkdir("vendor/mod.git/refs");
        await subject.probe.writeFile("wt/HEAD", "ref: refs/heads/w\n");
        await subject.probe.writeFile("wt/commondir", "..\n");
        const k = kit(subject, {});
        for (const path of [
          "sub/.git/hooks/pre-commit",
          "sub/.git/config",
          "a/b/c/.GIT/hooks/x",
          "mod/.git",
          "vendor/mod.git/hooks/pre-commit",
          "wt/hooks/x",
        ]) {
          const result = await fails(k, "write", { path, content: "x" }, "FS_SANDBOX_DENIED");
          includes(result.content, "is protected", "hooks and config");
        }
        // A file named HEAD does not make a git directory of its folder.
        await subject.probe.writeFile("notes/HEAD", "head\n");
        await ok(k, "write", { path: "notes/x.txt", content: "x" });
        await ok(k, "write", { path: "sub/src/ok.ts", content: "x" });
        await ok(k, "write", { path: "vendor/other/x.txt", content: "x" });
        assertEquals(await subject.probe.readFile("sub/.git/hooks/pre-commit"), undefined);
        assertEquals(await subject.probe.readFile("vendor/mod.git/hooks/pre-commit"), undefined);
      },
    },
    {
      name: "bad sandbox options are refused when the toolkit is built",
      async run(subject) {
        const bad: Partial<SandboxOptions>[] = [
          { deny: ["["] },
          { deny: [""] },
          { deny: ["~/.ssh"] },
          { readableRoots: ["relative"] },
          { protectedPaths: ["a/b"] },
          { readScope: "everywhere" as never },
        ];
        for (const options of bad) {
          let threw = false;
          try {
            kit(subject, options);
          } catch (error) {
            threw = error instanceof RangeError;
          }
          assert(threw, `expected a RangeError for ${JSON.stringify(options)}`);
        }
      },
    },
  ],
};
