// Node-specific behaviour beyond the shared suite: modes, special files, staging names.
import { execFileSync } from "node:child_process";
import { promises as fsp } from "node:fs";
import { describe, expect, test } from "vitest";
import { isFsError } from "../../core/mod.ts";
import { createNodeSubject } from "./subject.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("node adapter", () => {
  test("a new file gets the mode the umask gives, not the owner-only staging mode", async () => {
    const { provider, probe, dispose } = await createNodeSubject();
    try {
      await provider.write(await provider.resolve("new.txt"), utf8("x"));
      expect((await probe.info("new.txt"))?.mode).toBe(0o666 & ~process.umask());
    } finally {
      await dispose();
    }
  });

  test("reading a FIFO fails FS_NOT_REGULAR_FILE instead of waiting for a writer", async () => {
    const { provider, probe, dispose } = await createNodeSubject();
    try {
      execFileSync("mkfifo", [`${probe.root}/pipe`]);
      const target = await provider.resolve("pipe");
      expect((await provider.stat(target))?.type).toBe("other");
      const error = await provider.readBytes(target, { maxBytes: 10 }).catch((e: unknown) => e);
      expect(isFsError(error, "FS_NOT_REGULAR_FILE")).toBe(true);
      const write = await provider.write(target, utf8("x")).catch((e: unknown) => e);
      expect(isFsError(write, "FS_NOT_REGULAR_FILE")).toBe(true);
    } finally {
      await dispose();
    }
  });

  test("a target whose name is at the length limit still stages beside it", async () => {
    const { provider, probe, dispose } = await createNodeSubject();
    try {
      const name = `${"n".repeat(250)}.txt`;
      await provider.write(await provider.resolve(name), utf8("long"));
      expect(await probe.list(".")).toEqual([name]);
    } finally {
      await dispose();
    }
  });

  test("a publication that fails after staging removes the staged file", async () => {
    const { provider, probe, dispose } = await createNodeSubject();
    try {
      await probe.writeFile("d/a.txt", "old");
      // Once the bytes are staged, the destination becomes a non-empty directory: the rename must fail.
      const target = await provider.resolve("d/a.txt");
      let calls = 0;
      const error = await provider
        .write(target, utf8("new"), {
          fence: async () => {
            if (++calls !== 2) return;
            await fsp.rm(`${probe.root}/d/a.txt`);
            await fsp.mkdir(`${probe.root}/d/a.txt/child`, { recursive: true });
          },
        })
        .catch((e: unknown) => e);
      expect(isFsError(error)).toBe(true);
      expect(await probe.list("d")).toEqual(["a.txt"]);
      expect(await probe.list("d/a.txt")).toEqual(["child"]);
    } finally {
      await dispose();
    }
  });
});
