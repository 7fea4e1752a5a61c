import { describe, expect, test } from "vitest";
import { resolvePath } from "../fs/paths.ts";
import { WorkspaceRoots } from "./roots.ts";

describe("WorkspaceRoots", () => {
  test("names: the base name; shared names numbered in root order past taken ones; never the first root's own", () => {
    const roots = new WorkspaceRoots(["/w/app", "/a/lib", "/b/lib", "/c/lib-2", "/d/app", "/", "/e/~", "/f/lib"]);
    expect(roots.named.map((root) => [root.name, root.path])).toEqual([
      ["lib", "/a/lib"],
      ["lib-3", "/b/lib"],
      ["lib-2", "/c/lib-2"],
      ["app-2", "/d/app"],
      ["root", "/"],
      ["~-2", "/e/~"],
      ["lib-4", "/f/lib"],
    ]);
    expect(new WorkspaceRoots(["/w/app"]).several).toBe(false);
  });

  test("one root: relative inside, in full outside, and path arguments untouched", () => {
    const roots = new WorkspaceRoots(["/ws"]);
    expect(["/ws", "/ws/lib/a.ts", "/other/a.ts", "/"].map((p) => roots.show(p))).toEqual([".", "lib/a.ts", "/other/a.ts", "/"]);
    expect(roots.resolve("lib/a.ts")).toBe("lib/a.ts");
    expect(roots.beneath("/ws").displayLines(["a", "b/c"])).toBe("a\nb/c");
    expect(roots.beneath("/ws/src").display("a.ts")).toBe("src/a.ts");
    expect(roots.beneath("/elsewhere").display("a.ts")).toBe("/elsewhere/a.ts");
    expect(roots.beneath("/").display("a.ts")).toBe("/a.ts");
  });

  test("several roots: shown relative to the root they are in, and read back into it", () => {
    const roots = new WorkspaceRoots(["/p/app", "/p/lib", "/q/lib", "/p/app/packages/core"]);
    expect(roots.named.map((root) => root.name)).toEqual(["lib", "lib-2", "core"]);
    const shown = {
      "/p/app/src/a.ts": "src/a.ts",
      "/p/app/lib/a.ts": "./lib/a.ts",
      "/p/app/lib": "./lib",
      "/p/app/core": "./core",
      "/p/app/libs/a.ts": "libs/a.ts",
      "/p/lib/src/a.ts": "lib/src/a.ts",
      "/p/lib": "lib",
      "/q/lib/src/a.ts": "lib-2/src/a.ts",
      // Inside the first root and a later one: the first root holds it.
      "/p/app/packages/core/x.ts": "packages/core/x.ts",
      "/p/other.ts": "/p/other.ts",
    };
    for (const [path, expected] of Object.entries(shown)) {
      expect(roots.show(path), path).toBe(expected);
      expect(resolvePath(roots.first, roots.resolve(expected)), expected).toBe(path);
    }
    expect(roots.resolve("lib")).toBe("/p/lib");
    expect(roots.resolve("lib/")).toBe("/p/lib");
    expect(roots.resolve("core/x.ts")).toBe("/p/app/packages/core/x.ts");
    expect(roots.resolve("./lib/a.ts")).toBe("./lib/a.ts");
    expect(roots.resolve("/lib/a.ts")).toBe("/lib/a.ts");
    expect(roots.resolve("lib-3/a.ts")).toBe("lib-3/a.ts");
    expect(roots.beneath("/p/app").displayLines(["lib/a.ts", "src/a.ts", "core"])).toBe("./lib/a.ts\nsrc/a.ts\n./core");
    expect(roots.beneath("/p/app/lib").display("a.ts")).toBe("./lib/a.ts");
    expect(roots.beneath("/q/lib").displayLines(["a", "b"])).toBe("lib-2/a\nlib-2/b");
    expect(new WorkspaceRoots(["/w", "/"]).resolve("root/etc/hosts")).toBe("/etc/hosts");
  });

  test("the examples of note 0008", () => {
    const roots = new WorkspaceRoots(["/p/app", "/p/lib", "/q/lib", "/p/app2/app"]);
    const shown = ["/p/app/src/a.ts", "/p/app/lib/x", "/p/lib/src/a.ts", "/q/lib/src/a.ts", "/p/app2/app/b", "/etc/hosts"].map((p) => roots.show(p));
    expect(shown).toEqual(["src/a.ts", "./lib/x", "lib/src/a.ts", "lib-2/src/a.ts", "app-2/b", "/etc/hosts"]);
  });

  test("every shown path leads back to itself (random roots and paths)", () => {
    // A small deterministic generator: the same cases on every run.
    let seed = 12345;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const segments = ["app", "lib", "lib-2", "src", "a.ts", "root", "x", "app-2", ".hidden", "lib-3"];
    const path = (depth: number) => `/${Array.from({ length: depth }, () => segments[next(segments.length)]).join("/")}`;
    for (let round = 0; round < 300; round++) {
      const count = 1 + next(4);
      const roots = [...new Set(Array.from({ length: count }, () => path(1 + next(3))))] as [string, ...string[]];
      const workspace = new WorkspaceRoots(roots);
      for (let i = 0; i < 30; i++) {
        const p = path(next(6));
        const shown = workspace.show(p);
        expect(resolvePath(workspace.first, workspace.resolve(shown)), `${JSON.stringify(roots)} ${p} shown as ${shown}`).toBe(p);
      }
    }
  });
});
