#!/usr/bin/env node
// The `toolfs` executable on Node: binds the CLI to node:fs, the process and the terminal.
import { promises as fsp } from "node:fs";
import { homedir, tmpdir } from "node:os";
import process from "node:process";
import { createInterface } from "node:readline/promises";
import { Readable, Writable } from "node:stream";
import { createEngineBackend, detectBubblewrap, type FileSystem, spillDirectoryIn } from "../../core/mod.ts";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "../node/mod.ts";
import { runCli } from "./cli.ts";
import type { AcpHost } from "./host.ts";
import { nodeMcpHost } from "./mcp.node.ts";

async function realDirectory(path: string): Promise<string | { error: string }> {
  try {
    const real = await fsp.realpath(path);
    if (!(await fsp.stat(real)).isDirectory()) return { error: `${path} is not a directory` };
    return real;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { error: code === "EACCES" || code === "EPERM" ? `${path} cannot be opened: permission denied` : `${path} does not exist` };
  }
}

async function provider(backend: "node" | "memory", root: string): Promise<FileSystem> {
  if (backend === "node") return createNodeProvider({ cwd: root });
  // memfs is an optional peer dependency: loaded only for --backend memory.
  const [{ createMemoryProvider }, { loadDirectory }] = await Promise.all([import("../memory/mod.ts"), import("../memory/load.ts")]);
  return createMemoryProvider({ volume: await loadDirectory(root), cwd: root });
}

async function ask(question: string): Promise<string> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await terminal.question(question);
  } finally {
    terminal.close();
  }
}

function acp(): AcpHost {
  const runner = createNodeProcessRunner();
  return {
    runtime: { provider: (cwd) => createNodeProvider({ cwd }), search: createNodeSearchBackend({ runner }), runner, home: homedir() },
    readText: (path) => fsp.readFile(path, "utf8"),
    env: (name) => process.env[name],
    stdio() {
      const stop = new AbortController();
      // Without these, a signal would end the process at once and leave a running command's tree behind.
      for (const name of ["SIGINT", "SIGTERM"] as const) process.once(name, () => stop.abort());
      return {
        input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
        output: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
        signal: stop.signal,
      };
    },
  };
}

const temps = [...new Set([tmpdir(), "/tmp"])];
const tempRoots = (await Promise.all(temps.map((t) => fsp.realpath(t).catch(() => undefined)))).filter((t) => t !== undefined);
const spillDirectory = spillDirectoryIn(tempRoots[0] ?? tmpdir(), process.getuid?.());
// Made now, owner-only, so a confined shell finds it and keeps it read-only from its first command. One that
// is there already is left alone: the store refuses it on every save if another user owns it or can write to it.
await fsp.mkdir(spillDirectory, { mode: 0o700 }).catch(() => undefined);

process.exitCode = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  realDirectory,
  provider,
  // A memory volume has no process to run ripgrep in; the engine gives the same results over it.
  search: (backend, fs) => (backend === "node" ? createNodeSearchBackend({ engine: "fallback" }) : createEngineBackend(fs)),
  spillDirectory,
  runner: createNodeProcessRunner(),
  tempRoots,
  confinement: () => detectBubblewrap(createNodeProcessRunner()),
  home: homedir(),
  ask: process.stdin.isTTY ? ask : undefined,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  acp,
  mcp: () =>
    nodeMcpHost({
      runner: createNodeProcessRunner(),
      tempRoots,
      spillDirectory,
      realDirectory,
      confinement: () => detectBubblewrap(createNodeProcessRunner()),
      // Set by npm for what it starts (npx, npm exec, npm run).
      watchParent: process.env.npm_lifecycle_event !== undefined,
    }),
});
