// The `toolfs` command on Deno: binds the CLI to Deno.*. `toolfs acp` needs read access to node_modules, the
// script and the session directories, --allow-env=npm_config_arch (to locate ripgrep) and
// --allow-run=<rgPath>,bash,setsid,kill,ps; the tool-call commands need write access where they write; a
// model needs --allow-net to its host and --allow-env for its key's variable.
import type { FileSystem } from "../../core/mod.ts";
import { createDenoProcessRunner, createDenoProvider, createDenoSearchBackend } from "../deno/mod.ts";
import { type AcpHost, runCli } from "./cli.ts";

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
  } catch {
    return { error: `${path} does not exist` };
  }
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
    runtime: { provider: (cwd) => createDenoProvider({ cwd }), search: createDenoSearchBackend({ runner }), runner },
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

const status = await runCli(Deno.args, {
  cwd: Deno.cwd(),
  realDirectory,
  provider,
  tempRoots: (await Promise.all(["/tmp"].map((t) => Deno.realPath(t).catch(() => undefined)))).filter((t) => t !== undefined),
  ask: undefined,
  out: (text) => writeAll(Deno.stdout, text),
  err: (text) => writeAll(Deno.stderr, text),
  acp,
});
// The signal listeners would keep the process alive; the CLI is done.
Deno.exit(status);
