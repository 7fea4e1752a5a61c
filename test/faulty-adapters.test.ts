// The suite must catch broken backends, not just pass good ones: each faulty driver below breaks one
// promise of the seam, and the cases that guard that promise must fail.
import type { Volume } from "memfs";
import { describe, expect, test } from "vitest";
import { allGroups, type CreateSubject, runConformance } from "../conformance/mod.ts";
import { createFileSystem, type FsDirectory, type FsDriver, type FsDriverStat, type FsVersion, encodeUtf8 } from "../core/mod.ts";
import { createMemoryDriver, createMemoryVolume } from "../adapters/memory/mod.ts";
import { createMemorySubject } from "../adapters/memory/subject.ts";
import { createNodeDriver } from "../adapters/node/mod.ts";
import { createNodeSubject } from "../adapters/node/subject.ts";
import { bind, bindDirectory } from "./drivers.ts";

async function failingCases(createSubject: CreateSubject, groups?: string[]): Promise<{ total: number; failed: string[] }> {
  const cases: { name: string; fn: () => Promise<void> }[] = [];
  await runConformance({ test: (name, fn) => cases.push({ name, fn }) }, createSubject, groups ? { groups } : undefined);
  const failed: string[] = [];
  for (const { name, fn } of cases) await fn().catch(() => failed.push(name));
  return { total: cases.length, failed };
}

/** A driver with every directory it opens passed through `change`. */
function withDirectories(driver: FsDriver, change: (dir: FsDirectory, path: string) => FsDirectory): FsDriver {
  const wrap = (dir: FsDirectory, path: string): FsDirectory => {
    const changed = change(dir, path);
    return {
      ...bindDirectory(changed),
      openDirectory: async (name) => {
        const child = await changed.openDirectory(name);
        return child && wrap(child, `${path}/${name}`);
      },
    };
  };
  return { ...bind(driver), openDirectory: async (path) => wrap(await driver.openDirectory(path), path) };
}

