// readBytes "never buffers more" than its cap, even for a file that grows after its size was read: the file is
// grown at the worst moment, just after the opened handle's stat, and every buffer handed to the driver's
// reads is measured. The grown file must fail FS_TOO_LARGE having buffered at most cap + 1 bytes (the spare
// byte that reveals the growth), on the pinned Node driver and the memory driver alike.
import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { createMemoryDriver, createMemoryVolume } from "../adapters/memory/mod.ts";
import { createNodeDriver } from "../adapters/node/mod.ts";
import { createFileSystem, type FsDirectory, type FsDriver, type FsDriverHandle, isFsError } from "../core/mod.ts";
import { bind, bindDirectory } from "./drivers.ts";

const CAP = 1000;
const GROWN = 64 * 1024;

/** What the reads asked of the driver: the furthest byte any buffer reached, and the bytes read. */
interface Meter {
  buffered: number;
  read: number;
}

// The handle grows the file right after its stat, and meters every read's buffer.
function growing(handle: FsDriverHandle, grow: () => Promise<void>, meter: Meter): FsDriverHandle {
  return {
    stat: async () => {
      const stat = await handle.stat();
      await grow();
      return stat;
    },
    read: async (buffer, position) => {
      meter.buffered = Math.max(meter.buffered, position + buffer.length);
      const n = await handle.read(buffer, position);
      meter.read += n;
      return n;
    },
    close: () => handle.close(),
  };
}

function through(dir: FsDirectory, wrap: (h: FsDriverHandle) => FsDriverHandle): FsDirectory {
  return {
    ...bindDirectory(dir),
    openDirectory: async (n) => {
      const child = await dir.openDirectory(n);
      return child && through(child, wrap);
    },
    ...(dir.openFile ? { openFile: async (n: string) => ((h) => h && wrap(h))(await dir.openFile!(n)) } : {}),
  };
}

function instrumented(driver: FsDriver, grow: () => Promise<void>, meter: Meter): FsDriver {
  const wrap = (h: FsDriverHandle) => growing(h, grow, meter);
  return {
    ...bind(driver),
    open: async (p) => wrap(await driver.open(p)),
    openDirectory: async (p) => through(await driver.openDirectory(p), wrap),
  };
}

let root: string;
beforeEach(async () => {
  root = await fsp.realpath(await fsp.mkdtemp(join(tmpdir(), "toolfs-grow-")));
});
afterEach(async () => {
  await fsp.rm(root, { recursive: true, force: true });
});

const subjects = [
  [
    "node",
    () => ({
      driver: createNodeDriver(),
      cwd: root,
      write: (name: string, bytes: Uint8Array) => fsp.writeFile(join(root, name), bytes),
      append: (name: string, bytes: Uint8Array) => fsp.appendFile(join(root, name), bytes),
    }),
  ],
  [
    "memory",
    () => {
      const volume = createMemoryVolume();
      volume.mkdirSync("/ws", { recursive: true });
      return {
        driver: createMemoryDriver(volume),
        cwd: "/ws",
        write: async (name: string, bytes: Uint8Array) => volume.writeFileSync(`/ws/${name}`, bytes),
        append: async (name: string, bytes: Uint8Array) => volume.appendFileSync(`/ws/${name}`, bytes),
      };
    },
  ],
] as const;

test.for(subjects)("a file that grows past the cap after its stat fails FS_TOO_LARGE, buffering at most cap + 1 bytes: %s", async ([, make]) => {
  const { driver, cwd, write, append } = make();
  for (const start of [0, 10, 600, CAP]) {
    await write("f.bin", new Uint8Array(start).fill(0x61));
    const meter: Meter = { buffered: 0, read: 0 };
    let grown = false;
    const grow = async () => {
      if (grown) return;
      grown = true;
      await append("f.bin", new Uint8Array(GROWN).fill(0x62));
    };
    const fs = createFileSystem(instrumented(driver, grow, meter), { cwd });
    const error = await fs.readBytes(await fs.resolve("f.bin"), { maxBytes: CAP }).catch((e: unknown) => e);
    expect(grown, `start ${start}`).toBe(true);
    expect(isFsError(error, "FS_TOO_LARGE"), `start ${start}: ${String(error)}`).toBe(true);
    expect(meter.buffered, `start ${start}`).toBeLessThanOrEqual(CAP + 1);
    expect(meter.read, `start ${start}`).toBeLessThanOrEqual(CAP + 1);
  }
});

test.for(subjects)("a file that grows but stays within the cap is read whole: %s", async ([, make]) => {
  const { driver, cwd, write, append } = make();
  await write("f.bin", new Uint8Array(10).fill(0x61));
  const meter: Meter = { buffered: 0, read: 0 };
  let grown = false;
  const grow = async () => {
    if (grown) return;
    grown = true;
    await append("f.bin", new Uint8Array(CAP - 10).fill(0x62));
  };
  const fs = createFileSystem(instrumented(driver, grow, meter), { cwd });
  const { bytes } = await fs.readBytes(await fs.resolve("f.bin"), { maxBytes: CAP });
  expect(bytes.length).toBe(CAP);
  expect(meter.buffered).toBeLessThanOrEqual(CAP + 1);
});
