// Reads and listings reach what the canonical key names, through the opened parent folder, driven here to the
// attacker's best moments: the parent is a symlink to the outside while the file is opened (or the folder
// read), the real folder while the folder is asked where it is, and the symlink again while the entry is
// looked at. The pinned Node driver must give the inside bytes; core's fallback for a folder that cannot
// open files must too; a path-based control driver, the same operations by path, shows the cases can fail.
import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createFileSystem, type FileSystem, type FsDirectory, type FsDriver } from "../core/mod.ts";
import { createNodeDriver } from "../adapters/node/mod.ts";
import { byPath } from "./drivers.ts";

/** Hooks run just before an operation of a read or a listing. */
interface Hooks {
  /** Before the file is opened or the folder read (through the folder, or by path with the driver). */
  open?(): Promise<void>;
  /** Before the folder says where it is, once the file was opened or the entries read. */
  recheck?(): Promise<void>;
  /** Before an entry's metadata is read through the folder, once the file was opened. */
  lstat?(): Promise<void>;
}

// Every directory operation of `dir`, with the hooks in front of the ones a read and a listing make.
function hookedDirectory(dir: FsDirectory, hooks: Hooks, state: { opened: boolean }): FsDirectory {
  const opening = async () => {
    await hooks.open?.();
    state.opened = true;
  };
  return {
    currentPath: async () => (state.opened && (await hooks.recheck?.()), dir.currentPath()),
    stat: () => dir.stat(),
    lstat: async (n) => (state.opened && (await hooks.lstat?.()), dir.lstat(n)),
    openDirectory: async (n) => {
      const child = await dir.openDirectory(n);
      return child && hookedDirectory(child, hooks, state);
    },
    mkdir: (n, m) => dir.mkdir(n, m),
    createFile: (n, m) => dir.createFile(n, m),
    readFile: (n, m) => dir.readFile(n, m),
    rename: (a, b) => dir.rename(a, b),
    link: (a, b) => dir.link(a, b),
    unlink: (n) => dir.unlink(n),
    rmdir: (n) => dir.rmdir(n),
    move: (a, into, b, replace) => dir.move(a, into, b, replace),
    readdir: async () => (await opening(), dir.readdir()),
    close: () => dir.close(),
    ...(dir.openFile ? { openFile: async (n: string) => (await opening(), dir.openFile!(n)) } : {}),
  };
}

function hooked(driver: FsDriver, hooks: Hooks): FsDriver {
  const state = { opened: false };
  return {
    capabilities: driver.capabilities,
    storage: driver.storage,
    newFileMode: driver.newFileMode,
    realpath: (p) => driver.realpath(p),
    stat: (p) => driver.stat(p),
    lstat: (p) => driver.lstat(p),
    readlink: (p) => driver.readlink(p),
    readdir: async (p) => {
      await hooks.open?.();
      state.opened = true;
      return driver.readdir(p);
    },
    open: async (p) => {
      await hooks.open?.();
      state.opened = true;
      return driver.open(p);
    },
    openDirectory: async (p) => {
      state.opened = false; // a new attempt
      return hookedDirectory(await driver.openDirectory(p), hooks, state);
    },
  };
}

// The pinned folders without openFile: core opens the file by path, then checks the entry through the folder.
function withoutOpenFile(driver: FsDriver): FsDriver {
  return {
    ...hooked(driver, {}),
    openDirectory: async (p) => {
      const { openFile: _dropped, ...dir } = hookedDirectory(await driver.openDirectory(p), {}, { opened: false });
      return dir;
    },
  };
}

