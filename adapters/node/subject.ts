// Test support: a conformance subject on a real temporary directory, probed with node:fs directly.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Probe, ProbeInfo, RaceHooks, RemoteWriter, Subject, WorkerJob } from "../../conformance/mod.ts";
import { detectBubblewrap, type FileSystem, type ShellConfinement } from "../../core/mod.ts";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "./mod.ts";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const swapScript = join(repo, "test/swap.py");
const workerScript = join(repo, "adapters/node/worker.ts");
// The race hooks run from a checkout of this repository (the published package ships neither script): the
// swapper needs python3 with a libc that has renameat2, the writers tsx. Without them those cases are skipped.
const canSwap = existsSync(swapScript) && spawnSync("python3", ["-c", "import ctypes; ctypes.CDLL(None).renameat2"]).status === 0;
const canSpawn = existsSync(workerScript) && existsSync(join(repo, "node_modules/tsx"));
// Detected once, as a host does.
let confinement: Promise<ShellConfinement> | undefined;

/**
 * A fresh subject: an empty workspace and an outside directory under a new temporary directory, searched by
 * ripgrep from `@vscode/ripgrep`, raced by a second provider, by writers in other Node processes, and by
 * test/swap.py. It returns a promise of one subject, so the suite is handed `() => createNodeSubject(make)`.
 */
export async function createNodeSubject(makeProvider?: (cwd: string) => FileSystem): Promise<Subject> {
  const base = await fsp.realpath(await fsp.mkdtemp(join(tmpdir(), "toolfs-conformance-")));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  await fsp.mkdir(root);
  await fsp.mkdir(outside);
  const make = makeProvider ?? ((cwd: string) => createNodeProvider({ cwd }));
  const children = new Set<ChildProcess>();
  const at = (path: string) => (isAbsolute(path) ? path : join(root, path));
  const races: RaceHooks = {
    sibling: async () => make(root),
    swapper: canSwap ? swapper : undefined,
    spawn: canSpawn ? spawnWriter : undefined,
  };
  async function swapper(dir: string, link: string): Promise<{ stop(): Promise<number> }> {
    const child = track(children, spawn("python3", [swapScript, at(dir), at(link)], { stdio: ["pipe", "pipe", "inherit"] }));
    const lines = lineReader(child);
    await lines.waitFor("ready");
    return {
      async stop() {
        child.stdin?.write("stop\n");
        return Number(await lines.last());
      },
    };
  }
  async function spawnWriter(job: WorkerJob): Promise<RemoteWriter> {
    const args = ["--import", "tsx", workerScript, root, JSON.stringify(job)];
    const child = track(children, spawn(process.execPath, args, { cwd: repo, stdio: ["pipe", "pipe", "inherit"] }));
    return remoteWriter(child, lineReader(child));
  }
  return {
    provider: make(root),
    probe: nodeProbe(root, outside),
    search: createNodeSearchBackend(),
    confinement: await (confinement ??= detectBubblewrap(createNodeProcessRunner())),
    races,
    async dispose() {
      for (const child of children) child.kill("SIGKILL");
      await Promise.all([...children].map((child) => exited(child)));
      await fsp.rm(base, { recursive: true, force: true });
    },
  };
}

function track(children: Set<ChildProcess>, child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** The lines a child prints, as they arrive. */
function lineReader(child: ChildProcess): { waitFor(line: string): Promise<void>; last(): Promise<string> } {
  const seen: string[] = [];
  const waiting: { line: string; resolve(): void }[] = [];
  const done = exited(child);
  createInterface({ input: child.stdout! }).on("line", (line) => {
    seen.push(line);
    for (const w of waiting.filter((w) => w.line === line)) w.resolve();
  });
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
      await new Promise((resolve) => setImmediate(resolve));
      return seen.at(-1) ?? "";
    },
  };
}

function remoteWriter(child: ChildProcess, lines: ReturnType<typeof lineReader>): RemoteWriter {
  return {
    waitFor: (line) => lines.waitFor(line),
    go: () => void child.stdin?.write("go\n"),
    result: () => lines.last(),
    async kill() {
      child.kill("SIGKILL");
      await exited(child);
    },
  };
}

/** A probe over node:fs rooted at `root`. */
export function nodeProbe(root: string, outside: string): Probe {
  const at = (path: string) => (isAbsolute(path) ? path : join(root, path));
  const parent = (path: string) => fsp.mkdir(join(at(path), ".."), { recursive: true });
  return {
    root,
    outside,
    async writeFile(path, content) {
      await parent(path);
      await fsp.writeFile(at(path), content);
    },
    async readFile(path) {
      try {
        return new Uint8Array(await fsp.readFile(at(path)));
      } catch {
        return undefined;
      }
    },
    async mkdir(path) {
      await fsp.mkdir(at(path), { recursive: true });
    },
    async symlink(linkTarget, path) {
      await parent(path);
      await fsp.symlink(linkTarget, at(path));
    },
    async rename(from, to) {
      await fsp.rename(at(from), at(to));
    },
    async remove(path) {
      await fsp.rm(at(path), { recursive: true, force: true });
    },
    async list(path) {
      return (await fsp.readdir(at(path))).sort();
    },
    async info(path): Promise<ProbeInfo | undefined> {
      try {
        const s = await fsp.lstat(at(path));
        const type = s.isFile() ? "file" : s.isDirectory() ? "directory" : s.isSymbolicLink() ? "symlink" : "other";
        return { type, size: s.size, mtimeMs: s.mtimeMs, mode: s.mode & 0o777, owner: s.uid };
      } catch {
        return undefined;
      }
    },
    async setMtime(path, mtimeMs) {
      await fsp.utimes(at(path), mtimeMs / 1000, mtimeMs / 1000);
    },
    async chmod(path, mode) {
      await fsp.chmod(at(path), mode);
    },
    async chown(path, uid) {
      await fsp.lchown(at(path), uid, uid);
    },
  };
}
