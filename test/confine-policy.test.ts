// The runtime-neutral halves of the confined shell: the deny list's matching, the bubblewrap argv for a view,
// the view derived from the sandbox rules (over a memory volume), and detection against a scripted runner.
// Real bubblewrap runs are test/confine-cases.ts.
import { describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import {
  bubblewrapArgs,
  type ConfinementView,
  DenyList,
  detectBubblewrap,
  guardSearch,
  type ProcessRunner,
  ProcessError,
  type ProcessSpec,
  resolveSandbox,
  sandboxPolicy,
  fromWholeResults,
  type SearchBackend,
  type WholeResults,
  searchBubblewrapArgs,
  type SearchScope,
  shellView,
} from "../core/mod.ts";

describe("DenyList", () => {
  const list = DenyList.compile([".env", "*.pem", "~/.ssh", "secrets/**", "/etc/shadow", "**/node_modules/.cache"], { workspace: "/ws", home: "/home/u" });

  test("a name matches at any depth, and everything under a matching directory", () => {
    expect(list.match("/ws/.env")).toBe(".env");
    expect(list.match("/elsewhere/deep/.env")).toBe(".env");
    expect(list.match("/ws/.env/inside")).toBe(".env");
    expect(list.match("/ws/certs/a.pem")).toBe("*.pem");
    expect(list.match("/ws/.envrc")).toBeUndefined();
    expect(list.match("/ws/a.pem.txt")).toBeUndefined();
  });

  test("~ is the home given; relative patterns with / start at the workspace; absolute ones are absolute", () => {
    expect(list.match("/home/u/.ssh")).toBe("~/.ssh");
    expect(list.match("/home/u/.ssh/id_ed25519")).toBe("~/.ssh");
    expect(list.match("/home/v/.ssh/id_ed25519")).toBeUndefined();
    expect(list.match("/ws/secrets/a/b")).toBe("secrets/**");
    expect(list.match("/other/secrets/a")).toBeUndefined();
    expect(list.match("/etc/shadow")).toBe("/etc/shadow");
    expect(list.match("/etc/shadow-")).toBeUndefined();
    expect(list.match("/a/b/node_modules/.cache/x")).toBe("**/node_modules/.cache");
    expect(list.match("/ws/x/../.env")).toBe(".env");
  });

  test("literals are the patterns without wildcards; the rest need a walk", () => {
    expect(list.literals).toEqual(["/home/u/.ssh", "/etc/shadow"]);
    expect(list.needsWalk).toBe(true);
    expect(DenyList.compile(["/a/b"], { workspace: "/ws" }).needsWalk).toBe(false);
  });

  test("the matcher for many paths agrees with match", () => {
    const match = list.matcher();
    for (const path of ["/ws/.env", "/ws/a/b/c.pem", "/ws/a/b/c.txt", "/home/u/.ssh/k", "/ws/secrets/x", "/ws/src/x.ts"]) {
      expect(match(path)).toBe(list.match(path));
    }
  });

  test("bad patterns are refused with the pattern named", () => {
    expect(() => DenyList.compile(["a{b"], { workspace: "/ws" })).toThrow(/"a\{b" is not a valid glob/);
    expect(() => DenyList.compile(["~/.ssh"], { workspace: "/ws" })).toThrow(/no home directory/);
    expect(() => DenyList.compile([" "], { workspace: "/ws" })).toThrow(RangeError);
  });
});

const base: ConfinementView = { writeAnywhere: false, writable: [], readOnly: [], masks: [], network: false };
const command = { command: "bash", args: ["-c", "ls"], cwd: "/ws" };
const TAIL = [
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-net",
  "--die-with-parent",
  "--cap-drop",
  "ALL",
  "--chdir",
  "/ws",
  "--",
  "bash",
  "-c",
  "ls",
];

describe("bubblewrapArgs", () => {
  test("read-only: the whole filesystem read-only, fresh /dev and /proc, no network, no capabilities", () => {
    expect(bubblewrapArgs(base, command)).toEqual(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc", ...TAIL]);
  });

  test("workspace-write: roots bound read-write outermost first, protected paths read-only again, then the masks", () => {
    const view = {
      ...base,
      writable: ["/ws/inner", "/ws", "/tmp"],
      readOnly: ["/ws/.git"],
      masks: [
        { path: "/ws/.env", directory: false },
        { path: "/home/u/.ssh", directory: true },
      ],
      network: true,
    };
    expect(bubblewrapArgs(view, command)).toEqual([
      ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc"],
      ...["--bind", "/tmp", "/tmp", "--bind", "/ws", "/ws", "--bind", "/ws/inner", "/ws/inner"],
      ...["--ro-bind-try", "/ws/.git", "/ws/.git"],
      ...["--ro-bind", "/dev/null", "/ws/.env", "--perms", "0000", "--tmpfs", "/home/u/.ssh", "--remount-ro", "/home/u/.ssh"],
      ...TAIL.filter((arg) => arg !== "--unshare-net"),
    ]);
  });

  test("the workspace read scope: system directories, a private /tmp, then the readable and writable roots", () => {
    const view = { ...base, writable: ["/ws"], readable: ["/ws", "/docs"] };
    const system = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"].flatMap((d) => ["--ro-bind-try", d, d]);
    expect(bubblewrapArgs(view, command)).toEqual([
      ...system,
      ...["--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc", "--tmpfs", "/tmp"],
      ...["--ro-bind", "/docs", "/docs", "--bind", "/ws", "/ws", "--remount-ro", "/"],
      ...TAIL,
    ]);
  });

  test("full-access with a deny list: everything writable, only the masks", () => {
    const view = { ...base, writeAnywhere: true, writable: ["/ws"], masks: [{ path: "/ws/.env", directory: false }] };
    expect(bubblewrapArgs(view, command)).toEqual([
      "--bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--remount-ro",
      "/proc",
      "--ro-bind-try",
      "/sys",
      "/sys",
      "--ro-bind",
      "/dev/null",
      "/ws/.env",
      ...TAIL,
    ]);
  });
});

describe("shellView", () => {
  const files = {
    ".git/config": "[core]\n",
    "src/a.ts": "a",
    "src/.env": "e",
    "deep/a/b/c/key.pem": "k",
    "secrets/x": "s",
    "secrets/y.pem": "s",
    "ok.txt": "x",
  };

  async function view(options: Parameters<typeof sandboxPolicy>[0], scanLimit?: number) {
    const fs = createMemoryProvider({ cwd: "/ws", files });
    const rules = await resolveSandbox(fs, sandboxPolicy(options));
    return shellView(fs, rules, options.mode, scanLimit === undefined ? undefined : { scanLimit });
  }

  test("the deny list is expanded by walking the workspace; a hidden directory hides what is inside it", async () => {
    const result = await view({ mode: "workspace-write", workspace: "/ws", deny: [".env", "*.pem", "secrets"] });
    expect(result.masks).toEqual([
      { path: "/ws/secrets", directory: true },
      { path: "/ws/src/.env", directory: false },
      { path: "/ws/deep/a/b/c/key.pem", directory: false },
    ]);
    expect(result.writable).toEqual(["/ws"]);
    expect(result.readOnly).toEqual(["/ws/.git"]);
  });

  test("read-only binds nothing writable and re-protects nothing; full-access writes anywhere", async () => {
    expect(await view({ mode: "read-only", workspace: "/ws" })).toMatchObject({ writeAnywhere: false, writable: [], readOnly: [] });
    expect(await view({ mode: "full-access", workspace: "/ws" })).toMatchObject({ writeAnywhere: true, writable: [], readOnly: [] });
  });

  test("a walk past the scan limit refuses the command instead of running it with the list unapplied", async () => {
    await expect(view({ mode: "workspace-write", workspace: "/ws", deny: ["*.pem"] }, 5)).rejects.toMatchObject({ code: "FS_SANDBOX_DENIED" });
    await expect(view({ mode: "workspace-write", workspace: "/ws", deny: ["/ws/ok.txt"] }, 5)).resolves.toMatchObject({
      masks: [{ path: "/ws/ok.txt", directory: false }],
    });
  });
});

describe("detectBubblewrap", () => {
  function runner(outcome: (spec: ProcessSpec) => { exitCode: number | null; stderr?: string } | Error): ProcessRunner & { specs: ProcessSpec[] } {
    const specs: ProcessSpec[] = [];
    return {
      specs,
      async run(spec) {
        specs.push(spec);
        const result = outcome(spec);
        if (result instanceof Error) throw result;
        if (result.stderr) spec.stderr?.write(new TextEncoder().encode(result.stderr), "stderr");
        return { exitCode: result.exitCode, signal: null, forced: false };
      },
    };
  }

  test("a test run that succeeds means available", async () => {
    const ok = runner(() => ({ exitCode: 0 }));
    expect(await detectBubblewrap(ok, { program: "/opt/bwrap" })).toEqual({ kind: "bubblewrap", available: true, program: "/opt/bwrap" });
    expect([ok.specs[0]!.command, ok.specs[0]!.args![4], ok.specs[0]!.args![5]]).toEqual(["bash", "/opt/bwrap", "--seccomp"]);
    expect(ok.specs[0]!.args).toContain("--unshare-net");
  });

  test("a missing program and a failed namespace setup are reported with the reason", async () => {
    const missing = runner(() => ({ exitCode: 127, stderr: "toolfs-confine: line 1: exec: bwrap: not found\n" }));
    expect(await detectBubblewrap(missing)).toMatchObject({ available: false, reason: expect.stringMatching(/^bubblewrap \(bwrap\) is not installed/) });
    const noBash = runner(() => new ProcessError("PROCESS_NOT_FOUND", "not found", { details: { command: "bash" } }));
    expect(await detectBubblewrap(noBash)).toMatchObject({ available: false, reason: expect.stringMatching(/^bash, which starts bubblewrap/) });
    const denied = runner(() => ({ exitCode: 1, stderr: "bwrap: No permissions to creating new namespace\n" }));
    expect(await detectBubblewrap(denied)).toMatchObject({
      available: false,
      reason: "bubblewrap (bwrap) cannot confine commands here: its test run exited 1: bwrap: No permissions to creating new namespace",
    });
  });
});

describe("guardSearch", () => {
  test("a guarded search still streams: results pass item by item, filtered, and the whole result is never asked for", async () => {
    const fs = createMemoryProvider({ files: { "/ws/a.txt": "x", "/ws/.env": "SECRET=1" }, cwd: "/ws" });
    const rules = await resolveSandbox(fs, sandboxPolicy({ mode: "workspace-write", workspace: "/ws", deny: [".env"] }));
    const pushed: string[] = [];
    const inner: SearchBackend & WholeResults = {
      name: "counting",
      readableGuard: "pinned",
      files: () => Promise.reject(new Error("the guard must not ask for the whole result")),
      grep: () => Promise.reject(new Error("the guard must not ask for the whole result")),
      async streamFiles(_request, sink) {
        for (const path of ["a.txt", ".env", "b.txt"]) sink.push(path);
        return { problems: ["rg: .env: permission denied", "rg: c.txt: permission denied"], stopped: false };
      },
      streamGrep: () => Promise.reject(new Error("unused")),
    };
    const guarded = guardSearch(inner, fs, rules);
    expect(guarded.streamFiles).toBeDefined();
    const outcome = await guarded.streamFiles!({ cwd: "/ws" }, { push: (path) => void pushed.push(path) });
    expect(pushed).toEqual(["a.txt", "b.txt"]);
    expect(outcome.problems).toEqual(["rg: c.txt: permission denied"]);
  });
});

describe("where a search under restricting rules runs", () => {
  const available = { kind: "bubblewrap", available: true, program: "bwrap" } as const;
  const unavailable = { kind: "bubblewrap", available: false, program: "bwrap", reason: "not here" } as const;
  // A backend that answers one fixed path and records the requests it got.
  const recording = (guard: SearchBackend["readableGuard"]) => {
    const requests: SearchScope[] = [];
    const backend: SearchBackend = fromWholeResults({
      name: "recording",
      ...(guard ? { readableGuard: guard } : {}),
      files: async (request) => (requests.push(request), { paths: ["from-backend.txt"], problems: [] }),
      grep: () => Promise.reject(new Error("unused")),
    });
    return { backend, requests };
  };
  const setup = async (files: Record<string, string>, options: { readonly deny?: readonly string[]; readonly readScope?: "workspace" }) => {
    const fs = createMemoryProvider({ files: { "/top/ws/a.txt": "a", ...files }, cwd: "/top/ws" });
    const rules = await resolveSandbox(fs, sandboxPolicy({ mode: "workspace-write", workspace: "/top/ws", ...options }));
    return { fs, rules };
  };

  test("a backend that keeps neither guard is not given the search: the engine over the provider answers", async () => {
    const { fs, rules } = await setup({}, { readScope: "workspace" });
    const { backend, requests } = recording(undefined);
    expect((await guardSearch(backend, fs, rules, available).files({ cwd: "/top/ws" })).paths).toEqual(["a.txt"]);
    expect(requests).toEqual([]);
  });

  test("a confinable backend gets a confinement of the readable roots when one is available, else the engine searches", async () => {
    const { fs, rules } = await setup({ "/top/.git/HEAD": "ref", "/top/ws/secret.txt": "s" }, { readScope: "workspace", deny: ["/top/ws/secret.txt"] });
    const { backend, requests } = recording("confinable");
    expect((await guardSearch(backend, fs, rules, available).files({ cwd: "/top/ws" })).paths).toEqual(["from-backend.txt"]);
    expect(requests[0]?.confine).toEqual({
      program: "bwrap",
      roots: ["/top/ws"],
      masks: [{ path: "/top/ws/secret.txt", directory: false }],
      inRepository: true,
    });
    expect(requests[0]?.readable?.("/top/other")).toBe(false);
    expect((await guardSearch(backend, fs, rules, unavailable).files({ cwd: "/top/ws" })).paths).toEqual(["a.txt"]);
    expect((await guardSearch(backend, fs, rules, undefined).files({ cwd: "/top/ws" })).paths).toEqual(["a.txt"]);
    expect(requests).toHaveLength(1);
  });

  test("a deny pattern only a walk can find, or ignore rules above the readable roots, send the search to the engine", async () => {
    for (const [files, options] of [
      [{}, { deny: ["*.pem"] }],
      [{ "/top/.ignore": "a.txt\n" }, { readScope: "workspace" }],
      [{ "/top/.git/info/exclude": "*.log\n" }, { readScope: "workspace" }],
    ] as const) {
      const { fs, rules } = await setup(files, options);
      const { backend, requests } = recording("confinable");
      await guardSearch(backend, fs, rules, available).files({ cwd: "/top/ws" });
      expect(requests, JSON.stringify(files)).toEqual([]);
    }
    // A comment-only exclude file, as git init writes it, has no rules.
    const { fs, rules } = await setup({ "/top/.git/info/exclude": "# git ls-files --others --exclude-from=.git/info/exclude\n" }, { readScope: "workspace" });
    const { backend, requests } = recording("confinable");
    await guardSearch(backend, fs, rules, available).files({ cwd: "/top/ws" });
    expect(requests).toHaveLength(1);
  });

  test("the confined search's argv: the outermost roots, the program and its /proc/self/exe link, masks inside the roots, then ripgrep in the root", () => {
    const view = {
      roots: ["/ws/sub", "/ws", "/tmp/x"],
      masks: [
        { path: "/ws/.env", directory: false },
        { path: "/ws/keys", directory: true },
        { path: "/home/u/.ssh", directory: true },
      ],
      programs: ["/opt/rg/rg"],
    };
    expect(searchBubblewrapArgs(view, { command: "/opt/rg/rg", args: ["--files"], cwd: "/ws/sub" })).toEqual([
      "--ro-bind",
      "/ws",
      "/ws",
      "--ro-bind",
      "/tmp/x",
      "/tmp/x",
      "--ro-bind",
      "/opt/rg/rg",
      "/opt/rg/rg",
      "--symlink",
      "/opt/rg/rg",
      "/proc/self/exe",
      "--ro-bind",
      "/dev/null",
      "/ws/.env",
      "--perms",
      "0000",
      "--tmpfs",
      "/ws/keys",
      "--remount-ro",
      "/ws/keys",
      "--unshare-pid",
      "--die-with-parent",
      "--cap-drop",
      "ALL",
      "--chdir",
      "/ws/sub",
      "--",
      "/opt/rg/rg",
      "--files",
    ]);
    expect(searchBubblewrapArgs({ ...view, roots: undefined }, { command: "/opt/rg/rg" }).slice(0, 7)).toEqual([
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
    ]);
  });
});
