// bash under the sandbox, confined by bubblewrap, against real processes: vitest registers these for the Node
// runner, `deno test` for the Deno one. Each escape attempt must be refused by the kernel and leave nothing
// where the sandbox forbids writing; the file tools' fence must hold while the confined shell races it. Where
// bubblewrap cannot run, every case is registered as skipped with the detector's reason.
import { assert, assertEquals } from "../conformance/mod.ts";
import {
  BoundedCollector,
  createToolkit,
  detectBubblewrap,
  type FileSystem,
  type ProcessRunner,
  type SandboxOptions,
  type SearchBackend,
  type ShellConfinement,
  type Toolkit,
} from "../core/mod.ts";

type Register = (name: string, fn: () => Promise<void>) => void;
type Skip = (name: string, reason: string) => void;

export interface ConfineCaseRuntime {
  /** The runtime's own (unconfined) runner: the confinement wraps it, and the cases inspect the host with it. */
  readonly runner: ProcessRunner;
  provider(cwd: string): FileSystem;
  readonly search?: SearchBackend;
  /** The pid of the test process itself, as the host sees it. */
  readonly hostPid: number;
  /** A listener on 127.0.0.1 (port 0); `accepted` counts the connections it took. */
  listen(): Promise<{ readonly port: number; accepted(): number; close(): Promise<void> }>;
  /** The same on the Unix socket `path`; absent where the runtime may not listen on one. */
  listenUnix?(path: string): Promise<{ accepted(): number; close(): Promise<void> }>;
  /** A node executable, to connect to that socket from inside the sandbox. */
  readonly node?: string;
  /** The runtime's runner, with `vars` in the environment every child inherits, as if the host's held them. */
  runnerWithEnv(vars: Readonly<Record<string, string>>): ProcessRunner;
}

const SECRET = "SECRET-b61c";

/** Runs a host-side bash script through the unconfined runner; fails on anything but exit 0. */
async function host(runner: ProcessRunner, script: string, args: readonly string[] = []): Promise<string> {
  const out = new BoundedCollector({ maxBytes: 1 << 20 });
  const result = await runner.run({ command: "bash", args: ["-c", script, "bash", ...args], stdout: out, stderr: out });
  assertEquals(result.exitCode, 0, `exit code of host script ${JSON.stringify(script)}: ${out.text()}`);
  return out.text();
}

/** Every path under `dir` (hidden ones included), relative, sorted; empty when nothing is there. */
async function tree(runner: ProcessRunner, dir: string): Promise<string[]> {
  return (await host(runner, 'cd "$1" && find . -mindepth 1 | sort', [dir])).split("\n").filter(Boolean);
}

/** Host processes whose command line contains `marker` and that still run (zombies have exited). */
async function survivors(runner: ProcessRunner, marker: string): Promise<string[]> {
  const table = await host(runner, "ps -eo stat=,args=");
  return table
    .split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo") && !/^\s*Z/.test(line))
    .map((line) => line.trim());
}

interface Layout {
  /** Canonical temp directory holding the rest. */
  readonly base: string;
  /** The workspace: a git-like .git with hooks, a .env, a file. */
  readonly ws: string;
  /** A directory outside every root, with one file in it. */
  readonly outside: string;
}

async function layout(runner: ProcessRunner): Promise<Layout> {
  const base = (await host(runner, 'd=$(mktemp -d) && cd "$d" && pwd -P')).trim();
  const ws = `${base}/ws`;
  const outside = `${base}/outside`;
  await host(
    runner,
    'mkdir -p "$1/.git/hooks" "$2" && printf "[core]\\n" > "$1/.git/config" && printf "TOKEN=$3\\n" > "$1/.env" && ' +
      'printf "hello\\n" > "$1/a.txt" && printf "keep\\n" > "$2/existing"',
    [ws, outside, SECRET],
  );
  return { base, ws, outside };
}

