// A process killed in the middle of an overlay's commit: every base file holds its old bytes or its new ones,
// whole, and what the dead writer staged goes once the next writer writes in that folder.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, expect, test } from "vitest";
import { createNodeProvider } from "../adapters/node/mod.ts";
import { root as repo } from "./acp-driver.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-overlay-crash-")));
  mkdirSync(join(dir, "d"));
  for (let i = 0; i < 4; i++) writeFileSync(join(dir, "d", `f${i}.bin`), `old ${i}\n`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a commit killed while staging its third file leaves two files new, the rest old, none torn", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", join(repo, "test/overlay-commit-worker.ts"), dir, "4", "2"], {
    cwd: repo,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    lines.on("line", (line) => line === "staging" && resolve());
    void exited.then(() => reject(new Error("the worker exited before it stalled")));
  });
  child.kill("SIGKILL");
  await exited;
  const newBytes = new Uint8Array(1 << 20).fill(0x6e);
  const contents = [0, 1, 2, 3].map((i) => readFileSync(join(dir, "d", `f${i}.bin`)));
  expect(contents.map((c, i) => (Buffer.compare(c, newBytes) === 0 ? "new" : c.toString() === `old ${i}\n` ? "old" : `torn (${c.length} bytes)`))).toEqual([
    "new",
    "new",
    "old",
    "old",
  ]);
  expect(readdirSync(join(dir, "d")).filter((name) => name.endsWith(".toolfs-tmp"))).toHaveLength(1);
  const next = createNodeProvider({ cwd: dir });
  await next.write(await next.resolve("d/after.txt"), new TextEncoder().encode("x"));
  expect(readdirSync(join(dir, "d")).sort()).toEqual(["after.txt", "f0.bin", "f1.bin", "f2.bin", "f3.bin"]);
});
