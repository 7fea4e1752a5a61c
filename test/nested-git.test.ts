// Repositories nested in the workspace under workspace-write (issue 18, item 8): the confined shell sees every
// nested .git read-only, as the file tools' fence refuses it, as root and as an ordinary user (nobody, whose
// bubblewrap builds its view in a user namespace). The view is also checked without processes, on memory.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createNodeProcessRunner, createNodeProvider } from "../adapters/node/mod.ts";
import {
  BoundedCollector,
  confinedRunner,
  createToolkit,
  detectBubblewrap,
  resolveSandbox,
  sandboxPolicy,
  type ShellConfinement,
  shellView,
} from "../core/mod.ts";

const TREE = {
  ".git/config": "[core]\n",
  "sub/.git/hooks/.keep": "",
  "sub/src/a.ts": "a\n",
  "a/b/.GIT/hooks/.keep": "",
  // A submodule-style checkout: its .git is a file naming a git directory elsewhere in the workspace.
  "mod/.git": "gitdir: ../vendor/mod.git\n",
  "vendor/mod.git/HEAD": "ref: refs/heads/main\n",
  "vendor/mod.git/objects/.keep": "",
  "vendor/mod.git/refs/.keep": "",
  "vendor/mod.git/hooks/.keep": "",
  // A folder with a file named HEAD is not a git directory.
  "notes/HEAD": "head\n",
};

describe("the confined shell's view of nested repositories", () => {
  async function view(gitScanLimit?: number) {
    const fs = createMemoryProvider({ cwd: "/ws", files: TREE });
    const rules = await resolveSandbox(fs, sandboxPolicy({ mode: "workspace-write", workspace: "/ws" }));
    return shellView(fs, rules, "workspace-write", gitScanLimit === undefined ? undefined : { gitScanLimit });
  }

  test("every nested .git (any case, directory or gitdir: file) and the git directory a gitdir: file names is read-only", async () => {
    const result = await view();
    expect([...result.readOnly].sort()).toEqual(["/ws/.git", "/ws/a/b/.GIT", "/ws/mod/.git", "/ws/sub/.git", "/ws/vendor/mod.git"]);
    expect(result.notes).toBeUndefined();
  });

  test("past the walk's bound, what was found is kept and the command is told on stderr", async () => {
    const result = await view(3);
    expect(result.readOnly).toContain("/ws/.git");
    expect(result.notes).toEqual([
      "looked for nested git repositories in 3 entries of /ws and stopped there; a .git further in is not read-only to this command",
    ]);
    const stderr = new BoundedCollector({ maxBytes: 1000 });
    const base = { run: async () => ({ exitCode: 0, signal: null, forced: false }) };
    await confinedRunner(base, "bwrap", async () => result).run({ command: "true", stderr });
    expect(stderr.text()).toBe(`toolfs: ${result.notes![0]}\n`);
  });
});

// Real commands in bubblewrap, as root (this process) and as nobody (bubblewrap started through setpriv).
const runner = createNodeProcessRunner();
const scratch = mkdtempSync(join(tmpdir(), "toolfs-nested-git-"));
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const asNobody = join(scratch, "bwrap-as-nobody");
writeFileSync(asNobody, '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups bwrap "$@"\n', { mode: 0o755 });
const users: [string, ShellConfinement | string][] = [["root", await detectBubblewrap(runner)]];
users.push(["nobody", process.getuid?.() === 0 ? await detectBubblewrap(runner, { program: asNobody }) : "the test does not run as root"]);

describe.each(users)("bash under workspace-write, as %s", (user, confinement) => {
  const reason = typeof confinement === "string" ? confinement : confinement.available ? undefined : confinement.reason;
  test.skipIf(reason !== undefined)(`cannot write a nested repository's git directory; writes elsewhere work${reason ? ` (${reason})` : ""}`, async () => {
    const ws = realpathSync(mkdtempSync(join(scratch, `${user}-`)));
    chmodSync(ws, 0o777);
    for (const [path, content] of Object.entries(TREE)) {
      mkdirSync(join(ws, path, ".."), { recursive: true, mode: 0o777 });
      writeFileSync(join(ws, path), content, { mode: 0o666 });
    }
    await runner.run({ command: "chmod", args: ["-R", "a+rwX", ws] });
    const kit = createToolkit({
      fs: createNodeProvider({ cwd: ws }),
      workspace: ws,
      runner,
      tools: ["bash"],
      sandbox: { mode: "workspace-write", confinement: confinement as ShellConfinement },
    });
    const attempts = [
      ".git/hooks/pre-commit",
      "sub/.git/hooks/pre-commit",
      "sub/.git/config",
      "a/b/.GIT/hooks/pre-commit",
      "vendor/mod.git/hooks/pre-commit",
      "mod/.git",
    ];
    const script =
      `id -u; for p in ${attempts.join(" ")}; do (printf 'echo pwned\\n' > "$p") 2>/dev/null && echo "wrote $p"; done; ` +
      "mv sub/.git sub/moved 2>/dev/null && echo moved; echo ok > sub/src/ok.txt && echo notes > notes/x.txt && echo done";
    const result = await kit.call("bash", { command: script });
    expect(result.content).not.toContain("wrote");
    expect(result.content).not.toContain("moved");
    expect(result.content).toContain("done");
    expect(result.content.split("\n")[0]).toBe(user === "root" ? "0" : "65534");
    for (const path of attempts.slice(0, -1)) expect(existsSync(join(ws, path))).toBe(false);
    expect(readFileSync(join(ws, "mod/.git"), "utf8")).toBe("gitdir: ../vendor/mod.git\n");
    expect(readFileSync(join(ws, "sub/src/ok.txt"), "utf8")).toBe("ok\n");
  });
});