export async function registerConfineCases(test: Register, skip: Skip, runtime: ConfineCaseRuntime, prefix: string): Promise<void> {
  const name = (text: string) => `${prefix} confined bash: ${text}`;
  const { runner } = runtime;
  const confinement = await detectBubblewrap(runner);
  const cases: [string, () => Promise<void>, string | undefined][] = [];
  const add = (text: string, fn: () => Promise<void>, unsupported?: string) => cases.push([name(text), fn, unsupported]);

  async function session(
    fn: (kit: Toolkit, at: Layout, sh: (command: string) => Promise<string>) => Promise<void>,
    options: Partial<SandboxOptions> | ((at: Layout) => Partial<SandboxOptions>) = {},
  ): Promise<void> {
    const at = await layout(runner);
    const sandbox = typeof options === "function" ? options(at) : options;
    try {
      const kit = createToolkit({
        fs: runtime.provider(at.ws),
        workspace: at.ws,
        runner,
        ...(runtime.search ? { search: runtime.search } : {}),
        sandbox: { mode: "workspace-write", confinement: confinement as ShellConfinement, ...sandbox },
      });
      const sh = async (command: string) => (await kit.call("bash", { command })).content;
      await fn(kit, at, sh);
    } finally {
      await host(runner, 'rm -rf -- "$1"', [at.base]);
    }
  }

  add("offered under read-only and workspace-write, and says what the sandbox allows", () =>
    session(async (kit, at) => {
      assert(
        kit.definitions.some((d) => d.name === "bash"),
        "bash is offered",
      );
      const bash = kit.definitions.find((d) => d.name === "bash")!;
      for (const fragment of [`files can be written only in ${at.ws}`, "(not in .git)", "there is no network"]) {
        assert(bash.description.includes(fragment) && kit.guidance.includes(fragment), `${fragment} in description and guidance`);
      }
      const readOnly = createToolkit({ fs: runtime.provider(at.ws), runner, sandbox: { mode: "read-only", confinement } });
      assert(
        readOnly.definitions.some((d) => d.name === "bash"),
        "bash under read-only",
      );
      assert(readOnly.guidance.includes("no file can be written"), readOnly.guidance);
    }),
  );

  // The host's environment holds what an agent's host needs (API keys, the MCP token) and no command should
  // see; bash inherits only the allow-list (DEFAULT_BASH_ENV) and what the host adds, confined or not.
  add("bash inherits only the allowed environment: no secret of the host's, confined or not; bashEnv passes more", async () => {
    const secrets = { OPENAI_API_KEY: `sk-${SECRET}`, TOOLFS_MCP_TOKEN: `mcp-${SECRET}`, ANTHROPIC_API_KEY: `ak-${SECRET}`, "ODD-NAME": SECRET };
    const leaky = runtime.runnerWithEnv({ ...secrets, LC_TIME: "C", NODE_OPTIONS_X: "kept" });
    const at = await layout(runner);
    try {
      const command = "env; cat /proc/$$/environ | tr '\\0' '\\n'; cat /proc/1/environ /proc/$PPID/environ 2>/dev/null | tr '\\0' '\\n'; echo [done]";
      for (const sandbox of [undefined, { mode: "workspace-write", confinement } as const]) {
        const kit = createToolkit({ fs: runtime.provider(at.ws), workspace: at.ws, runner: leaky, ...(sandbox ? { sandbox } : {}) });
        const out = (await kit.call("bash", { command })).content;
        assert(out.includes("[done]") && !out.includes(SECRET), `${sandbox ? "confined" : "unconfined"}: ${out}`);
        assert(/^PATH=/m.test(out) && /^HOME=/m.test(out) && /^LC_TIME=C$/m.test(out) && !/NODE_OPTIONS_X/.test(out), out);
        const more = createToolkit({
          fs: runtime.provider(at.ws),
          workspace: at.ws,
          runner: leaky,
          bashEnv: ["NODE_*", "OPENAI_API_KEY"],
          ...(sandbox ? { sandbox } : {}),
        });
        const passed = (await more.call("bash", { command: "env" })).content;
        assert(/^NODE_OPTIONS_X=kept$/m.test(passed) && passed.includes(`OPENAI_API_KEY=sk-${SECRET}`) && !passed.includes(`mcp-${SECRET}`), passed);
      }
    } finally {
      await host(runner, 'rm -rf -- "$1"', [at.base]);
    }
  });

  add("stdin is closed inside the confinement too: a command that reads it sees the end at once", () =>
    session(async (kit) => {
      const result = await kit.call("bash", { command: "cat; echo done", timeout: 120 });
      assertEquals(result.content, "done\n[exit code: 0]", "output");
    }),
  );

  add("the workspace is writable and listable; everything else is refused by the kernel", () =>
    session(async (_kit, at, sh) => {
      const out = await sh("touch /etc/toolfs-x; echo hi > ~/toolfs-y; echo ok > b.txt; ls");
      assert(out.includes("touch: cannot touch '/etc/toolfs-x': Read-only file system"), out);
      assert(/toolfs-y: Read-only file system/.test(out), out);
      assert(out.includes("a.txt\nb.txt\n"), out);
      assertEquals(await tree(runner, at.outside), ["./existing"], "outside");
      assertEquals((await host(runner, "ls /etc/toolfs-x 2>/dev/null || echo none")).trim(), "none", "/etc");
    }),
  );

  // Each attempt writes (or tries to) somewhere outside the workspace; the kernel must refuse every one.
  const escapes: [string, string][] = [
    ["an absolute path", 'echo x > "$OUT/abs"'],
    ["..", "echo x > ../outside/dotdot"],
    ["a symlink made inside the sandbox", 'ln -s "$OUT" link && echo x > link/via-symlink'],
    ["a hard link to an outside file", 'ln "$OUT/existing" hard && echo x >> hard'],
    ["a hard link from inside to outside", 'ln a.txt "$OUT/hardlinked"'],
    ["/proc/self/root", 'echo x > "/proc/self/root$OUT/proc-self-root"'],
    [
      "/proc/<pid>/cwd and /proc/<pid>/root of every visible process",
      'for p in /proc/[0-9]*; do n=${p#/proc/}; echo x > "$p/cwd/../outside/cwd-$n"; echo x > "$p/root$OUT/root-$n"; done',
    ],
    ["/proc/<host pid>/root of the test process", 'echo x > "/proc/$HOSTPID/root$OUT/host-pid"'],
    ["a rename of the outside directory", 'mv "$OUT" "$OUT-moved"'],
    ["remounting / read-write", 'mount -o remount,rw / && echo x > "$OUT/remounted"'],
    ["unmounting the workspace bind", 'umount "$PWD" ; echo x > "$OUT/unmounted"'],
    ["a new mount namespace of its own", 'unshare -m bash -c "mount -o remount,rw / && echo x > $OUT/unshared"'],
    ["a new user and mount namespace of its own", 'unshare -rm bash -c "mount -o remount,rw / ; mount --bind /tmp $OUT; echo x > $OUT/userns"'],
  ];
  for (const [what, command] of escapes) {
    add(`writing outside through ${what} is refused`, () =>
      session(async (kit, at) => {
        const result = await kit.call("bash", { command: `OUT=${at.outside}; HOSTPID=${runtime.hostPid}; ${command}; echo "[done]"` });
        assert(result.content.includes("[done]"), result.content);
        assert(
          /Read-only file system|Invalid cross-device link|Permission denied|permission denied|Operation not permitted|No such file or directory|must be superuser/.test(
            result.content,
          ),
          `an error from the kernel: ${result.content}`,
        );
        assertEquals(await tree(runner, at.outside), ["./existing"], `outside after ${what}`);
        assertEquals(await host(runner, 'cat "$1/existing"', [at.outside]), "keep\n", "the outside file");
        assertEquals((await host(runner, 'ls -A "$1"', [at.base])).split("\n").filter(Boolean), ["outside", "ws"], "nothing beside them");
      }),
    );
  }

  // Kernel settings are files the kernel judges by uid alone: uid 0 without capabilities may write them, and a
  // pipe in core_pattern runs a program as root on the host. Each probe only opens for writing (`: >>`), which
  // is where the kernel refuses, and never calls write(), so even a sandbox that lets the open through changes
  // nothing on the host; the host's values are read before and after all the same.
  const SYSCTLS = ["kernel/core_pattern", "kernel/hostname", "kernel/randomize_va_space"];
  add("kernel settings under /proc/sys (core_pattern, hostname, ASLR, drop_caches, every other one) cannot be opened for writing", () =>
    session(async (_kit, _at, sh) => {
      const read = () => host(runner, 'for f in "$@"; do cat "/proc/sys/$f"; done', SYSCTLS);
      const before = await read();
      const probes = [...SYSCTLS, "vm/drop_caches"].map((f) => `: >> /proc/sys/${f} && echo "OPENED ${f}";`).join(" ");
      const out = await sh(
        `${probes} n=0; for f in $(find /proc/sys -type f -perm -200 2>/dev/null); do { : >> "$f"; } 2>/dev/null && n=$((n+1)); done; echo "opened=$n"; ` +
          `[ -e /proc/sysrq-trigger ] && (: >> /proc/sysrq-trigger) 2>/dev/null && echo "OPENED sysrq-trigger"; echo [done]`,
      );
      assert(out.includes("[done]") && !out.includes("OPENED") && out.includes("opened=0"), out);
      assert(/core_pattern: (Read-only file system|Permission denied)/.test(out), out);
      assertEquals(await read(), before, "the host's core_pattern, hostname and randomize_va_space");
    }),
  );

  // The class behind /proc/sys: whatever the sandbox mounts that is not meant to be written must be read-only,
  // whatever the uid. Meant to be written: the writable roots, bubblewrap's private /dev, the private /tmp of
  // the workspace read scope, and everything under / in full-access, except the kernel's own filesystems.
  const KERNEL_FS = new Set([
    "proc",
    "sysfs",
    "cgroup",
    "cgroup2",
    "debugfs",
    "tracefs",
    "securityfs",
    "configfs",
    "bpf",
    "pstore",
    "efivarfs",
    "fusectl",
    "binfmt_misc",
    "hugetlbfs",
    "mqueue",
    "rpc_pipefs",
    "nfsd",
    "autofs",
  ]);
  const mounts = async (sh: (command: string) => Promise<string>) => {
    const out = await sh(`awk '{ for (i = 7; $i != "-"; i++); print $5, $6, $(i+1) }' /proc/self/mountinfo`);
    const all = out
      .split("\n")
      .filter((line) => line.startsWith("/"))
      .map((line) => {
        const [point = "", options = "", type = ""] = line.split(" ");
        return { point: point.replace(/\\040/g, " "), ro: options.split(",").includes("ro"), type };
      });
    // A mount that a later one covers (on its own mount point or one above) cannot be reached by any path.
    return all.filter((m, i) => !all.slice(i + 1).some((later) => under(later.point, m.point)));
  };
  const under = (root: string, path: string) => root === "/" || path === root || path.startsWith(`${root}/`);
  for (const [what, options, meant] of [
    ["workspace-write", {}, (at: Layout) => [at.ws, "/dev"]],
    ["workspace read scope", { readScope: "workspace" }, (at: Layout) => [at.ws, "/dev", "/tmp"]],
    ["read-only", { mode: "read-only" }, () => ["/dev"]],
    ["full-access with a deny list", (at: Layout) => ({ mode: "full-access", deny: [".env"], home: at.outside }), () => ["/"]],
  ] as const) {
    add(`${what}: every mount not meant to be written is read-only, and the kernel's own always are`, () =>
      session(
        async (_kit, at, sh) => {
          const all = await mounts(sh);
          assert(
            all.some((m) => m.point === "/proc" && m.type === "proc"),
            JSON.stringify(all),
          );
          const writable = all.filter((m) => !m.ro && (KERNEL_FS.has(m.type) || !meant(at).some((root) => under(root, m.point))));
          assertEquals(writable, [], "read-write mounts not meant to be written");
        },
        options as Partial<SandboxOptions> | ((at: Layout) => Partial<SandboxOptions>),
      ),
    );
  }

  add("writing into .git (hooks, config) is refused, and .git cannot be moved or removed", () =>
    session(async (_kit, at, sh) => {
      const out = await sh('echo "#!/bin/sh" > .git/hooks/pre-commit; echo x >> .git/config; mv .git moved; rm -rf .git; ls -A .git');
      assert(/pre-commit: Read-only file system/.test(out) && /config: Read-only file system/.test(out), out);
      assert(/Device or resource busy|Read-only file system/.test(out), out);
      assertEquals(await tree(runner, `${at.ws}/.git`), ["./config", "./hooks"], ".git");
      assertEquals(await host(runner, 'cat "$1/.git/config"', [at.ws]), "[core]\n", "config");
    }),
  );

  add("host-listed protected paths stay read-only inside the workspace", () =>
    session(
      async (_kit, at, sh) => {
        await host(runner, 'mkdir "$1/build"', [at.ws]);
        const out = await sh("echo x > build/out.js; echo ok > free.js; cat free.js");
        assert(out.includes("build/out.js: Read-only file system") && out.includes("ok"), out);
        assertEquals(await tree(runner, `${at.ws}/build`), [], "build");
      },
      { protectedPaths: ["build"] },
    ),
  );

  add("the command holds no descriptor but its stdio", () =>
    session(async (_kit, _at, sh) => {
      // The glob lists the descriptor it reads the directory with, closed by the time -e looks.
      const out = await sh('for f in /proc/$$/fd/*; do [ -e "$f" ] && echo "${f##*/}"; done; true');
      assertEquals(out, "0\n1\n2\n[exit code: 0]", "descriptors of a command");
    }),
  );

  add("read-only: the workspace is not writable either", () =>
    session(
      async (_kit, at, sh) => {
        const out = await sh("echo x > new.txt; ls");
        assert(out.includes("new.txt: Read-only file system") && out.includes("a.txt"), out);
        assertEquals(await tree(runner, at.ws).then((t) => t.includes("./new.txt")), false, "new.txt");
      },
      { mode: "read-only" },
    ),
  );

  add("a denied file reads as nothing through the shell and is refused by every file tool", () =>
    session(
      async (kit, at, sh) => {
        await host(runner, 'mkdir "$1/keys" && printf "$3" > "$1/keys/id" && printf "$3" > "$2/secret.txt"', [at.ws, at.outside, SECRET]);
        const out = await sh(`cat .env; cat keys/id; ls keys; cat ${at.outside}/secret.txt; grep -r ${SECRET} . ; cp .env copy; cat copy; echo [done]`);
        assert(!out.includes(SECRET), out);
        assert(out.includes("[done]") && /\.env: Permission denied/.test(out) && /keys.*Permission denied/.test(out), out);
        const calls: [string, Record<string, unknown>][] = [
          ["read", { path: ".env" }],
          ["read", { path: "keys/id" }],
          ["read", { path: `${at.outside}/secret.txt` }],
          ["edit", { path: ".env", old_string: "TOKEN", new_string: "X" }],
          ["write", { path: ".env", content: "x" }],
        ];
        if (runtime.search) calls.push(["grep", { pattern: SECRET, path: ".env" }], ["glob", { pattern: "*", path: "keys" }]);
        for (const [tool, args] of calls) {
          const result = await kit.call(tool, args);
          assertEquals(result.error?.code, "FS_SANDBOX_DENIED", `${tool} ${JSON.stringify(args)}: ${result.content}`);
          assert(!result.content.includes(SECRET), result.content);
        }
        if (runtime.search) {
          const listed = await kit.call("grep", { pattern: SECRET });
          assert(listed.content.startsWith("No matches"), listed.content);
        }
        assertEquals(await host(runner, 'cat "$1/.env"', [at.ws]), `TOKEN=${SECRET}\n`, ".env untouched");
      },
      (at) => ({ deny: [".env", "keys", "~/secret.txt"], home: at.outside }),
    ),
  );

  add("the workspace read scope hides the rest of the filesystem from the shell", () =>
    session(
      async (_kit, at, sh) => {
        await host(runner, 'printf "$2" > "$1/secret.txt"', [at.outside, SECRET]);
        const out = await sh(`cat ${at.outside}/secret.txt; ls ${at.base}; cat a.txt; ls /usr/bin/bash`);
        assert(!out.includes(SECRET) && out.includes("No such file or directory"), out);
        assert(out.includes("hello") && out.includes("/usr/bin/bash"), out);
      },
      { readScope: "workspace" },
    ),
  );

  add("no network by default; the network option gives it back", async () => {
    const server = await runtime.listen();
    try {
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${server.port} && echo connected || echo refused`;
      await session(async (_kit, _at, sh) => {
        const out = await sh(probe);
        assert(out.includes("refused") && !out.includes("connected"), out);
      });
      assertEquals(server.accepted(), 0, "connections without network");
      await session(async (_kit, _at, sh) => assert((await sh(probe)).includes("connected"), "with network"), { network: true });
      assertEquals(server.accepted(), 1, "connections with network");
    } finally {
      await server.close();
    }
  });

  // What no mount can refuse, the seccomp filter must: calls probed with python3's ctypes, each printing "ok" or
  // the errno's name. io_uring would run socket() and connect() in the kernel past the filter; the keyrings are
  // the host user's own; without the network no socket family is left but an AF_UNIX pair. Every probe is
  // harmless where it succeeds: a key added to the probe's own process keyring dies with it.
  const PROBE = `
import ctypes, errno, platform, socket
libc = ctypes.CDLL(None, use_errno=True)
keys = {"x86_64": (250, 248, 249), "aarch64": (219, 217, 218)}[platform.machine()]
def call(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *args)
    print(name, "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()))
call("io_uring_setup", 425, ctypes.c_uint(4), ctypes.create_string_buffer(120))
call("keyctl", keys[0], ctypes.c_long(0), ctypes.c_long(-4), ctypes.c_long(0))
call("add_key", keys[1], b"user", b"toolfs-probe", b"x", ctypes.c_size_t(1), ctypes.c_long(-2))
call("request_key", keys[2], b"user", b"toolfs-probe-absent", None, ctypes.c_long(0))
for family, kind in [("AF_UNIX", "SOCK_STREAM"), ("AF_INET", "SOCK_STREAM"), ("AF_INET6", "SOCK_DGRAM"), ("AF_NETLINK", "SOCK_RAW"),
                     ("AF_PACKET", "SOCK_DGRAM"), ("AF_VSOCK", "SOCK_STREAM"), ("AF_ALG", "SOCK_SEQPACKET")]:
    try:
        socket.socket(getattr(socket, family), getattr(socket, kind)).close()
        print("socket", family, "ok")
    except OSError as e:
        print("socket", family, errno.errorcode.get(e.errno, e.errno))
try:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname())
    peer, _ = server.accept()
    client.sendall(b"ping")
    print("loopback", "ok" if peer.recv(4) == b"ping" else "garbled")
except OSError as e:
    print("loopback", errno.errorcode.get(e.errno, e.errno))
for kind in ["SOCK_STREAM", "SOCK_SEQPACKET", "SOCK_DGRAM"]:
    try:
        for end in socket.socketpair(socket.AF_UNIX, getattr(socket, kind)): end.close()
        print("socketpair", kind, "ok")
    except OSError as e:
        print("socketpair", kind, errno.errorcode.get(e.errno, e.errno))
`;
  const PYTHON = "/usr/bin/python3";
  const hasPython = (await host(runner, '[ -x "$1" ] && echo yes || echo no', [PYTHON])).trim() === "yes";
  for (const network of [false, true]) {
    add(
      `${network ? "with" : "without"} the network: io_uring and the keyrings are refused, ${network ? "sockets are allowed" : "no socket but a Unix pair and the loopback's"}`,
      () =>
        session(
          async (_kit, _at, sh) => {
            const out = await sh(`${PYTHON} - <<'EOF'\n${PROBE}\nEOF`);
            const got = Object.fromEntries(
              out
                .split("\n")
                .filter((l) => / (ok|E[A-Z]+)$/.test(l))
                .map((l) => [l.slice(0, l.lastIndexOf(" ")), l.slice(l.lastIndexOf(" ") + 1)]),
            );
            for (const call of ["io_uring_setup", "keyctl", "add_key", "request_key"]) assertEquals(got[call], "ENOSYS", `${call}: ${out}`);
            for (const family of ["AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET", "AF_VSOCK", "AF_ALG"]) {
              const verdict = got[`socket ${family}`];
              if (!network) assertEquals(verdict, family === "AF_INET" || family === "AF_INET6" ? "ok" : "EPERM", `socket ${family}: ${out}`);
            }
            if (network) assertEquals([got["socket AF_UNIX"], got["socket AF_INET"]], ["ok", "ok"], out);
            assertEquals(got.loopback, "ok", `a server and its client on the loopback: ${out}`);
            for (const kind of ["SOCK_STREAM", "SOCK_SEQPACKET", "SOCK_DGRAM"]) assertEquals(got[`socketpair ${kind}`], "ok", `socketpair ${kind}: ${out}`);
          },
          { network },
        ),
      hasPython ? undefined : `${PYTHON} is not installed`,
    );
  }

  // connect() on a Unix socket is no write, so a read-only mount does not stop it; the seccomp filter does.
  add(
    "a Unix socket on the host cannot be reached without the network; the network option allows it",
    async () => {
      const at = await layout(runner);
      const path = `${at.base}/host.sock`;
      const server = await runtime.listenUnix!(path);
      try {
        const client =
          `${runtime.node} -e 'require("net").connect(process.argv[1]).on("connect", () => { console.log("connected"); process.exit(0); })` +
          `.on("error", (e) => { console.log(e.code); process.exit(0); })' ${path}`;
        for (const network of [false, true]) {
          const kit = createToolkit({ fs: runtime.provider(at.ws), workspace: at.ws, runner, sandbox: { mode: "workspace-write", confinement, network } });
          const out = (
            await kit.call("bash", { command: `${client}; python3 -c 'import socket; socket.socketpair(); print("pair")' 2>/dev/null || echo pair` })
          ).content;
          assert(out.includes(network ? "connected" : "EPERM") && out.includes("pair"), `network ${network}: ${out}`);
        }
        assertEquals(server.accepted(), 1, "connections");
      } finally {
        await server.close();
        await host(runner, 'rm -rf -- "$1"', [at.base]);
      }
    },
    runtime.listenUnix && runtime.node ? undefined : "this runtime's tests may not listen on a Unix socket",
  );

  add("nothing the command started outlives it: background jobs, a new session, nohup", () =>
    session(async (_kit, _at, sh) => {
      const marker = `toolfs-bg-${crypto.randomUUID()}`;
      const out = await sh(
        `(exec -a ${marker}-1 sleep 1000) & setsid bash -c 'exec -a ${marker}-2 sleep 1000' & ` +
          `nohup bash -c 'trap "" TERM HUP; exec -a ${marker}-3 sleep 1000' >/dev/null 2>&1 & disown -a; echo started`,
      );
      assert(out.includes("started\n[exit code: 0]"), out);
      assertEquals(await survivors(runner, marker), [], "survivors");
    }),
  );

  add("a timeout and an abort stop the whole confined tree", () =>
    session(async (kit, _at, sh) => {
      const marker = `toolfs-stop-${crypto.randomUUID()}`;
      const tree = `(trap '' TERM; exec -a ${marker}-a sleep 1000) & setsid bash -c 'trap "" TERM; exec -a ${marker}-b sleep 1000' & echo up; wait`;
      const timed = await kit.call("bash", { command: tree, timeout: 0.5 });
      assert(timed.content.includes("[timed out after 0.5 s and was stopped]"), timed.content);
      assertEquals(await survivors(runner, marker), [], "survivors of the timeout");
      const controller = new AbortController();
      const call = kit.call("bash", { command: `echo started; ${tree}` }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 300);
      assertEquals((await call).error?.code, "TOOL_ABORTED", "abort");
      assertEquals(await survivors(runner, marker), [], "survivors of the abort");
      assert((await sh("echo still works")).includes("still works"), "later commands run");
    }),
  );

  // The model's own shell is a local process that can swap a workspace directory for a symlink to the outside
  // while a file tool works through it. The shell swaps until told to stop; the tool makes a fixed number of
  // calls, all of them after the shell's first swap (it marks that with a file) and before it is told to stop,
  // so every call overlaps the swapping. What is counted is what the tools did and, above all, what crossed
  // the line; nothing depends on how fast either side runs.
  async function race(
    kit: Toolkit,
    at: Layout,
    swapper: string,
    rounds: number,
    step: (n: number) => Promise<string>,
  ): Promise<{ swaps: string; outcomes: Record<string, number> }> {
    const ready = `${at.ws}/.race-ready`;
    const stop = `${at.ws}/.race-stop`;
    const racer = kit.call("bash", { command: `OUT=${at.outside}; READY=${ready}; STOP=${stop}; ${swapper}`, timeout: 600 }, { actor: "shell" });
    let settled = false;
    void racer.finally(() => (settled = true));
    const fs = runtime.provider(at.ws);
    while (!(await fs.lstat(ready))) {
      assert(!settled, `the racer stopped before its first swap: ${settled && (await racer).content}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const outcomes: Record<string, number> = {};
    try {
      for (let n = 0; n < rounds; n++) {
        const outcome = await step(n);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    } finally {
      await host(runner, 'touch "$1"', [stop]);
    }
    const swaps = (await racer).content.split("\n")[0] ?? "";
    assert(/^swaps=[1-9]/.test(swaps), `the racer swapped until it was stopped: ${swaps}`);
    return { swaps, outcomes };
  }

  // `d` is always a symlink, renamed atomically between one to a real directory inside and one to the outside:
  // a path through it leads outside at any moment, and the canonical path is what must be judged. It is set
  // up before the racer starts, so that no tool call ever finds `d` missing (and creates it).
  const LINK_SWAPPER =
    'i=0; while [ ! -e "$STOP" ]; do cp -P d-out t && mv -T t d; cp -P d-in t && mv -T t d; i=$((i+1)); [ $i = 1 ] && touch "$READY"; done; echo swaps=$i';
  const linkSetup = (at: Layout) => host(runner, 'cd "$1" && mkdir -p d.real && ln -s d.real d-in && ln -s "$2" d-out && cp -P d-in d', [at.ws, at.outside]);
  // The canonical directory itself moved away and replaced by a symlink to the outside, then put back: the
  // judged path is right, and the swap lands between the judgement and the use. A real directory cannot be
  // swapped for a symlink in one rename, so `d.real` is missing for a moment each time; a write that creates
  // it then simply wins that round, and the racer sets aside the directory it moved away.
  const CANONICAL_SWAPPER =
    'i=0; n=0; while [ ! -e "$STOP" ]; do mv -T d.real d.saved 2>/dev/null; ln -s "$OUT" d.real 2>/dev/null && n=$((n+1)); ' +
    '[ -L d.real ] && rm -f d.real; mv -T d.saved d.real 2>/dev/null || mv -T d.saved d.old$i; i=$((i+1)); [ $i = 1 ] && touch "$READY"; done; echo swaps=$i effective=$n';
  // Calls per race: enough that, on the old read path, several leaked per run on this 2-core VM.
  const WRITES = 500;
  const READS = 3000;

  for (const [what, swapper, path] of [
    ["a symlinked directory on the path", LINK_SWAPPER, "d"],
    ["the destination directory itself", CANONICAL_SWAPPER, "d.real"],
  ] as const) {
    add(`the fence holds while the confined shell swaps ${what} for a symlink to the outside`, () =>
      session(async (kit, at) => {
        if (swapper === LINK_SWAPPER) await linkSetup(at);
        else await host(runner, 'mkdir "$1/d.real"', [at.ws]);
        const { swaps, outcomes } = await race(kit, at, swapper, WRITES, async (n) => {
          const result = await kit.call("write", { path: `${path}/f${n}.txt`, content: `${n}\n` }, { actor: `writer-${n}` });
          return result.error?.code ?? "written";
        });
        const landed = (await tree(runner, at.outside)).filter((p) => p !== "./existing");
        console.log(
          `${prefix} write race (${what}): ${swaps}, writes ${JSON.stringify(outcomes)}, files outside: ${landed.length} ${JSON.stringify(landed.slice(0, 3))}`,
        );
        assertEquals(landed, [], "files outside after the race");
      }),
    );

    add(`under the workspace read scope, a read never returns an outside file while the shell swaps ${what}`, () =>
      session(
        async (kit, at) => {
          if (swapper === LINK_SWAPPER) await linkSetup(at);
          else await host(runner, 'mkdir "$1/d.real"', [at.ws]);
          await host(runner, 'printf "inside\\n" > "$1/d.real/f.txt" && printf "$3\\n" > "$2/f.txt"', [at.ws, at.outside, SECRET]);
          let leaked = 0;
          const { swaps, outcomes } = await race(kit, at, swapper, READS, async (n) => {
            const result = await kit.call("read", { path: `${path}/f.txt` }, { actor: `reader-${n}` });
            if (result.content.includes(SECRET)) leaked++;
            return result.error?.code ?? "read";
          });
          console.log(`${prefix} read race (${what}): ${swaps}, reads ${JSON.stringify(outcomes)}, outside content returned: ${leaked}`);
          assertEquals(leaked, 0, "reads that returned the outside file");
        },
        { readScope: "workspace" },
      ),
    );
  }

  for (const [caseName, fn, unsupported] of cases) {
    if (!confinement.available) skip(caseName, confinement.reason ?? "bubblewrap is unavailable");
    else if (unsupported) skip(caseName, unsupported);
    else test(caseName, fn);
  }
}
