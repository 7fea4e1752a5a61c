// The publication protocol's mechanisms, each driven to the moment it exists for: a rename between the last
// check and the publication, a folder moved out while publishing, the lock file's waiting and breaking, and
// the sweep of dead writers' files. Each check names the driver change that would make it fail.
import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Volume } from "memfs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  createFileSystem,
  encodeUtf8,
  type FileSystem,
  type FsDirectory,
  type FsDriver,
  type FsProcessInfo,
  localDiskStorage,
  sandboxFence,
} from "../core/mod.ts";
import { acquireLockFile, STALE_LOCK_MS, STALE_STAGED_MS, sweepDirectory } from "../core/fs/lockfile.ts";
import { storageState } from "../core/fs/shared.ts";
import { createMemoryDriver, createMemoryVolume } from "../adapters/memory/mod.ts";
import { createNodeDriver } from "../adapters/node/mod.ts";
import { bind, byPath } from "./drivers.ts";

/** Hooks run just before a directory operation of the publication protocol. */
interface Hooks {
  /** Before the staged file is created. */
  stage?(): Promise<void>;
  /** Before the publication lock is taken, which the last check follows. */
  check?(): Promise<void>;
  /** Before the staged file is renamed or linked onto the destination. */
  publish?(): Promise<void>;
}

// Lock records are staged and linked too; only the destination's own staging and publication are hooked.
const isLock = (name: string) => name.includes(".toolfs-lock");

function hooked(driver: FsDriver, hooks: Hooks): FsDriver {
  const wrap = (dir: FsDirectory): FsDirectory => ({
    currentPath: () => dir.currentPath(),
    stat: () => dir.stat(),
    lstat: (n) => dir.lstat(n),
    openDirectory: async (n) => {
      const child = await dir.openDirectory(n);
      return child && wrap(child);
    },
    mkdir: (n, m) => dir.mkdir(n, m),
    createFile: async (n, m) => (await (isLock(n) ? hooks.check?.() : hooks.stage?.()), dir.createFile(n, m)),
    readFile: (n, m) => dir.readFile(n, m),
    rename: async (a, b) => (isLock(a) || isLock(b) ? dir.rename(a, b) : (await hooks.publish?.(), dir.rename(a, b))),
    link: async (a, b) => (isLock(a) || isLock(b) ? dir.link(a, b) : (await hooks.publish?.(), dir.link(a, b))),
    unlink: (n) => dir.unlink(n),
    rmdir: (n) => dir.rmdir(n),
    move: (a, into, b, replace) => dir.move(a, into, b, replace),
    readdir: () => dir.readdir(),
    close: () => dir.close(),
  });
  return { ...bind(driver), openDirectory: async (p) => wrap(await driver.openDirectory(p)) };
}

