// Test support: an overlay committing to a Node provider in a process of its own, stalled while it stages one
// file of the commit so that the test can kill it there. Run as
// `node --import tsx test/overlay-commit-worker.ts <workspace> <file count> <index of the file to stall on>`.
import process from "node:process";
import { createOverlayProvider, type FileSystem, type FsWriteData } from "../core/mod.ts";
import { createNodeProvider } from "../adapters/node/mod.ts";

const [cwd, count, stall] = process.argv.slice(2);
const base = createNodeProvider({ cwd: cwd! });
let publications = 0;
// The base as the commit sees it: every write goes through, except the chosen one, which stages its first
// half, says so, and never finishes.
const stalling: FileSystem = new Proxy(base, {
  get(target, key) {
    const value = Reflect.get(target, key, target) as unknown;
    if (key !== "write") return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    return (to: Parameters<FileSystem["write"]>[0], data: FsWriteData, options: Parameters<FileSystem["write"]>[2]) => {
      if (publications++ !== Number(stall)) return target.write(to, data, options);
      const bytes = data as Uint8Array;
      async function* half(): AsyncGenerator<Uint8Array> {
        yield bytes.subarray(0, bytes.length >> 1);
        process.stdout.write("staging\n");
        await new Promise(() => {});
      }
      return target.write(to, half(), options);
    };
  },
});
const overlay = createOverlayProvider({ base: stalling });
for (let i = 0; i < Number(count); i++) {
  await overlay.write(await overlay.resolve(`d/f${i}.bin`), new Uint8Array(1 << 20).fill(0x6e));
}
process.stdout.write("written\n");
await overlay.commit();
process.stdout.write("committed\n");
