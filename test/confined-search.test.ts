// Real ripgrep inside real bubblewrap (note 0016): the same results as ripgrep outside it on a tree with
// ignore files, hidden files, a symlink out and a repository above the workspace; and an aborted confined
// search leaves no process. Skipped with the detector's reason where bubblewrap cannot run.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "../adapters/node/mod.ts";
import { createToolkit, detectBubblewrap, guardSearch, isSearchError, resolveSandbox, sandboxPolicy, type SearchBackend } from "../core/mod.ts";

const confinement = await detectBubblewrap(createNodeProcessRunner());
const base = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-confined-search-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const ws = join(base, "top/ws");
const write = (path: string, content: string) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
};
write(join(base, "top/.git/HEAD"), "ref: refs/heads/main\n");
write(join(base, "top/.git/info/exclude"), "# comments only, as git init writes it\n");
write(join(ws, ".gitignore"), "ignored.txt\n");
write(join(ws, "ignored.txt"), "needle\n");
write(join(ws, "a.txt"), "needle one\n");
write(join(ws, ".hidden"), "needle hidden\n");
write(join(ws, "sub/b.txt"), "needle two\n");
write(join(base, "outside/o.txt"), "needle outside\n");
symlinkSync(join(base, "outside"), join(ws, "out"));
symlinkSync(join(base, "outside/o.txt"), join(ws, "o-link.txt"));

// Counts the searches that reached ripgrep, keeping its guard.
function counted(backend: SearchBackend): { backend: SearchBackend; count: () => number } {
  let n = 0;
  return {
    backend: {
      name: backend.name,
      ...(backend.readableGuard ? { readableGuard: backend.readableGuard } : {}),
      streamFiles: (request, sink) => (n++, backend.streamFiles(request, sink)),
      streamGrep: (request, sink) => (n++, backend.streamGrep(request, sink)),
    },
    count: () => n,
  };
}

const run = confinement.available ? test : test.skip;

run("confined ripgrep gives what ripgrep gives outside the confinement, with nothing unreadable hidden or shown", async () => {
  const fs = createNodeProvider({ cwd: ws });
  const plain = createToolkit({ fs, search: createNodeSearchBackend() });
  const search = counted(createNodeSearchBackend());
  const confined = createToolkit({ fs, search: search.backend, sandbox: { mode: "full-access", readScope: "workspace", confinement } });
  for (const [tool, args] of [
    ["glob", { pattern: "*" }],
    ["glob", { pattern: "**/*.txt" }],
    ["grep", { pattern: "needle" }],
    ["grep", { pattern: "needle", path: "sub" }],
    ["grep", { pattern: "two", include: "*.txt" }],
  ] as const) {
    const before = search.count();
    const expected = await plain.call(tool, args);
    const got = await confined.call(tool, args);
    expect(got.isError, got.content).toBe(false);
    expect(got.content, `${tool} ${JSON.stringify(args)}`).toBe(expected.content);
    expect(search.count(), "the search ran on ripgrep").toBe(before + 1);
  }
});

run("a confined search says it ran ripgrep in bubblewrap; one the guard gives the engine says so", async () => {
  const fs = createNodeProvider({ cwd: ws });
  const rules = await resolveSandbox(fs, sandboxPolicy({ mode: "full-access", workspace: ws, readScope: "workspace" }));
  expect((await guardSearch(createNodeSearchBackend(), fs, rules, confinement).files({ cwd: ws })).searchedBy).toBe("ripgrep in bubblewrap");
  expect((await guardSearch(createNodeSearchBackend(), fs, rules, undefined).grep({ cwd: ws, pattern: "needle" })).searchedBy).toBe("engine");
});

run("an aborted confined search leaves no process behind", async () => {
  const fifo = join(ws, "fifo-abort");
  execFileSync("mkfifo", [fifo]);
  const fs = createNodeProvider({ cwd: ws });
  const rules = await resolveSandbox(fs, sandboxPolicy({ mode: "full-access", workspace: ws, readScope: "workspace" }));
  const guarded = guardSearch(createNodeSearchBackend(), fs, rules, confinement);
  const controller = new AbortController();
  // ripgrep blocks opening a FIFO that nobody writes; wait until a process holding its path exists.
  const holders = () =>
    readdirSync("/proc").filter((pid) => {
      try {
        return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("fifo-abort");
      } catch {
        return false;
      }
    });
  const search = guarded.grep({ cwd: ws, paths: ["fifo-abort"], pattern: "x", signal: controller.signal });
  const outcome = search.then(
    () => "finished",
    (error: unknown) => (isSearchError(error, "SEARCH_ABORTED") ? "aborted" : String(error)),
  );
  while (holders().length < 2) await new Promise((resolve) => setImmediate(resolve));
  controller.abort();
  expect(await outcome).toBe("aborted");
  expect(holders()).toEqual([]);
});