describe.skipIf(!createNodeDriver().capabilities.pinnedPublication)("pinned publication on Node", () => {
  let base: string;
  let root: string;
  let outside: string;
  beforeEach(async () => {
    base = await fsp.realpath(await fsp.mkdtemp(join(tmpdir(), "toolfs-publication-")));
    root = join(base, "ws");
    outside = join(base, "outside");
    await fsp.mkdir(join(root, "d"), { recursive: true });
    await fsp.mkdir(outside);
  });
  afterEach(() => fsp.rm(base, { recursive: true, force: true }));

  const fenced = async (fs: FileSystem) => sandboxFence(fs, "workspace-write", [await fs.resolve(root)]);
  const toSymlink = async () => {
    await fsp.rename(join(root, "d"), join(root, "d-moved"));
    await fsp.symlink(outside, join(root, "d"));
  };
  const toDirectory = async () => {
    await fsp.unlink(join(root, "d"));
    await fsp.rename(join(root, "d-moved"), join(root, "d"));
  };
  // The attacker's best sequence: the parent is a symlink to the outside folder while the bytes are staged
  // and published, and the real folder while the last check looks.
  const flips = (): Hooks => {
    let phase = 0;
    return {
      stage: async () => void (phase === 0 && ((phase = 1), await toSymlink())),
      check: async () => void (phase === 1 && ((phase = 2), await toDirectory())),
      publish: async () => void (phase === 2 && ((phase = 3), await toSymlink())),
    };
  };

  test.for([
    ["the pinned driver", false],
    ["a path-based driver (the control: the case can fail)", true],
  ] as const)("a parent flipped to an outward symlink around the last check cannot overwrite an outside file: %s", async ([, paths]) => {
    await fsp.writeFile(join(root, "d/victim.txt"), "inside");
    await fsp.writeFile(join(outside, "victim.txt"), "outside");
    const fs = createFileSystem(hooked(paths ? byPath(createNodeDriver()) : createNodeDriver(), flips()), { cwd: root });
    const outcome = await fs.write(await fs.resolve("d/victim.txt"), encodeUtf8("model bytes"), { fence: await fenced(fs) }).then(
      () => "written",
      (e: { code?: string }) => e.code,
    );
    if (paths) {
      expect(await fsp.readFile(join(outside, "victim.txt"), "utf8")).toBe("model bytes");
      return;
    }
    expect(outcome).toBe("written");
    expect(await fsp.readFile(join(outside, "victim.txt"), "utf8")).toBe("outside");
    expect(await fsp.readdir(outside)).toEqual(["victim.txt"]);
    expect(await fsp.readFile(join(root, "d-moved/victim.txt"), "utf8")).toBe("model bytes");
  });

  test("the same flips cannot put a new file or a staged file outside", async () => {
    const fs = createFileSystem(hooked(createNodeDriver(), flips()), { cwd: root });
    await fs.write(await fs.resolve("d/new.txt"), encodeUtf8("model bytes"), { fence: await fenced(fs) });
    expect(await fsp.readdir(outside)).toEqual([]);
    expect(await fsp.readdir(join(root, "d-moved"))).toEqual(["new.txt"]);
  });

  test("a folder moved outside while publishing: a new file is taken back and the write refused", async () => {
    const fs = createFileSystem(hooked(createNodeDriver(), { publish: () => fsp.rename(join(root, "d"), join(outside, "d")) }), { cwd: root });
    await expect(fs.write(await fs.resolve("d/new.txt"), encodeUtf8("model bytes"), { fence: await fenced(fs) })).rejects.toMatchObject({
      code: "FS_SANDBOX_DENIED",
    });
    expect(await fsp.readdir(join(outside, "d"))).toEqual([]);
  });

  test("a folder moved outside while publishing: a replacement is reported with where its bytes went", async () => {
    await fsp.writeFile(join(root, "d/a.txt"), "old");
    const fs = createFileSystem(hooked(createNodeDriver(), { publish: () => fsp.rename(join(root, "d"), join(outside, "d")) }), { cwd: root });
    const error = await fs.write(await fs.resolve("d/a.txt"), encodeUtf8("new"), { fence: await fenced(fs) }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "FS_SANDBOX_DENIED", details: { destination: join(outside, "d/a.txt") } });
    expect((error as Error).message).toContain(`the new bytes are at "${join(outside, "d/a.txt")}"`);
  });
});

describe("the lock file", () => {
  const me = (alive: (pid: number) => boolean | undefined = () => true): FsProcessInfo => ({ pid: 100, host: "here", alive });
  let volume: Volume;
  let dir: FsDirectory;
  // Counts the links the lock takes, so a case can stop a waiting writer after a few.
  let countLinks = 0;
  beforeEach(async () => {
    volume = createMemoryVolume();
    volume.mkdirSync("/d");
    countLinks = 0;
    dir = counting(await createMemoryDriver(volume).openDirectory("/d"), () => undefined);
  });
  const record = (pid: number, host: string) => JSON.stringify({ toolfs: "lock", pid, host, id: `owner-${pid}`, since: 0 });
  const names = () => volume.readdirSync("/d").map(String).sort();

  test("a second writer waits for the first to release, then takes the lock", async () => {
    const events: string[] = [];
    const release = await acquireLockFile(dir, "a.txt", me(), undefined);
    const second = acquireLockFile(dir, "a.txt", { ...me(), pid: 101 }, undefined).then((r) => (events.push("second acquired"), r));
    // The second writer cannot get past a held lock: wait until it has failed to link twice.
    await until(() => countLinks >= 2);
    events.push("first releases");
    await release();
    await (await second)();
    expect(events).toEqual(["first releases", "second acquired"]);
    expect(names()).toEqual([]);
  });

  test("a lock whose owner on this host is dead is broken at once", async () => {
    volume.writeFileSync("/d/.a.txt.toolfs-lock", record(4_000_000, "here"));
    const release = await acquireLockFile(
      dir,
      "a.txt",
      me((pid) => pid !== 4_000_000),
      undefined,
    );
    expect(JSON.parse(String(volume.readFileSync("/d/.a.txt.toolfs-lock"))).pid).toBe(100);
    await release();
    expect(names()).toEqual([]);
  });

  test("a lock of another host is waited for until it is older than the bound, then broken", async () => {
    volume.writeFileSync("/d/.a.txt.toolfs-lock", record(7, "there"));
    const controller = new AbortController();
    const waited = acquireLockFile(
      counting(dir, () => countLinks >= 3 && controller.abort()),
      "a.txt",
      me(),
      controller.signal,
    );
    await expect(waited).rejects.toMatchObject({ code: "FS_ABORTED" });
    expect(JSON.parse(String(volume.readFileSync("/d/.a.txt.toolfs-lock"))).host).toBe("there");
    const old = (Date.now() - STALE_LOCK_MS - 1000) / 1000;
    volume.utimesSync("/d/.a.txt.toolfs-lock", old, old);
    await (await acquireLockFile(dir, "a.txt", me(), undefined))();
    expect(names()).toEqual([]);
  });

  test("a file at the lock name without a record is judged by its age alone", async () => {
    volume.writeFileSync("/d/.a.txt.toolfs-lock", "");
    const controller = new AbortController();
    const waited = acquireLockFile(
      counting(dir, () => countLinks >= 3 && controller.abort()),
      "a.txt",
      me(() => false),
      controller.signal,
    );
    await expect(waited).rejects.toMatchObject({ code: "FS_ABORTED" });
    const old = (Date.now() - STALE_LOCK_MS - 1000) / 1000;
    volume.utimesSync("/d/.a.txt.toolfs-lock", old, old);
    await (await acquireLockFile(dir, "a.txt", me(), undefined))();
  });

  function counting(inner: FsDirectory, after: () => unknown): FsDirectory {
    return {
      ...inner,
      currentPath: () => inner.currentPath(),
      stat: () => inner.stat(),
      lstat: (n) => inner.lstat(n),
      openDirectory: (n) => inner.openDirectory(n),
      mkdir: (n, m) => inner.mkdir(n, m),
      createFile: (n, m) => inner.createFile(n, m),
      readFile: (n, m) => inner.readFile(n, m),
      rename: (a, b) => inner.rename(a, b),
      link: async (a, b) => {
        const linked = await inner.link(a, b);
        if (!linked) countLinks++;
        after();
        return linked;
      },
      unlink: (n) => inner.unlink(n),
      rmdir: (n) => inner.rmdir(n),
      move: (a, into, b, replace) => inner.move(a, into, b, replace),
      readdir: () => inner.readdir(),
      close: () => inner.close(),
    };
  }
});