describe.skipIf(!createNodeDriver().capabilities.pinnedPublication)("pinned reads on Node", () => {
  let base: string;
  let root: string;
  let outside: string;
  beforeEach(async () => {
    base = await fsp.realpath(await fsp.mkdtemp(join(tmpdir(), "toolfs-pinned-read-")));
    root = join(base, "ws");
    outside = join(base, "outside");
    await fsp.mkdir(join(root, "d"), { recursive: true });
    await fsp.mkdir(outside);
    await fsp.writeFile(join(root, "d/f.txt"), "inside");
    await fsp.writeFile(join(outside, "f.txt"), "outside");
    await fsp.writeFile(join(outside, "outside-only.txt"), "outside");
  });
  afterEach(() => fsp.rm(base, { recursive: true, force: true }));

  const toSymlink = async () => {
    await fsp.rename(join(root, "d"), join(root, "d-moved"));
    await fsp.symlink(outside, join(root, "d"));
  };
  const toDirectory = async () => {
    await fsp.unlink(join(root, "d"));
    await fsp.rename(join(root, "d-moved"), join(root, "d"));
  };
  // Each once, in this order: a symlink for the open, the real folder for the recheck, a symlink for the lstat.
  const flips = (): Hooks => {
    let phase = 0;
    const step = (at: number, flip: () => Promise<void>) => async () => void (phase === at && (phase++, await flip()));
    return { open: step(0, toSymlink), recheck: step(1, toDirectory), lstat: step(2, toSymlink) };
  };
  const outcome = (work: Promise<string>) => work.catch((e: { code?: string }) => e.code ?? String(e));
  const read = (fs: FileSystem) => outcome(fs.resolve("d/f.txt").then(async (t) => new TextDecoder().decode((await fs.readBytes(t, { maxBytes: 100 })).bytes)));
  const stream = (fs: FileSystem) =>
    outcome(
      fs.resolve("d/f.txt").then(async (t) => {
        let out = "";
        for await (const chunk of await fs.readStream(t)) out += new TextDecoder().decode(chunk);
        return out;
      }),
    );
  const list = (fs: FileSystem) => outcome(fs.resolve("d").then(async (t) => (await fs.listDir(t)).map((e) => e.name).join(" ")));

  const drivers = [
    ["the pinned driver", (d: FsDriver) => d, "inside"],
    // The path open reaches the outside file; the check through the folder sees it is not the entry and the
    // next attempts find the symlink the last flip left: refused.
    ["the pinned folders without openFile (core opens the path, then checks the entry through the folder)", withoutOpenFile, "FS_STALE_VERSION"],
    ["a path-based driver (the control: the case can fail)", byPath, "outside"],
  ] as const;

  test.for(drivers)("readBytes meets a parent swapped for an outward symlink around its checks: %s", async ([, make, expected]) => {
    expect(await read(createFileSystem(hooked(make(createNodeDriver()), flips()), { cwd: root }))).toBe(expected);
  });

  test.for(drivers)("readStream meets a parent swapped for an outward symlink around its checks: %s", async ([, make, expected]) => {
    expect(await stream(createFileSystem(hooked(make(createNodeDriver()), flips()), { cwd: root }))).toBe(expected);
  });

  test.for([
    ["the pinned driver", (d: FsDriver) => d, "f.txt"],
    ["a path-based driver (the control: the case can fail)", byPath, "f.txt outside-only.txt"],
  ] as const)("a listing meets a parent swapped for an outward symlink around its checks: %s", async ([, make, expected]) => {
    expect(await list(createFileSystem(hooked(make(createNodeDriver()), flips()), { cwd: root }))).toBe(expected);
  });

  test("a parent that stays swapped is refused after three attempts, and nothing of the outside is read", async () => {
    const opened: string[] = [];
    const driver = createNodeDriver();
    const fs = createFileSystem({ ...hooked(driver, {}), openDirectory: async (p) => (opened.push(p), driver.openDirectory(p)) }, { cwd: root });
    const file = await fs.resolve("d/f.txt");
    const dir = await fs.resolve("d");
    await toSymlink();
    const error = await fs.readBytes(file, { maxBytes: 100 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "FS_STALE_VERSION", details: { path: join(root, "d/f.txt") } });
    expect((error as Error).message).toBe(
      `Cannot read "${join(root, "d/f.txt")}": a folder on its path was moved or replaced while it was being opened; read it again`,
    );
    expect(opened).toEqual([join(root, "d"), join(root, "d"), join(root, "d")]);
    await expect(fs.listDir(dir)).rejects.toMatchObject({ code: "FS_STALE_VERSION" });
  });

  test("a file other writers keep replacing is read once the replacements pause, not refused as a moved folder", async () => {
    // Each publication renames a whole new file over the name, between the open and the check of the entry:
    // the first five attempts each see another file there.
    let replacements = 0;
    const replace = async () => {
      if (replacements >= 5) return;
      replacements++;
      await fsp.writeFile(join(root, "d/.next"), `version ${replacements}`);
      await fsp.rename(join(root, "d/.next"), join(root, "d/f.txt"));
    };
    for (const make of [(d: FsDriver) => d, withoutOpenFile]) {
      replacements = 0;
      await fsp.writeFile(join(root, "d/f.txt"), "version 0");
      const fs = createFileSystem(hooked(make(createNodeDriver()), { lstat: replace }), { cwd: root });
      expect(await read(fs)).toBe("version 5");
      expect(replacements).toBe(5);
    }
  });

  test("a symlink inside the workspace to a file elsewhere reads that file: the canonical key is the target", async () => {
    await fsp.symlink(join(outside, "f.txt"), join(root, "link.txt"));
    const fs = createFileSystem(createNodeDriver(), { cwd: root });
    const target = await fs.resolve("link.txt");
    expect(target.key).toBe(join(outside, "f.txt"));
    expect(new TextDecoder().decode((await fs.readBytes(target, { maxBytes: 100 })).bytes)).toBe("outside");
  });
});
