// The ripgrep backend on Node against the real binary: the shared cases, plus a host configuration that must
// not leak in and a stand-in ripgrep whose process tree must not outlive a timeout.
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { BoundedCollector, isSearchError, withWholeResults } from "../../core/mod.ts";
import { registerRipgrepCases } from "../../test/ripgrep-cases.ts";
import { createNodeProcessRunner, createNodeSearchBackend } from "./mod.ts";
import { createNodeSubject } from "./subject.ts";

const runner = createNodeProcessRunner();

registerRipgrepCases(test, "node", {
  createSubject: () => createNodeSubject(),
  missingRipgrep: () => createNodeSearchBackend({ ripgrep: "/nonexistent/toolfs/rg" }),
  runner,
});

async function running(pid: string): Promise<boolean> {
  const stat = await fsp.readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "" && state !== "Z" && state !== "X";
}

test("node ripgrep backend: a host RIPGREP_CONFIG_PATH changes nothing and runs nothing", async () => {
  const { probe, search: seam, dispose } = await createNodeSubject();
  const search = seam && withWholeResults(seam);
  const saved = process.env.RIPGREP_CONFIG_PATH;
  try {
    await probe.writeFile("a.txt", "Alpha\nalpha\n");
    const marker = join(probe.outside, "preprocessed");
    const pre = join(probe.outside, "pre.sh");
    await fsp.writeFile(pre, `#!/bin/sh\ntouch '${marker}'\ncat "$1"\n`, { mode: 0o755 });
    const config = join(probe.outside, "ripgreprc");
    await fsp.writeFile(config, `--ignore-case\n--glob=!*.txt\n--pre=${pre}\n`);
    const expected = { files: [{ path: "a.txt", lineNumbers: [2] }], listed: ["a.txt"] };
    const observe = async () => {
      const grep = await search!.grep({ cwd: probe.root, pattern: "alpha" });
      const files = await search!.files({ cwd: probe.root });
      return { files: grep.files.map((f) => ({ path: f.path, lineNumbers: f.lines.map((l) => l.lineNumber) })), listed: files.paths };
    };
    process.env.RIPGREP_CONFIG_PATH = config;
    expect(await observe()).toEqual(expected);
    await expect(fsp.access(marker)).rejects.toThrow();
    // The control: the same configuration does take hold of a plain ripgrep run.
    const { rgPath } = await import("@vscode/ripgrep");
    const out = new BoundedCollector({ maxBytes: 1 << 16 });
    await runner.run({ command: rgPath, args: ["--files"], cwd: probe.root, stdout: out });
    expect(out.text()).toBe("");
    await runner.run({ command: rgPath, args: ["alpha", "a.txt"], cwd: probe.root });
    await expect(fsp.access(marker)).resolves.toBeUndefined();
  } finally {
    if (saved === undefined) delete process.env.RIPGREP_CONFIG_PATH;
    else process.env.RIPGREP_CONFIG_PATH = saved;
    await dispose();
  }
});

test("node ripgrep backend: a timeout stops a stand-in ripgrep and every process it started", async () => {
  const { probe, dispose } = await createNodeSubject();
  try {
    const script = join(probe.outside, "rg");
    const body = "(trap '' TERM; exec sleep 1000) & echo $! >> pids; sleep 1000 & echo $! >> pids; echo $$ >> pids; wait";
    await fsp.writeFile(script, `#!/bin/bash\n${body}\n`, { mode: 0o755 });
    const search = createNodeSearchBackend({ ripgrep: script, graceMs: 200 });
    const error = await search.grep({ cwd: probe.root, pattern: "x", timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(isSearchError(error, "SEARCH_ABORTED")).toBe(true);
    const pids = (await fsp.readFile(join(probe.root, "pids"), "utf8")).trim().split("\n");
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(await running(pid), `pid ${pid}`).toBe(false);
  } finally {
    await dispose();
  }
});