describe("the sweep of dead writers' files", () => {
  const tag = "213b65cb"; // hostTag("here"), checked below
  let volume: Volume;
  let dir: FsDirectory;
  beforeEach(async () => {
    volume = createMemoryVolume();
    volume.mkdirSync("/d");
    dir = await createMemoryDriver(volume).openDirectory("/d");
  });
  const me: FsProcessInfo = { pid: 100, host: "here", alive: (pid) => pid === 200 };
  const state = () => storageState({});

  test("removes staged files of dead owners on this host, keeps live and foreign ones until they are old", async () => {
    const { hostTag } = await import("../core/fs/names.ts");
    expect(hostTag("here")).toBe(tag);
    const files = {
      dead: `.a.txt.300-${tag}.0123456789ab.toolfs-tmp`,
      live: `.a.txt.200-${tag}.0123456789ab.toolfs-tmp`,
      mine: `.a.txt.100-${tag}.0123456789ab.toolfs-tmp`,
      foreign: `.a.txt.300-00000000.0123456789ab.toolfs-tmp`,
      oldForeign: `.b.txt.300-00000000.0123456789ab.toolfs-tmp`,
      legacy: `.c.txt.0123456789ab.toolfs-tmp`,
      oldLegacy: `.d.txt.0123456789ab.toolfs-tmp`,
      user: `notes.toolfs-tmp`,
    };
    for (const name of Object.values(files)) volume.writeFileSync(`/d/${name}`, "x");
    const old = (Date.now() - STALE_STAGED_MS - 1000) / 1000;
    for (const name of [files.oldForeign, files.oldLegacy, files.user]) volume.utimesSync(`/d/${name}`, old, old);
    await sweepDirectory(dir, "/d", me, state());
    expect(volume.readdirSync("/d").map(String).sort()).toEqual([files.live, files.mine, files.foreign, files.legacy, files.user].sort());
  });

  test("breaks a lock whose owner is dead, and sweeps a folder at most once per interval", async () => {
    const shared = state();
    volume.writeFileSync("/d/.a.txt.toolfs-lock", JSON.stringify({ toolfs: "lock", pid: 300, host: "here", id: "x" }));
    await sweepDirectory(dir, "/d", me, shared);
    expect(volume.readdirSync("/d")).toEqual([]);
    volume.writeFileSync(`/d/.a.txt.300-${tag}.0123456789ab.toolfs-tmp`, "x");
    await sweepDirectory(dir, "/d", me, shared);
    expect(volume.readdirSync("/d")).toHaveLength(1);
  });
});

test("the disk storage identity is one object per process, shared by every disk driver", () => {
  expect(createNodeDriver().storage).toBe(localDiskStorage());
  expect(createNodeDriver().storage).toBe(createNodeDriver().storage);
  expect(createMemoryDriver(createMemoryVolume()).storage).not.toBe(createMemoryDriver(createMemoryVolume()).storage);
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}