// "Renames" by truncating the destination and copying the staged bytes into it in place, yielding between
// chunks: readers can see a half-written file.
function inPlaceWriter(volume: Volume): FsDriver {
  return withDirectories(createMemoryDriver(volume), (dir, path) => ({
    ...bindDirectory(dir),
    async rename(from, to) {
      const bytes = volume.readFileSync(`${path}/${from}`) as Uint8Array;
      const fd = volume.openSync(`${path}/${to}`, "w");
      try {
        for (let offset = 0; offset < bytes.length; offset += 4096) {
          volume.writeSync(fd, bytes.subarray(offset, offset + 4096));
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      } finally {
        volume.closeSync(fd);
      }
      volume.unlinkSync(`${path}/${from}`);
    },
  }));
}

// Leaves the change time out of the version token.
function ctimeBlind(): FsDriver {
  const blind = <T extends FsDriverStat | undefined>(stat: T): T => stat && { ...stat, token: stat.token.split(":").slice(0, -1).join(":") };
  const driver = withDirectories(createNodeDriver(), (dir) => ({ ...bindDirectory(dir), lstat: async (name) => blind(await dir.lstat(name)) }));
  return {
    ...driver,
    stat: async (path) => blind(await driver.stat(path)),
    lstat: async (path) => blind(await driver.lstat(path)),
    async open(path) {
      const handle = await driver.open(path);
      return { ...handle, stat: async () => blind(await handle.stat()) };
    },
  };
}

// Creates staged files readable by everyone.
function openStaging(volume: Volume): FsDriver {
  return withDirectories(createMemoryDriver(volume), (dir) => ({ ...bindDirectory(dir), createFile: (name) => dir.createFile(name, 0o644) }));
}

// A token that sees only the size, as on a backend whose timestamps are coarse and whose inodes are reused.
function sizeOnlyToken(volume: Volume): FsDriver {
  const coarse = <T extends FsDriverStat | undefined>(stat: T): T => stat && { ...stat, token: `size ${stat.size}` };
  const driver = withDirectories(createMemoryDriver(volume), (dir) => ({ ...bindDirectory(dir), lstat: async (name) => coarse(await dir.lstat(name)) }));
  return {
    ...driver,
    stat: async (path) => coarse(await driver.stat(path)),
    lstat: async (path) => coarse(await driver.lstat(path)),
    async open(path) {
      const handle = await driver.open(path);
      return { ...handle, stat: async () => coarse(await handle.stat()) };
    },
  };
}

describe("the conformance suite catches faulty adapters", () => {
  const unmodified: CreateSubject = () => createMemorySubject((volume, cwd) => createFileSystem(bind(createMemoryDriver(volume)), { cwd }));

  // One test per group, so no single test holds the whole suite's time.
  test.each(allGroups.map((group) => group.name))("a control run over the unmodified memory driver fails nothing in %s", async (group) => {
    expect((await failingCases(unmodified, [group])).failed).toEqual([]);
  });

  test("the control run covers the whole suite", async () => {
    let total = 0;
    await runConformance({ test: () => void total++ }, unmodified);
    expect(total).toBeGreaterThan(100);
  });

  test("a write that is not atomic", async () => {
    const { failed } = await failingCases(() => createMemorySubject((volume, cwd) => createFileSystem(inPlaceWriter(volume), { cwd })), ["write", "read"]);
    expect(failed).toContain("write: a concurrent reader during 200 rewrites only sees whole old or new bytes");
    expect(failed).toContain("read: a stream opened before a replacement keeps reading the old bytes");
  });

  test("a version token that ignores the change time", async () => {
    const { failed } = await failingCases(() => createNodeSubject((cwd) => createFileSystem(ctimeBlind(), { cwd })), ["stat"]);
    expect(failed).toEqual(["stat: an outside in-place rewrite of the same size that restores the mtime changes the version"]);
  });

  test("staged files that other users can read", async () => {
    const { failed } = await failingCases(() => createMemorySubject((volume, cwd) => createFileSystem(openStaging(volume), { cwd })), ["write"]);
    expect(failed).toEqual(["write: files staged during publication are owner-only"]);
  });
});

describe("the publication counter in the version token", () => {
  // The driver's token sees only the size, so every guard below holds only because core counts publications.
  test("keeps versions distinct where the backend's metadata cannot: the guard groups pass over a size-only token", async () => {
    const { failed } = await failingCases(
      () => createMemorySubject((volume, cwd) => createFileSystem(sizeOnlyToken(volume), { cwd })),
      ["version-guard", "write"],
    );
    // Telling two files apart is the token's job (an inode, on real backends), not the counter's.
    expect(failed).toEqual(["version-guard: a version from another file does not guard this one"]);
  });

  test("is shared by the providers of one storage: a same-size write through one makes the other's version stale", async () => {
    const volume = createMemoryVolume();
    volume.mkdirSync("/ws");
    volume.writeFileSync("/ws/a.txt", "one");
    const [left, right] = [0, 1].map(() => createFileSystem(sizeOnlyToken(volume), { cwd: "/ws" }));
    const target = await left!.resolve("a.txt");
    const { version } = await left!.readBytes(target, { maxBytes: 100 });
    await right!.write(await right!.resolve("a.txt"), encodeUtf8("two"));
    await expect(left!.write(target, encodeUtf8("six"), { guard: { kind: "replaceIfVersion", version: version as FsVersion } })).rejects.toMatchObject({
      code: "FS_STALE_VERSION",
    });
    expect(String(volume.readFileSync("/ws/a.txt"))).toBe("two");
  });
});

describe("createIfAbsent publishes without replacing", () => {
  // A writer that takes no toolfs lock (an editor) creates the file after the last check, right before the link.
  const competitorAtLink = (volume: Volume, driver: FsDriver): FsDriver =>
    withDirectories(driver, (dir, path) => ({
      ...bindDirectory(dir),
      async link(from, to) {
        volume.writeFileSync(`${path}/${to}`, "competitor");
        return dir.link(from, to);
      },
    }));

  test("a file created by another writer just before publication is kept", async () => {
    const volume = createMemoryVolume();
    volume.mkdirSync("/ws");
    const fs = createFileSystem(competitorAtLink(volume, createMemoryDriver(volume)), { cwd: "/ws" });
    await expect(fs.write(await fs.resolve("a.txt"), encodeUtf8("mine"), { guard: { kind: "createIfAbsent" } })).rejects.toMatchObject({
      code: "FS_NOT_OBSERVED",
    });
    expect(String(volume.readFileSync("/ws/a.txt"))).toBe("competitor");
    expect(volume.readdirSync("/ws")).toEqual(["a.txt"]);
  });

  test("a driver whose link replaces loses that file (the check above can fail)", async () => {
    const volume = createMemoryVolume();
    volume.mkdirSync("/ws");
    const replacing = withDirectories(createMemoryDriver(volume), (dir) => ({
      ...bindDirectory(dir),
      link: async (from, to) => (await dir.rename(from, to), true),
    }));
    const fs = createFileSystem(competitorAtLink(volume, replacing), { cwd: "/ws" });
    await fs.write(await fs.resolve("a.txt"), encodeUtf8("mine"), { guard: { kind: "createIfAbsent" } });
    expect(String(volume.readFileSync("/ws/a.txt"))).toBe("mine");
  });
});
