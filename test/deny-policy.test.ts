// The runtime-neutral halves of the deny list's fixes (issue 18): which directories the confined shell pins
// so a rename cannot carry a denied path away, the argv that pins them, and the plain refusal when the view
// needs more arguments than bubblewrap accepts. Real bubblewrap runs are test/deny-holds.test.ts.
import { describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { bubblewrapArgs, confinedRunner, DenyList, type ProcessRunner, resolveSandbox, sandboxPolicy, shellView } from "../core/mod.ts";

describe("pinned directories", () => {
  const files = {
    "/top/ws/config/deep/secrets.json": "s",
    "/top/ws/.git/config": "c",
    "/top/ws/.git/hooks/keep": "k",
    "/top/ws/pkg/.env": "e",
    "/top/ws/a.txt": "a",
  };
  const view = async (mode: "read-only" | "workspace-write" | "full-access", deny: string[]) => {
    const fs = createMemoryProvider({ files, cwd: "/top/ws" });
    const rules = await resolveSandbox(fs, sandboxPolicy({ mode, workspace: "/top/ws", deny }));
    return shellView(fs, rules, mode);
  };

  test("the writable directories above a path-denied mask are pinned; a name-denied mask needs none", async () => {
    expect((await view("workspace-write", ["config/deep/secrets.json", ".env"])).pinned).toEqual(["/top/ws/config/deep", "/top/ws/config"]);
    expect((await view("workspace-write", ["config/*/secrets.json"])).pinned).toEqual(["/top/ws/config/deep", "/top/ws/config"]);
    expect((await view("workspace-write", [".env", "*.json"])).pinned).toBeUndefined();
  });

  test("full-access pins every directory up to /; read-only and protected directories need no pin", async () => {
    expect((await view("full-access", ["config/deep/secrets.json"])).pinned).toEqual(["/top/ws/config/deep", "/top/ws/config", "/top/ws", "/top"]);
    expect((await view("read-only", ["config/deep/secrets.json"])).pinned).toBeUndefined();
    expect((await view("workspace-write", [".git/hooks/keep"])).pinned).toBeUndefined();
  });

  test("pins are bound right after the roots, before protected paths and masks", () => {
    const args = bubblewrapArgs(
      {
        writeAnywhere: false,
        writable: ["/ws"],
        readOnly: ["/ws/a/.git"],
        pinned: ["/ws/a/b", "/ws/a"],
        masks: [{ path: "/ws/a/b/s", directory: false }],
        network: false,
      },
      { command: "true" },
    );
    expect(args.slice(0, 24).join(" ")).toBe(
      "--ro-bind / / --dev /dev --proc /proc --remount-ro /proc --bind /ws /ws --bind /ws/a /ws/a --bind /ws/a/b /ws/a/b --ro-bind-try /ws/a/.git /ws/a/.git --ro-bind /dev/null /ws/a/b/s",
    );
  });
});

test("a view that needs more arguments than bubblewrap accepts is refused with a coded error, and nothing runs", async () => {
  let ran = 0;
  const base: ProcessRunner = { run: () => (ran++, Promise.reject(new Error("must not run"))) };
  const masks = Array.from({ length: 3000 }, (_, i) => ({ path: `/ws/f${i}`, directory: false }));
  const runner = confinedRunner(base, "bwrap", () => Promise.resolve({ writeAnywhere: false, writable: ["/ws"], readOnly: [], masks, network: false }));
  const error = await runner.run({ command: "true" }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ code: "PROCESS_INVALID_ARGUMENT", details: { limit: 9000 } });
  expect(String((error as Error).message)).toContain("narrow the deny list");
  expect(ran).toBe(0);
});

describe("DenyList.canonical", () => {
  const links: [string, string][] = [
    ["/home/u", "/var/home/u"],
    ["/ws", "/data/w[1]"],
  ];
  const resolve = (path: string) => {
    const link = links.find(([from]) => path === from || path.startsWith(`${from}/`));
    return Promise.resolve(link ? link[1] + path.slice(link[0].length) : path);
  };

  test("each pattern also holds at its canonical literal prefix, escaped; names and `**/` patterns are left alone", async () => {
    const list = DenyList.compile(["~/.ssh", "secrets/*.json", ".env", "**/x", "/data/**/k"], { workspace: "/ws", home: "/home/u" });
    const canonical = await list.canonical(resolve);
    expect(canonical.patterns).toEqual(list.patterns);
    expect(canonical.match("/var/home/u/.ssh/id")).toBe("~/.ssh");
    expect(canonical.match("/home/u/.ssh/id")).toBe("~/.ssh");
    expect(list.match("/var/home/u/.ssh/id")).toBeUndefined();
    expect(canonical.match("/data/w[1]/secrets/a.json")).toBe("secrets/*.json");
    expect(canonical.match("/data/w1/secrets/a.json")).toBeUndefined();
    expect(canonical.literals).toEqual(["/home/u/.ssh", "/var/home/u/.ssh"]);
  });

  test("a list with nothing to resolve elsewhere is returned as is", async () => {
    const list = DenyList.compile([".env", "/data/k"], { workspace: "/ws" });
    expect(await list.canonical(resolve)).toBe(list);
  });
});

test("patterns and paths are compared lower-cased and NFC: .env denies .ENV, and either normalization denies the other", () => {
  const nfc = "caf\u00e9";
  const nfd = nfc.normalize("NFD");
  const list = DenyList.compile([".env", nfd, "Config/*.JSON", "~/Keys"], { workspace: "/ws", home: "/home/u" });
  expect(list.match("/ws/.ENV")).toBe(".env");
  expect(list.match(`/ws/${nfc}/x`)).toBe(nfd);
  expect(list.match("/ws/config/a.json")).toBe("Config/*.JSON");
  expect(list.match("/home/u/KEYS/id")).toBe("~/Keys");
  expect(list.deniesName(".Env")).toBe(true);
  expect(list.match("/ws/env")).toBeUndefined();
  // The literal keeps the host's spelling: it is looked up on disk.
  expect(list.literals).toEqual(["/home/u/Keys"]);
});
