import { describe, expect, test } from "vitest";
import { FS_ERROR_CODES, FsError, isFsError, KeyedLock } from "./mod.ts";
import { baseName, compareUtf8, isWithin, joinPath, normalizeAbsolute, parentPath, relativeWithin, resolvePath } from "./paths.ts";

describe("paths", () => {
  test.for([
    ["/a/b/../c", "/a/c"],
    ["/a/./b//c/", "/a/b/c"],
    ["/../..", "/"],
    ["/", "/"],
  ] as const)("normalizeAbsolute(%j) = %j", ([input, output]) => {
    expect(normalizeAbsolute(input)).toBe(output);
  });

  test("resolvePath, joinPath, parentPath, baseName", () => {
    expect(resolvePath("/ws", "src/a.ts")).toBe("/ws/src/a.ts");
    expect(resolvePath("/ws", "/etc/x")).toBe("/etc/x");
    expect(resolvePath("/ws", "../x")).toBe("/x");
    expect(joinPath("/", "a")).toBe("/a");
    expect(joinPath("/a", "b")).toBe("/a/b");
    expect(parentPath("/a/b")).toBe("/a");
    expect(parentPath("/a")).toBe("/");
    expect(parentPath("/")).toBe("/");
    expect(baseName("/a/b.txt")).toBe("b.txt");
  });

  test("containment respects segment boundaries", () => {
    expect(isWithin("/ws", "/ws")).toBe(true);
    expect(isWithin("/ws", "/ws/a")).toBe(true);
    expect(isWithin("/ws", "/ws-evil/a")).toBe(false);
    expect(isWithin("/", "/anything")).toBe(true);
    expect(relativeWithin("/ws", "/ws/a/b")).toBe("a/b");
    expect(relativeWithin("/ws", "/ws")).toBe(".");
    expect(relativeWithin("/ws", "/other")).toBeUndefined();
  });

  test("compareUtf8 orders by UTF-8 bytes, not UTF-16 code units", () => {
    const names = ["😀", "ｚ", "a", "B", "é", "€", "\uE000", "aa", ""];
    const byBytes = [...names].sort((a, b) => {
      const x = new TextEncoder().encode(a);
      const y = new TextEncoder().encode(b);
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    });
    expect([...names].sort(compareUtf8)).toEqual(byBytes);
    expect(["😀", "ｚ"].sort()).toEqual(["😀", "ｚ"]);
    expect(["😀", "ｚ"].sort(compareUtf8)).toEqual(["ｚ", "😀"]);
  });
});

describe("FsError", () => {
  test("the code set is closed and each code builds an FsError", () => {
    expect(FS_ERROR_CODES).toHaveLength(15);
    for (const code of FS_ERROR_CODES) expect(isFsError(new FsError(code, "x"), code)).toBe(true);
  });

  test("isFsError recognises an FsError from another copy of the library", () => {
    const foreign = Object.assign(new Error("x"), { name: "FsError", code: "FS_NOT_FOUND", details: {} });
    expect(isFsError(foreign, "FS_NOT_FOUND")).toBe(true);
  });
});

describe("KeyedLock", () => {
  test("serializes work per key in call order and forgets drained keys", async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    const step = (name: string, ms: number) =>
      lock.run("k", async () => {
        order.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, ms));
        order.push(`end ${name}`);
      });
    const other = lock.run("other", async () => void order.push("other"));
    await Promise.all([step("a", 20), step("b", 1), other]);
    expect(order.filter((x) => x !== "other")).toEqual(["start a", "end a", "start b", "end b"]);
    expect(lock.size).toBe(0);
  });

  test("a failing task releases the key", async () => {
    const lock = new KeyedLock();
    await expect(lock.run("k", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(lock.run("k", async () => 42)).resolves.toBe(42);
    expect(lock.size).toBe(0);
  });
});
