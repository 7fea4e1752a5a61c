// The `toolfs` command on Deno: binds the CLI to Deno.*. `toolfs acp` needs read access to node_modules, the
// script and the session directories, --allow-env=npm_config_arch (to locate ripgrep) and
// --allow-run=<rgPath>,bash,setsid,kill,ps (bash also starts bubblewrap for a sandboxed bash); the tool-call
// commands need write access where they write, and offer all six tools: glob and grep fall back to the engine
// where ripgrep may not run, and bash says which --allow-run it lacks. A model needs --allow-net to its host and
// --allow-env for its key's variable. `toolfs mcp` needs the same as acp, plus --allow-net for --http.
import {
  createEngineBackend,
  createFsSpillStore,
  createOverlayProvider,
  createOverlaySearchBackend,
  detectBubblewrap,
  type FileSystem,
  type ShellConfinement,
  spillDirectoryIn,
} from "../../core/mod.ts";
import type { McpRuntime, McpWorkspace } from "../mcp/mod.ts";
import { createDenoProcessRunner, createDenoProvider, createDenoSearchBackend } from "../deno/mod.ts";
import { runCli } from "./cli.ts";
import type { AcpHost, McpHost } from "./host.ts";

const encoder = new TextEncoder();

function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
}

async function realDirectory(path: string): Promise<string | { error: string }> {
  try {
    const real = await Deno.realPath(path);
    if (!(await Deno.stat(real)).isDirectory) return { error: `${path} is not a directory` };
    return real;
  } catch (error) {
    // Without --allow-read Deno refuses to look, which says nothing about whether the directory exists.
    if ((error as { name?: unknown }).name === "NotCapable") return { error: `Deno is not permitted to read ${path}; grant --allow-read` };
    return { error: `${path} does not exist` };
  }
}

// HOME only when already permitted: asking would stop at a permission prompt; without it `~` is refused plainly.
function homeOption(): { home?: string } {
  if (Deno.permissions.querySync({ name: "env", variable: "HOME" }).state !== "granted") return {};
  const value = Deno.env.get("HOME");
  return value?.startsWith("/") ? { home: value } : {};
}

async function provider(backend: "node" | "memory", root: string): Promise<FileSystem> {
  if (backend === "node") return createDenoProvider({ cwd: root });
  // Imported on demand: memfs asks for the uid and gid, permissions `toolfs acp` does not need.
  const [{ createMemoryProvider }, { loadDirectory }] = await Promise.all([import("../memory/mod.ts"), import("../memory/load.ts")]);
  return createMemoryProvider({ volume: await loadDirectory(root), cwd: root });
}

