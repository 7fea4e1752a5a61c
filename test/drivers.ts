// Driver wrappers for tests: a driver's own methods bound to it (to override some), and a driver whose folder
// operations all go by path.
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import type { FsDirectory, FsDriver } from "../core/mod.ts";

/** `driver` as a plain object of bound methods, ready to spread and override. */
export function bind(driver: FsDriver): FsDriver {
  return {
    capabilities: driver.capabilities,
    storage: driver.storage,
    ...(driver.processes ? { processes: driver.processes } : {}),
    newFileMode: driver.newFileMode,
    realpath: (p) => driver.realpath(p),
    stat: (p) => driver.stat(p),
    lstat: (p) => driver.lstat(p),
    readlink: (p) => driver.readlink(p),
    readdir: (p) => driver.readdir(p),
    open: (p) => driver.open(p),
    openDirectory: (p) => driver.openDirectory(p),
  };
}

/**
 * Folder operations by path, as publication and reads were made before folders were pinned: the control that
 * shows a race case can fail. The tests that use it expect it to leak where the pinned driver holds.
 */
export function byPath(driver: FsDriver): FsDriver {
  const at = (path: string): FsDirectory => ({
    currentPath: async () => fsp.realpath(path).catch(() => undefined),
    stat: async () => (await driver.stat(path))!,
    lstat: (n) => driver.lstat(join(path, n)),
    openDirectory: async (n) => ((await driver.lstat(join(path, n)))?.type === "directory" ? at(join(path, n)) : undefined),
    mkdir: async (n, mode) =>
      fsp.mkdir(join(path, n), { mode }).then(
        () => true,
        () => false,
      ),
    createFile: async (n, mode) => {
      const handle = await fsp.open(join(path, n), "wx", mode);
      return {
        write: async (bytes) => (await handle.write(bytes)).bytesWritten,
        sync: () => handle.sync(),
        chmod: (m) => handle.chmod(m),
        close: () => handle.close(),
      };
    },
    readFile: async (n) => new Uint8Array(await fsp.readFile(join(path, n))),
    rename: (a, b) => fsp.rename(join(path, a), join(path, b)),
    link: (a, b) =>
      fsp.link(join(path, a), join(path, b)).then(
        () => true,
        () => false,
      ),
    unlink: (n) =>
      fsp.unlink(join(path, n)).then(
        () => true,
        () => false,
      ),
    rmdir: (n) =>
      fsp.rmdir(join(path, n)).then(
        () => true,
        () => false,
      ),
    move: async () => {
      throw new Error("this test directory does not move");
    },
    readdir: () => fsp.readdir(path),
    close: async () => undefined,
    openFile: (n) => driver.open(join(path, n)),
  });
  return { ...bind(driver), openDirectory: async (p) => at(p) };
}

const wrapped = new WeakMap<FsDirectory, FsDirectory>();

/** The driver's own directory behind a wrapper made by {@link bindDirectory} (a move needs the native one). */
export function unwrapDirectory(dir: FsDirectory): FsDirectory {
  return wrapped.get(dir) ?? dir;
}

/** Every operation of `dir` but `openFile`, each bound to it, for a wrapper to override some of. */
export function bindDirectory(dir: FsDirectory): FsDirectory {
  const bound: FsDirectory = {
    currentPath: () => dir.currentPath(),
    stat: () => dir.stat(),
    lstat: (n) => dir.lstat(n),
    openDirectory: (n) => dir.openDirectory(n),
    mkdir: (n, m) => dir.mkdir(n, m),
    createFile: (n, m) => dir.createFile(n, m),
    readFile: (n, m) => dir.readFile(n, m),
    rename: (a, b) => dir.rename(a, b),
    link: (a, b) => dir.link(a, b),
    unlink: (n) => dir.unlink(n),
    rmdir: (n) => dir.rmdir(n),
    move: (a, into, b, replace) => dir.move(a, unwrapDirectory(into), b, replace),
    readdir: () => dir.readdir(),
    close: () => dir.close(),
  };
  wrapped.set(bound, unwrapDirectory(dir));
  return bound;
}
