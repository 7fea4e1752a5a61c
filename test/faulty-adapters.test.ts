// The suite must catch broken backends, not just pass good ones: each faulty driver below breaks one
// promise of the seam, and the cases that guard that promise must fail.
import { Volume } from "memfs";
import { describe, expect, test } from "vitest";
import { type CreateSubject, runConformance } from "../conformance/mod.ts";
import { createFileSystem, type FsDriver } from "../core/mod.ts";
import { createMemoryDriver } from "../adapters/memory/mod.ts";
import { createMemorySubject } from "../adapters/memory/subject.ts";
import { createNodeDriver } from "../adapters/node/mod.ts";
import { createNodeSubject } from "../adapters/node/subject.ts";

async function failingCases(createSubject: CreateSubject, groups?: string[]): Promise<{ total: number; failed: string[] }> {
  const cases: { name: string; fn: () => Promise<void> }[] = [];
  await runConformance({ test: (name, fn) => cases.push({ name, fn }) }, createSubject, groups ? { groups } : undefined);
  const failed: string[] = [];
  for (const { name, fn } of cases) await fn().catch(() => failed.push(name));
  return { total: cases.length, failed };
}

// Publishes by truncating and rewriting the file in place, yielding between chunks: readers can see a
// half-written file.
function inPlaceWriter(volume: Volume): FsDriver {
  const driver = createMemoryDriver(volume);
  return {
    ...bind(driver),
    async publish(path, chunks, options) {
      const parts: Uint8Array[] = [];
      for await (const chunk of chunks) parts.push(chunk);
      await options.beforeCommit();
      if (options.exclusive && volume.existsSync(path)) return "exists";
      const fd = volume.openSync(path, "w");
      try {
        for (const bytes of parts) {
          for (let offset = 0; offset < bytes.length; offset += 4096) {
            volume.writeSync(fd, bytes.subarray(offset, offset + 4096));
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
        }
      } finally {
        volume.closeSync(fd);
      }
      return "published";
    },
  };
}

// Leaves the change time out of the version token.
function ctimeBlind(): FsDriver {
  const driver = createNodeDriver();
  const blind = <T extends { token: string } | undefined>(stat: T): T =>
    stat && { ...stat, token: stat.token.split(":").slice(0, -1).join(":") };
  return {
    ...bind(driver),
    stat: async (path) => blind(await driver.stat(path)),
    lstat: async (path) => blind(await driver.lstat(path)),
    async open(path) {
      const handle = await driver.open(path);
      return { ...handle, stat: async () => blind(await handle.stat()) };
    },
  };
}

// Publishes createIfAbsent by plain replacement, so a racing creator is overwritten.
function replacingCreate(volume: Volume): FsDriver {
  const driver = createMemoryDriver(volume);
  return { ...bind(driver), publish: (path, bytes, options) => driver.publish(path, bytes, { ...options, exclusive: false }) };
}

function bind(driver: FsDriver): FsDriver {
  return {
    capabilities: driver.capabilities,
    realpath: (p) => driver.realpath(p),
    stat: (p) => driver.stat(p),
    lstat: (p) => driver.lstat(p),
    readlink: (p) => driver.readlink(p),
    readdir: (p) => driver.readdir(p),
    open: (p) => driver.open(p),
    mkdirp: (p) => driver.mkdirp(p),
    publish: (p, b, o) => driver.publish(p, b, o),
  };
}

describe("the conformance suite catches faulty adapters", () => {
  test("a control run over the unmodified memory driver fails nothing", async () => {
    const { total, failed } = await failingCases(() => createMemorySubject((volume, cwd) => createFileSystem(bind(createMemoryDriver(volume)), { cwd })));
    expect(total).toBeGreaterThan(100);
    expect(failed).toEqual([]);
  });

  test("a write that is not atomic", async () => {
    const { failed } = await failingCases(() => createMemorySubject((volume, cwd) => createFileSystem(inPlaceWriter(volume), { cwd })));
    expect(failed).toContain("write: a concurrent reader during 200 rewrites only sees whole old or new bytes");
    expect(failed).toContain("read: a stream opened before a replacement keeps reading the old bytes");
  });

  test("a version token that ignores the change time", async () => {
    const { failed } = await failingCases(() => createNodeSubject((cwd) => createFileSystem(ctimeBlind(), { cwd })), ["stat"]);
    expect(failed).toEqual(["stat: an outside in-place rewrite of the same size that restores the mtime changes the version"]);
  });

  test("a guarded create that replaces instead of refusing", async () => {
    const { failed } = await failingCases(() => createMemorySubject((volume, cwd) => createFileSystem(replacingCreate(volume), { cwd })), [
      "version-guard",
    ]);
    expect(failed).toEqual(["version-guard: createIfAbsent keeps a competitor file created just before publication"]);
  });
});