function acp(): AcpHost {
  const runner = createDenoProcessRunner();
  return {
    runtime: { provider: (cwd) => createDenoProvider({ cwd }), search: createDenoSearchBackend({ runner }), runner, ...homeOption() },
    readText: (path) => Deno.readTextFile(path),
    env(name) {
      try {
        return Deno.env.get(name);
      } catch {
        // Without --allow-env for it, the variable is as good as unset.
        return undefined;
      }
    },
    stdio() {
      const stop = new AbortController();
      // Without these, a signal would end the process at once and leave a running command's tree behind.
      for (const name of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(name, () => stop.abort());
      return { input: Deno.stdin.readable, output: Deno.stdout.writable, signal: stop.signal };
    },
  };
}

// The user's id names the spill folder; asking needs --allow-sys=uid, and without it the name has none.
function uid(): number | undefined {
  if (Deno.permissions.querySync({ name: "sys", kind: "uid" }).state !== "granted") return undefined;
  return Deno.uid() ?? undefined;
}

function mcp(tempRoots: readonly string[]): McpHost {
  const runner = createDenoProcessRunner();
  const spillDirectory = spillDirectoryIn(tempRoots[0] ?? "/tmp", uid());
  // Once per process, when a sandbox first needs it: every session shares the answer.
  let detected: Promise<ShellConfinement> | undefined;
  const confinement = () => (detected ??= detectBubblewrap(runner));
  const signalled = new Promise<void>((resolve) => {
    for (const name of ["SIGINT", "SIGTERM", "SIGHUP"] as const) Deno.addSignalListener(name, () => resolve());
  });
  const runtime = (backend: "node" | "memory" | "overlay"): McpRuntime => {
    const workspaces = new Map<string, Promise<McpWorkspace>>();
    let volume: Promise<import("memfs").Volume> | undefined;
    const loaded = new Set<string>();
    const open = async (roots: readonly string[]): Promise<McpWorkspace> => {
      const cwd = roots[0] ?? "/";
      // Made owner-only before the first session, so a confined shell keeps it read-only from its first command;
      // one that is there already is checked by the store on every save.
      await Deno.mkdir(spillDirectory, { mode: 0o700 }).catch(() => undefined);
      if (backend === "node") {
        const fs = createDenoProvider({ cwd });
        return { fs, search: createDenoSearchBackend({ engine: "fallback", runner }), spill: createFsSpillStore(fs, spillDirectory), runner };
      }
      if (backend === "overlay") {
        const base = createDenoProvider({ cwd });
        const overlay = createOverlayProvider({ base });
        const search = createOverlaySearchBackend(overlay, createDenoSearchBackend({ engine: "fallback", runner }));
        return { fs: overlay, overlay, search, spill: createFsSpillStore(base, spillDirectory) };
      }
      const [{ createMemoryProvider, createMemoryVolume }, { loadDirectory }] = await Promise.all([import("../memory/mod.ts"), import("../memory/load.ts")]);
      const shared = await (volume ??= Promise.resolve(createMemoryVolume()));
      for (const root of roots.filter((r) => !loaded.has(r))) {
        loaded.add(root);
        await loadDirectory(root, shared);
      }
      const fs = createMemoryProvider({ volume: shared, cwd });
      return { fs, search: createEngineBackend(fs), spill: createFsSpillStore(fs, spillDirectory) };
    };
    return {
      tempRoots,
      ...homeOption(),
      confinement,
      workspace(roots) {
        const key = roots.join("\0");
        let workspace = workspaces.get(key);
        if (!workspace) workspaces.set(key, (workspace = open(roots)));
        return workspace;
      },
      async realDirectory(path) {
        const real = await realDirectory(path);
        return typeof real === "string" ? real : undefined;
      },
    };
  };
  return {
    runtime,
    async stdio(session, limits) {
      const [{ serveMcpStdio }, { default: process }] = await Promise.all([import("../mcp/mod.ts"), import("node:process")]);
      void signalled.then(() => session.server.close());
      await serveMcpStdio(session, { input: Deno.stdin.readable, output: process.stdout, ...limits });
    },
    async http(handler, hostname, port, listening) {
      const server = Deno.serve(
        { hostname, port, onListen: ({ port: bound }) => listening(`http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${bound}/mcp`) },
        (request) => handler.fetch(request),
      );
      await signalled;
      await server.shutdown();
    },
    env: (name) => Deno.env.get(name),
  };
}

const tempRoots = (await Promise.all(["/tmp"].map((t) => Deno.realPath(t).catch(() => undefined)))).filter((t) => t !== undefined);
const runner = createDenoProcessRunner();

const status = await runCli(Deno.args, {
  cwd: Deno.cwd(),
  realDirectory,
  provider,
  // As on Node: ripgrep where Deno may run it, else the engine (same results); the engine over a memory volume.
  search: (backend, fs) => (backend === "node" ? createDenoSearchBackend({ engine: "fallback", runner }) : createEngineBackend(fs)),
  // Created by the store on the first save; without --allow-write there, results over the cap are reported unsaved.
  spillDirectory: spillDirectoryIn(tempRoots[0] ?? "/tmp", uid()),
  // The toolkit checks --allow-run for bash's helpers itself and says which to grant when it cannot run.
  runner,
  tempRoots,
  ...homeOption(),
  confinement: () => detectBubblewrap(runner),
  ask: undefined,
  out: (text) => writeAll(Deno.stdout, text),
  err: (text) => writeAll(Deno.stderr, text),
  acp,
  mcp: () => mcp(tempRoots),
});
// The signal listeners would keep the process alive; the CLI is done.
Deno.exit(status);
