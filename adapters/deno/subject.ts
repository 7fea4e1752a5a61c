// Test support: a conformance subject on a real temporary directory. Uses the Deno global directly, so it is
// type-checked by `deno check`/`deno test` only (tsconfig.node.json leaves it out).
import type { Probe, ProbeInfo, RaceHooks, RemoteWriter, Subject, WorkerJob } from "../../conformance/mod.ts";
import { detectBubblewrap, parentPath, resolvePath, type ShellConfinement } from "../../core/mod.ts";
import { createDenoProcessRunner, createDenoProvider, createDenoSearchBackend } from "./mod.ts";

const repo = new URL("../..", import.meta.url).pathname;
// The swapper needs python3 with a libc that has renameat2; without them the swap case is skipped.
const canSwap = (() => {
  try {
    Deno.statSync(`${repo}test/swap.py`);
    return new Deno.Command("python3", { args: ["-c", "import ctypes; ctypes.CDLL(None).renameat2"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();

export interface DenoSubjectOptions {
  /** Passed to createDenoProvider: `false` keeps publication to path-based Deno.* calls. */
  readonly ffi?: boolean;
}

// Detected once, as a host does.
let confinement: Promise<ShellConfinement> | undefined;

/**
 * A fresh subject: an empty workspace and an outside directory under a new temporary directory, probed with
 * Deno.* directly, searched by ripgrep from `@vscode/ripgrep` run through Deno.Command, and raced by a second
 * provider, by writers in other Deno processes and by test/swap.py.
 */
export async function createDenoSubject(options?: DenoSubjectOptions): Promise<Subject> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolfs-conformance-" }));
  const root = `${base}/ws`;
  const outside = `${base}/outside`;
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  const ffi = options?.ffi;
  const make = () => createDenoProvider({ cwd: root, ...(ffi === undefined ? {} : { ffi }) });
  const provider = make();
  const children = new Set<Deno.ChildProcess>();
  const start = (command: string, args: string[]): { child: Deno.ChildProcess; lines: Lines } => {
    const child = new Deno.Command(command, { args, cwd: repo, stdin: "piped", stdout: "piped", stderr: "inherit" }).spawn();
    children.add(child);
    child.status.finally(() => children.delete(child));
    return { child, lines: lineReader(child) };
  };
  const races: RaceHooks = {
    sibling: async () => make(),
    swapper: canSwap ? swapper : undefined,
    spawn: spawnWriter,
  };
  async function swapper(dir: string, link: string): Promise<{ stop(): Promise<number> }> {
    const { child, lines } = start("python3", [`${repo}test/swap.py`, resolvePath(root, dir), resolvePath(root, link)]);
    await lines.waitFor("ready");
    return {
      async stop() {
        await send(child, "stop\n");
        return Number(await lines.last());
      },
    };
  }
  async function spawnWriter(job: WorkerJob): Promise<RemoteWriter> {
    const pinned = provider.capabilities.pinnedPublication;
    const flags = ["--allow-read", "--allow-write", ...(pinned ? ["--allow-ffi"] : [])];
    const { child, lines } = start(Deno.execPath(), ["run", ...flags, `${repo}adapters/deno/worker.ts`, root, JSON.stringify(job), String(pinned)]);
    return remoteWriter(child, lines);
  }
  return {
    provider,
    probe: denoProbe(root, outside),
    search: createDenoSearchBackend(),
    confinement: await (confinement ??= detectBubblewrap(createDenoProcessRunner())),
    races,
    async dispose() {
      for (const child of children) {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await Promise.all([...children].map((child) => child.status));
      await Deno.remove(base, { recursive: true });
    },
  };
}

interface Lines {
  waitFor(line: string): Promise<void>;
  last(): Promise<string>;
}

async function send(child: Deno.ChildProcess, line: string): Promise<void> {
  const writer = child.stdin.getWriter();
  try {
    await writer.write(new TextEncoder().encode(line));
  } finally {
    writer.releaseLock();
  }
}

/** The lines a child prints, as they arrive. */
function lineReader(child: Deno.ChildProcess): Lines {
  const seen: string[] = [];
  const waiting: { line: string; resolve(): void }[] = [];
  const read = (async () => {
    let pending = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      let cut: number;
      while ((cut = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, cut);
        pending = pending.slice(cut + 1);
        seen.push(line);
        for (const w of waiting.filter((w) => w.line === line)) w.resolve();
      }
    }
  })();
  const done = Promise.all([read, child.status]);
  return {
    waitFor: (line) =>
      seen.includes(line)
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiting.push({ line, resolve })),
            done.then(() => {
              if (!seen.includes(line)) throw new Error(`the child exited before printing ${JSON.stringify(line)}: ${seen.join(" | ")}`);
            }),
          ]),
    last: async () => {
      await done;
      return seen.at(-1) ?? "";
    },
  };
}

function remoteWriter(child: Deno.ChildProcess, lines: Lines): RemoteWriter {
  return {
    waitFor: (line) => lines.waitFor(line),
    go: () => void send(child, "go\n"),
    result: () => lines.last(),
    async kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      await child.status;
    },
  };
}

/** A probe over Deno.* rooted at `root`. */
export function denoProbe(root: string, outside: string): Probe {
  const at = (path: string) => resolvePath(root, path);
  const parent = (path: string) => Deno.mkdir(parentPath(at(path)), { recursive: true });
  return {
    root,
    outside,
    async writeFile(path, content) {
      await parent(path);
      if (typeof content === "string") await Deno.writeTextFile(at(path), content);
      else await Deno.writeFile(at(path), content);
    },
    async readFile(path) {
      try {
        return await Deno.readFile(at(path));
      } catch {
        return undefined;
      }
    },
    async mkdir(path) {
      await Deno.mkdir(at(path), { recursive: true });
    },
    async symlink(linkTarget, path) {
      await parent(path);
      await Deno.symlink(linkTarget, at(path));
    },
    async rename(from, to) {
      await Deno.rename(at(from), at(to));
    },
    async remove(path) {
      await Deno.remove(at(path), { recursive: true }).catch(() => undefined);
    },
    async list(path) {
      const names: string[] = [];
      for await (const entry of Deno.readDir(at(path))) names.push(entry.name);
      return names.sort();
    },
    async info(path): Promise<ProbeInfo | undefined> {
      try {
        const s = await Deno.lstat(at(path));
        const type = s.isFile ? "file" : s.isDirectory ? "directory" : s.isSymlink ? "symlink" : "other";
        return { type, size: s.size, mtimeMs: s.mtime?.getTime() ?? 0, mode: (s.mode ?? 0) & 0o777, ...(s.uid === null ? {} : { owner: s.uid }) };
      } catch {
        return undefined;
      }
    },
    async setMtime(path, mtimeMs) {
      await Deno.utime(at(path), mtimeMs / 1000, mtimeMs / 1000);
    },
    async chmod(path, mode) {
      await Deno.chmod(at(path), mode);
    },
    async chown(path, uid) {
      await Deno.chown(at(path), uid, uid);
    },
  };
}
