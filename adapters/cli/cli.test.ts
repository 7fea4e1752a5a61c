// runCli against in-memory hosts, one describe per command (calls, mcp, acp, overlay). Over 400 lines because
// the commands share these hosts and their usage rules; the executable itself is tested in executable.test.ts.
import { NdjsonPeer, nodeRuntime } from "../../test/acp-driver.ts";
import { describe, expect, test } from "vitest";
import { createMemoryProvider, createMemoryVolume } from "../memory/mod.ts";
import { builtinTool, DEFAULT_BASH_ENV, TOOL_TRAITS } from "../../core/mod.ts";
import { memoryRuntime } from "../mcp/support.ts";
import type { ToolfsMcpSession } from "../mcp/mod.ts";
import { type AcpHost, type CliHost, runCli } from "./cli.ts";
import type { McpHost } from "./mcp.ts";
import { createNodeProcessRunner } from "../node/mod.ts";
import { nodeMcpHost } from "./mcp.node.ts";

function memoryHost(
  files: Record<string, string>,
  answers: string[] = [],
): CliHost & { stdout: string; stderr: string; asked: string[]; volume: ReturnType<typeof createMemoryVolume> } {
  const volume = createMemoryVolume();
  const fs = createMemoryProvider({ cwd: "/ws", files, volume });
  const host = {
    volume,
    stdout: "",
    stderr: "",
    asked: [] as string[],
    cwd: "/ws",
    tempRoots: ["/tmp"],
    realDirectory: async (path: string) => path,
    provider: async () => fs,
    ask: answers.length > 0 ? async (q: string) => (host.asked.push(q), answers.shift() ?? "") : undefined,
    out: (text: string) => void (host.stdout += text),
    err: (text: string) => void (host.stderr += text),
  };
  return host;
}

describe("runCli", () => {
  test("one call prints exactly the model's text", async () => {
    const host = memoryHost({ "a.txt": "hello\n" });
    expect(await runCli(["read", '{"path":"a.txt"}'], host)).toBe(0);
    expect(host.stdout).toBe("1: hello\n\n(End of file: 1 line.)\n");
  });

  test("every built-in tool whose needs are met runs when named, in the default list or not", async () => {
    for (const name of Object.keys(TOOL_TRAITS)) {
      // This host has neither a search backend nor a runner.
      if (builtinTool(name)!.needs !== undefined) continue;
      const host = memoryHost({ "a.txt": "hello\n" });
      await runCli([name, "{}", "--json"], host);
      expect(JSON.parse(host.stdout).error?.code, name).not.toBe("TOOL_UNKNOWN");
    }
  });

  test("calls share one session: a read authorizes the edit that follows", async () => {
    const host = memoryHost({ "a.txt": "hello\n" });
    const status = await runCli(["read", '{"path":"a.txt"}', "edit", '{"path":"a.txt","old_string":"hello","new_string":"bye"}'], host);
    expect(status).toBe(0);
    expect(host.stdout).toContain('### read {"path":"a.txt"}\n1: hello');
    expect(host.stdout).toContain("\n### edit ");
    expect(host.stdout).toContain("Edited a.txt: replaced 1 occurrence at line 1");
  });

  test("a built-in tool outside the default list (apply_patch, delete, move) runs when a call names it", async () => {
    const host = memoryHost({ "a.txt": "one\n", "b.txt": "bee\n" });
    const input = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch";
    const argv = ["read", '{"path":"a.txt"}', "apply_patch", JSON.stringify({ input }), "read", '{"path":"b.txt"}', "move", '{"from":"b.txt","to":"c.txt"}'];
    expect(await runCli(argv, host), host.stdout + host.stderr).toBe(0);
    expect(host.stdout).toContain("Applied the patch: 1 file changed.\nM a.txt (+1 -1)");
    expect(host.stdout).toContain("Moved b.txt to c.txt (file).");
    expect(host.volume.readFileSync("/ws/a.txt", "utf8")).toBe("two\n");
    expect(host.volume.existsSync("/ws/c.txt")).toBe(true);
    // Not in the list a session offers unless named.
    const listed = memoryHost({});
    await runCli(["tools"], listed);
    expect(listed.stdout).not.toContain("apply_patch");
  });

  test("a failed call sets a non-zero status and still prints the model's text", async () => {
    const host = memoryHost({ "a.txt": "x\n" });
    expect(await runCli(["edit", '{"path":"a.txt","old_string":"x","new_string":"y"}'], host)).toBe(1);
    expect(host.stdout).toContain("has not been read in this session");
  });

  test("--json prints one structured result per call", async () => {
    const host = memoryHost({ "a.txt": "x\n" });
    await runCli(["read", '{"path":"a.txt"}', "read", '{"path":"missing"}', "--json"], host);
    const lines = host.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.tool, l.isError, l.error?.code])).toEqual([
      ["read", false, undefined],
      ["read", true, "FS_NOT_FOUND"],
    ]);
  });

  test("bad usage exits 2 with a message and the usage text", async () => {
    for (const argv of [
      [],
      ["read"],
      ["read", "{not json"],
      ["--backend", "ftp", "tools"],
      ["--sandbox", "lax", "tools"],
      ["--frobnicate"],
      ["tools", "--read-scope", "home"],
      ["tools", "--deny"],
      ["tools", "--deny", "a{b"],
    ]) {
      const host = memoryHost({});
      expect(await runCli(argv, host), argv.join(" ")).toBe(2);
      expect(host.stderr).toMatch(/^toolfs: .+\n\nUsage:/);
    }
  });

  test("tools and prompt print the definitions and the guidance", async () => {
    const host = memoryHost({});
    await runCli(["tools", "--sandbox", "workspace-write", "--approve", "no"], host);
    const definitions = JSON.parse(host.stdout);
    expect(definitions.map((d: { name: string }) => d.name)).toEqual(["read", "write", "edit"]);
    expect(JSON.stringify(definitions)).toContain("sandbox_permissions");
    // Nobody to ask (no --approve, no terminal): escalation is not offered at all.
    const unattended = memoryHost({});
    await runCli(["tools", "--sandbox", "workspace-write"], unattended);
    expect(unattended.stdout).not.toContain("sandbox_permissions");
    const prompt = memoryHost({});
    await runCli(["prompt"], prompt);
    expect(prompt.stdout).toContain("read shows");
  });

  test("--bash-env adds to the variables bash inherits; without it only the default allow-list", async () => {
    const specs: { inheritEnv?: readonly string[] }[] = [];
    const scripted = {
      async run(spec: { inheritEnv?: readonly string[] }) {
        specs.push(spec);
        return { exitCode: 0, signal: null, forced: false };
      },
    };
    const host = Object.assign(memoryHost({}), { runner: scripted });
    expect(await runCli(["bash", '{"command":"env"}', "--bash-env", "NODE_*", "--bash-env", "CI"], host)).toBe(0);
    expect(await runCli(["bash", '{"command":"env"}'], host)).toBe(0);
    expect(specs.map((spec) => spec.inheritEnv?.filter((name) => !DEFAULT_BASH_ENV.includes(name)))).toEqual([["NODE_*", "CI"], []]);
    expect(specs[1]!.inheritEnv).toEqual(DEFAULT_BASH_ENV);
    expect(await runCli(["bash", '{"command":"env"}', "--bash-env", "A=B"], host)).toBe(2);
  });

  test("--sandbox, --read-scope, --deny and --network reach the toolkit; bash is left out where it cannot be confined, said once", async () => {
    const scripted = {
      async run() {
        return { exitCode: 0, signal: null, forced: false };
      },
    };
    let detections = 0;
    const unavailable = async () => (
      detections++, { kind: "bubblewrap", available: false, program: "bwrap", reason: "bubblewrap (bwrap) is not installed" } as const
    );
    const host = Object.assign(memoryHost({ ".env": "S=1\n", "a.txt": "a\n" }), { runner: scripted, confinement: unavailable });
    expect(await runCli(["tools", "--sandbox", "workspace-write"], host)).toBe(0);
    expect(JSON.parse(host.stdout).map((d: { name: string }) => d.name)).toEqual(["read", "write", "edit"]);
    expect(host.stderr).toBe(
      "toolfs: bash is not available: its commands cannot be held to the workspace-write sandbox here (bubblewrap (bwrap) is not installed)\n",
    );
    expect(detections).toBe(1);

    const available = async () => ({ kind: "bubblewrap", available: true, program: "bwrap" }) as const;
    const confined = Object.assign(memoryHost({ ".env": "S=1\n" }), { runner: scripted, confinement: available });
    await runCli(["prompt", "--sandbox", "read-only", "--read-scope", "workspace", "--deny", ".env", "--deny", "*.pem", "--network"], confined);
    expect(confined.stdout).toContain("bash commands run sandboxed: no file can be written; only /ws, /tmp, the system directories are visible");
    expect(confined.stdout).toContain('paths matching ".env", "*.pem" are hidden; the network is reachable.');
    const denied = Object.assign(memoryHost({ ".env": "S=1\n" }), { runner: scripted, confinement: available });
    expect(await runCli(["read", '{"path":".env"}', "--deny", ".env"], denied)).toBe(1);
    expect(denied.stdout).toContain('it is on the deny list (".env")');

    // Without a sandbox or a deny list, nothing is detected: a plain run pays nothing for it.
    const plain = Object.assign(memoryHost({}), { runner: scripted, confinement: unavailable });
    await runCli(["tools"], plain);
    expect(detections).toBe(1);
  });

  test("--flag=value reads as --flag value: prompt --sandbox=read-only, calls, repeats; a boolean given a value is a usage error", async () => {
    const scripted = {
      async run() {
        return { exitCode: 0, signal: null, forced: false };
      },
    };
    const available = async () => ({ kind: "bubblewrap", available: true, program: "bwrap" }) as const;
    const prompt = async (...argv: string[]) => {
      const host = Object.assign(memoryHost({}), { runner: scripted, confinement: available });
      expect(await runCli(["prompt", ...argv], host), argv.join(" ")).toBe(0);
      return host.stdout;
    };
    const joined = await prompt("--sandbox=read-only", "--read-scope=workspace", "--deny=.env", "--deny", "*.pem", "--bash-env=CI");
    expect(joined).toBe(await prompt("--sandbox", "read-only", "--read-scope", "workspace", "--deny", ".env", "--deny", "*.pem", "--bash-env", "CI"));
    expect(joined).toContain("bash commands run sandboxed: no file can be written");
    expect(joined).toContain('paths matching ".env", "*.pem" are hidden');

    const denied = memoryHost({ ".env": "S=1\n", "a.txt": "a\n" });
    expect(await runCli(["read", '{"path":".env"}', "read", '{"path":"a.txt"}', "--deny=.env", "--json", "--backend=memory", "--root=/ws"], denied)).toBe(1);
    expect(
      denied.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).isError),
    ).toEqual([true, false]);
    const approved = memoryHost({});
    const escalate = [
      "write",
      '{"path":"/etc/x","content":"x"}',
      "write",
      '{"path":"/etc/x","content":"x","sandbox_permissions":"full-access","justification":"asked"}',
    ];
    await runCli([...escalate, "--sandbox=workspace-write", "--approve=yes"], approved);
    expect(approved.stdout).toContain("Created /etc/x");

    for (const [argv, message] of [
      [["tools", "--json=yes"], "--json takes no value"],
      [["tools", "--network=1"], "--network takes no value"],
      [["tools", "--backend=ftp"], '--backend must be node, memory or overlay, got "ftp"'],
      [["tools", "--approve=maybe"], '--approve must be yes or no, got "maybe"'],
      [["tools", "--sandbox=lax"], '--sandbox must be one of read-only, workspace-write, full-access, got "lax"'],
      [["tools", "--frobnicate=1"], "unknown option --frobnicate"],
      [["tools", "-x"], "unknown option -x"],
    ] as const) {
      const host = memoryHost({});
      expect(await runCli(argv, host), argv.join(" ")).toBe(2);
      expect(host.stderr).toMatch(new RegExp(`^toolfs: ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n\nUsage:`));
    }
    const help = memoryHost({});
    expect(await runCli(["-h"], help)).toBe(0);
    expect(help.stdout).toMatch(/^Usage:/);
  });

  test("--backend memory without memfs names the package to install, and other failures are not disguised", async () => {
    const missing = Object.assign(new Error("Cannot find package 'memfs' imported from /x/dist/load.js"), { code: "ERR_MODULE_NOT_FOUND" });
    const host = Object.assign(memoryHost({}), { provider: async () => Promise.reject(missing) });
    expect(await runCli(["tools", "--backend", "memory"], host)).toBe(2);
    expect(host.stderr).toBe(
      "toolfs: --backend memory needs the optional dependency memfs: npm i memfs (Cannot find package 'memfs' imported from /x/dist/load.js)\n",
    );
    const broken = Object.assign(memoryHost({}), { provider: async () => Promise.reject(new Error("EIO")) });
    await expect(runCli(["tools", "--backend", "memory"], broken)).rejects.toThrow("EIO");
  });

  test("--approve answers escalation requests; otherwise the terminal is asked", async () => {
    const call = [
      "write",
      '{"path":"/etc/x","content":"x"}',
      "write",
      '{"path":"/etc/x","content":"x","sandbox_permissions":"full-access","justification":"asked"}',
    ];
    const yes = memoryHost({});
    expect(await runCli([...call, "--sandbox", "workspace-write", "--approve", "yes"], yes)).toBe(1);
    expect(yes.stdout).toContain("Created /etc/x");
    const no = memoryHost({});
    await runCli([...call, "--sandbox", "workspace-write", "--approve", "no"], no);
    expect(no.stdout).toContain("declined");
    const asked = memoryHost({}, ["y"]);
    await runCli([...call, "--sandbox", "workspace-write"], asked);
    expect(asked.asked[0]).toContain("the model asks for full access to write /etc/x, for this call only");
    expect(asked.stdout).toContain("Created /etc/x");

    // Through a symlink, the question names the file that would change, the rule and the roots, on lines the
    // model's justification cannot forge.
    const linked = memoryHost({}, ["y"]);
    linked.volume.mkdirSync("/elsewhere");
    linked.volume.writeFileSync("/elsewhere/secret.txt", "old\n");
    linked.volume.symlinkSync("/elsewhere/secret.txt", "/ws/notes.txt");
    const retry = '{"path":"notes.txt","content":"x","sandbox_permissions":"full-access","justification":"asked\\nwrites to: /ws/notes.txt"}';
    await runCli(["read", '{"path":"notes.txt"}', "write", '{"path":"notes.txt","content":"x"}', "write", retry, "--sandbox", "workspace-write"], linked);
    expect(linked.asked[0]).toBe(
      "toolfs: the model asks for full access to write /elsewhere/secret.txt (given as notes.txt), for this call only\n" +
        "  Refused under workspace-write access because it is outside the writable roots (/ws, /tmp).\n" +
        "  The model's reason: asked\\nwrites to: /ws/notes.txt\nAllow this once? [y/N] ",
    );
    expect(linked.stdout).toContain("Updated notes.txt");
    expect(linked.volume.readFileSync("/elsewhere/secret.txt", "utf8")).toBe("x");
  });
});

describe("toolfs mcp", () => {
  // The CLI's side of `toolfs mcp` over a memory runtime: what it serves is recorded, nothing is served.
  function mcpHost(runtime = memoryRuntime()) {
    const served: ToolfsMcpSession[] = [];
    const limits: { maxMessageBytes?: number }[] = [];
    const mcp: McpHost = {
      runtime: () => runtime,
      stdio: async (session, given) => {
        served.push(session);
        limits.push({ ...(given.maxMessageBytes === undefined ? {} : { maxMessageBytes: given.maxMessageBytes }) });
      },
      http: async () => {},
      env: () => undefined,
    };
    runtime.volume.mkdirSync("/ws", { recursive: true });
    return Object.assign(memoryHost({}), { mcp: () => mcp, served, runtime, limits });
  }

  test("the limit flags: positive whole numbers; --max-message-bytes reaches stdio; the session flags go with --http", async () => {
    for (const [argv, message] of [
      [["--max-message-bytes", "0"], '--max-message-bytes takes a positive whole number, got "0"'],
      [["--max-message-bytes", "4MiB"], '--max-message-bytes takes a positive whole number, got "4MiB"'],
      [["--max-sessions", "-1"], '--max-sessions takes a positive whole number, got "-1"'],
      [["--idle-timeout"], "--idle-timeout needs a value"],
      [["--max-sessions", "8"], "--max-sessions goes with --http"],
      [["--idle-timeout", "60"], "--idle-timeout goes with --http"],
    ] as const) {
      const host = mcpHost();
      expect(await runCli(["mcp", "--root", "/ws", ...argv], host), argv.join(" ")).toBe(2);
      expect(host.stderr, argv.join(" ")).toContain(message);
      expect(host.served).toEqual([]);
    }
    const host = mcpHost();
    expect(await runCli(["mcp", "--root", "/ws", "--max-message-bytes", "8388608"], host)).toBe(0);
    expect(host.limits).toEqual([{ maxMessageBytes: 8388608 }]);
    const plain = mcpHost();
    expect(await runCli(["mcp", "--root", "/ws"], plain)).toBe(0);
    expect(plain.limits).toEqual([{}]);
  });

  test("--flag=value reads as --flag value; repeated --root; a value for a flag that takes none is a usage error", async () => {
    const host = mcpHost();
    host.runtime.volume.mkdirSync("/other");
    expect(
      await runCli(["mcp", "--root=/ws", "--root=/other", "--max-message-bytes=8388608", "--sandbox=read-only", "--deny=.env", "--bash-env=CI"], host),
    ).toBe(0);
    expect(host.limits).toEqual([{ maxMessageBytes: 8388608 }]);
    for (const [argv, message] of [
      [["--network=yes"], "--network takes no value"],
      [["--max-sessions=8"], "--max-sessions goes with --http"],
      [["--http=127.0.0.1:x"], '--http takes HOST:PORT or PORT (such as 127.0.0.1:8765), got "127.0.0.1:x"'],
      [["--backend=ftp"], '--backend must be node, memory or overlay, got "ftp"'],
      [["--frobnicate=1"], "mcp does not take --frobnicate"],
      [["stray"], "mcp does not take stray"],
    ] as const) {
      const bad = mcpHost();
      expect(await runCli(["mcp", "--root=/ws", ...argv], bad), argv.join(" ")).toBe(2);
      expect(bad.stderr, argv.join(" ")).toContain(`toolfs: ${message}\n\nUsage:`);
      expect(bad.served).toEqual([]);
    }
    const help = mcpHost();
    expect(await runCli(["mcp", "--help"], help)).toBe(0);
    expect(help.stderr).toMatch(/^Usage:[\s\S]*mcp options:/);
    expect([help.stdout, help.served]).toEqual(["", []]);
  });

  test("without --root, stderr says in one line what is offered and why bash is not", async () => {
    const host = mcpHost();
    expect(await runCli(["mcp"], host)).toBe(0);
    expect(host.stderr).toBe(
      "toolfs mcp: no --root given: the tools work in the roots the client names (MCP roots); until it names one, every call fails and bash is not offered\n",
    );
    const rooted = mcpHost();
    await runCli(["mcp", "--root", "/ws"], rooted);
    expect(rooted.stderr).toBe("");
  });

  test("--backend memory without memfs names the package to install", async () => {
    const runtime = memoryRuntime();
    const missing = Object.assign(new Error("Cannot find package 'memfs' imported from /x/dist/load.js"), { code: "ERR_MODULE_NOT_FOUND" });
    const host = mcpHost(Object.assign({ ...runtime, workspace: async () => Promise.reject(missing) }, { volume: runtime.volume }));
    expect(await runCli(["mcp", "--root", "/ws", "--backend", "memory"], host)).toBe(2);
    expect(host.stderr).toBe(
      "toolfs: --backend memory needs the optional dependency memfs: npm i memfs (Cannot find package 'memfs' imported from /x/dist/load.js)\n",
    );
  });

  test("bad sandbox flags are usage errors, before anything is served", async () => {
    for (const argv of [
      ["--sandbox", "lax"],
      ["--read-scope", "home"],
      ["--read-scope"],
      ["--deny"],
      ["--deny", "a{b"],
      ["--deny", "  "],
      ["--network", "yes"],
    ]) {
      const host = mcpHost();
      expect(await runCli(["mcp", "--root", "/ws", ...argv], host), argv.join(" ")).toBe(2);
      expect(host.stderr, argv.join(" ")).toMatch(/^toolfs: .+\n\nUsage:/);
      expect(host.served).toEqual([]);
    }
    const host = mcpHost();
    await runCli(["mcp", "--root", "/ws", "--read-scope", "home"], host);
    expect(host.stderr).toContain('--read-scope must be one of anywhere, workspace, got "home"');
  });

  test("the sandbox flags reach the server; the read scope is the roots unless --read-scope anywhere", async () => {
    const host = mcpHost();
    host.runtime.volume.mkdirSync("/elsewhere");
    host.runtime.volume.writeFileSync("/elsewhere/b.txt", "b\n");
    host.runtime.volume.writeFileSync("/ws/.env", "S=1\n");
    expect(await runCli(["mcp", "--root", "/ws", "--sandbox", "read-only", "--deny", ".env"], host)).toBe(0);
    const [session] = host.served;
    const { Client, InMemoryTransport } = await import("@modelcontextprotocol/client");
    const client = new Client({ name: "cli-test", version: "1" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session!.server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const code = async (name: string, args: Record<string, unknown>) =>
        ((await client.callTool({ name, arguments: args })).structuredContent as { error?: { code: string } }).error?.code;
      expect(await code("read", { path: ".env" })).toBe("FS_SANDBOX_DENIED");
      expect(await code("read", { path: "/elsewhere/b.txt" })).toBe("FS_SANDBOX_DENIED");
      expect(await code("write", { path: "new.txt", content: "x" })).toBe("FS_SANDBOX_DENIED");
      expect(client.getInstructions()).toContain("The read-only sandbox refuses every write");
    } finally {
      await client.close();
    }
    const anywhere = mcpHost(host.runtime);
    await runCli(["mcp", "--root", "/ws", "--read-scope", "anywhere"], anywhere);
    expect(anywhere.served[0]!.server).toBeDefined();
    expect(anywhere.stderr).toBe("");
  });

  test("what is withheld is said once on stderr, at startup; the Node host detects bubblewrap once per process", async () => {
    const runtime = memoryRuntime();
    let detections = 0;
    const scripted = { run: async () => ({ exitCode: 0, signal: null, forced: false }) };
    const unconfinable = {
      ...runtime,
      workspace: async (roots: readonly string[]) => ({ ...(await runtime.workspace(roots)), runner: scripted }),
      confinement: async () => (
        detections++, { kind: "bubblewrap", available: false, program: "bwrap", reason: "bubblewrap (bwrap) is not installed" } as const
      ),
    };
    const host = mcpHost(Object.assign(unconfinable, { volume: runtime.volume }));
    await runCli(["mcp", "--root", "/ws"], host);
    expect(host.stderr).toBe(
      "toolfs mcp: bash is not available: its commands cannot be held to the workspace-write sandbox here (bubblewrap (bwrap) is not installed)\n",
    );
    expect(detections).toBe(1);

    let detected = 0;
    const node = nodeMcpHost({
      runner: scripted,
      tempRoots: [],
      spillDirectory: "/tmp/toolfs-spill",
      realDirectory: async (path) => path,
      confinement: async () => (detected++, { kind: "bubblewrap", available: true, program: "bwrap" }),
    });
    const answers = await Promise.all([node.runtime("node").confinement!(), node.runtime("node").confinement!(), node.runtime("memory").confinement!()]);
    expect(answers.every((answer) => answer.available)).toBe(true);
    expect(detected).toBe(1);
  });
});

describe("toolfs acp", () => {
  function acpHost(files: Record<string, string> = {}, env: Record<string, string> = {}) {
    const toAgent = new TransformStream<Uint8Array, Uint8Array>();
    const fromAgent = new TransformStream<Uint8Array, Uint8Array>();
    const stop = new AbortController();
    const host = memoryHost({});
    let opened = false;
    const acp: AcpHost = {
      runtime: nodeRuntime(),
      readText: async (path) => {
        if (!(path in files)) throw new Error(`ENOENT: ${path}`);
        return files[path]!;
      },
      env: (name) => env[name],
      stdio: () => {
        opened = true;
        return { input: toAgent.readable, output: fromAgent.writable, signal: stop.signal };
      },
    };
    const peer = new NdjsonPeer(toAgent.writable, fromAgent.readable);
    return { host: Object.assign(host, { acp: () => acp }), peer, stop, stderr: () => host.stderr, opened: () => opened };
  }

  test("bad options, and a script that is missing or invalid, exit 2 before serving", async () => {
    for (const [argv, message] of [
      [["acp", "--composition", "everything"], '--composition must be one of bash-glob-grep, coding, got "everything"'],
      [["acp", "--model", "gemini:pro"], '--model takes PROVIDER:MODEL with PROVIDER one of openai, anthropic; got "gemini:pro"'],
      [["acp", "--model", "openai:"], '--model "openai:" names no model; write openai:MODEL'],
      [["acp", "--model", "openai:gpt-4.1"], "openai needs an API key: set OPENAI_API_KEY (or name another variable with --api-key-env)"],
      [["acp", "--model", "anthropic:claude", "--api-key-env", "MY_KEY"], "anthropic needs an API key: set MY_KEY"],
      [["acp", "--model", "openai:m", "--api-key-env", "MY_KEY", "--base-url", "http://127.0.0.1:1/v1"], "openai needs an API key: set MY_KEY"],
      [["acp", "--model", "openai:m", "--script", "s.json"], "give --model or --script, not both"],
      [["acp", "--base-url", "http://127.0.0.1:1/v1"], "--base-url goes with --model"],
      [["acp", "--model", "openai:m", "--base-url", "127.0.0.1:8080"], '--base-url must be an http(s) URL, got "127.0.0.1:8080"'],
      [["acp", "--permission-mode", "maybe"], '--permission-mode must be one of ask, allow-edits, allow-all, got "maybe"'],
      [["acp", "--sandbox", "none"], '--sandbox must be one of read-only, workspace-write, full-access, got "none"'],
      [["acp", "--max-steps", "0"], '--max-steps takes a positive whole number, got "0"'],
      [["acp", "--script"], "--script needs a value"],
      [["acp", "--root", "/"], "acp does not take --root"],
      [["acp", "--composition=everything"], '--composition must be one of bash-glob-grep, coding, got "everything"'],
      [["acp", "--max-steps=0"], '--max-steps takes a positive whole number, got "0"'],
      [["acp", "--permission-mode=maybe"], '--permission-mode must be one of ask, allow-edits, allow-all, got "maybe"'],
      [["acp", "--backend=memory"], '--backend must be one of node, overlay, got "memory"'],
      [["acp", "--network=on"], "--network takes no value"],
      [["acp", "--script=none.json"], "--script none.json: cannot read it (ENOENT: none.json)"],
      [["acp", "stray"], "acp does not take stray"],
      [["acp", "--script", "none.json"], "--script none.json: cannot read it (ENOENT: none.json)"],
      [["acp", "--script", "bad.json"], "--script bad.json: The script is not valid: turns: Too small"],
      [["acp", "--sandbox", "open"], "--sandbox must be one of read-only, workspace-write, full-access"],
      [["acp", "--deny", "[x"], 'deny pattern "[x" is not a valid glob'],
    ] as const) {
      const { host, stderr, opened } = acpHost({ "bad.json": '{"turns":[]}' });
      expect(await runCli(argv, host), argv.join(" ")).toBe(2);
      expect(stderr()).toContain(`toolfs: ${message}`);
      expect(opened(), "stdin was not touched").toBe(false);
    }
    const withoutAcp = memoryHost({});
    expect(await runCli(["acp"], withoutAcp)).toBe(2);
    expect(withoutAcp.stderr).toBe("toolfs: acp cannot run on this runtime\n");
  });

  test("--flag=value reads as --flag value", async () => {
    const { host, peer, stop, stderr } = acpHost({ "s.json": '{"turns":[{"text":"hi"}]}' });
    const status = runCli(["acp", "--script=s.json", "--composition=coding", "--permission-mode=allow-all", "--max-steps=3"], host);
    const init = await peer.request("initialize", { protocolVersion: 1 });
    expect(init.result).toMatchObject({ agentInfo: { title: "toolfs (coding)" } });
    stop.abort();
    expect(await status).toBe(0);
    expect(stderr()).toBe("");
  });

  test("serves the protocol on the host's streams until the host's signal fires; stdout stays untouched", async () => {
    const { host, peer, stop, stderr } = acpHost({ "s.json": '{"turns":[{"text":"hi"}]}' });
    const status = runCli(["acp", "--script", "s.json"], host);
    const init = await peer.request("initialize", { protocolVersion: 1 });
    expect(init.result).toMatchObject({ agentInfo: { title: "toolfs (bash-glob-grep)" } });
    stop.abort();
    expect(await status).toBe(0);
    expect([host.stdout, stderr()]).toEqual(["", ""]);
  });
});

describe("toolfs acp on a failing input", () => {
  test("exits 1 and says why, rather than 0 as if the client had left", async () => {
    const host = memoryHost({});
    const input = new ReadableStream<Uint8Array>({ pull: (controller) => controller.error(new Error("EIO: i/o error, read")) });
    const acp: AcpHost = {
      runtime: nodeRuntime(),
      readText: async () => '{"turns":[{"text":"hi"}]}',
      env: () => undefined,
      stdio: () => ({ input, output: new WritableStream<Uint8Array>() }),
    };
    expect(await runCli(["acp", "--script", "s.json"], Object.assign(host, { acp: () => acp }))).toBe(1);
    expect(host.stderr).toBe("toolfs acp: the client's input failed: EIO: i/o error, read\n");
  });
});

describe("--backend overlay", () => {
  function overlayHost(files: Record<string, string>) {
    const volume = createMemoryVolume();
    const fs = createMemoryProvider({ volume, cwd: "/ws", files });
    const host = memoryHost({});
    host.provider = async () => fs;
    return { host, volume };
  }
  const readEdit = ["read", '{"path":"a.txt"}', "edit", '{"path":"a.txt","old_string":"one","new_string":"two"}'];

  test("the calls run on the overlay; the patch is printed and the tree is left as it was", async () => {
    const { host, volume } = overlayHost({ "a.txt": "one\n" });
    expect(await runCli([...readEdit, "write", '{"path":"new/b.txt","content":"b\\n"}', "--backend", "overlay"], host)).toBe(0);
    expect(host.stdout).toContain("Edited a.txt: replaced 1 occurrence at line 1");
    expect(host.stdout.slice(host.stdout.indexOf("\n### patch"))).toBe(
      [
        "",
        "### patch (2 files changed; not applied, --commit applies them)",
        "diff --git a/a.txt b/a.txt",
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -1,1 +1,1 @@",
        "-one",
        "+two",
        "diff --git a/new/b.txt b/new/b.txt",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/new/b.txt",
        "@@ -0,0 +1,1 @@",
        "+b",
        "",
      ].join("\n"),
    );
    expect([String(volume.readFileSync("/ws/a.txt")), volume.existsSync("/ws/new")]).toEqual(["one\n", false]);
  });

  test("bash is not offered on the overlay, and only a user who asked for it is told why", async () => {
    const { host } = overlayHost({ "a.txt": "one\n" });
    const withRunner = Object.assign(host, { runner: createNodeProcessRunner() });
    expect(await runCli(["read", '{"path":"a.txt"}', "--backend", "overlay"], withRunner)).toBe(0);
    expect(withRunner.stderr).toBe("");
    expect(await runCli(["bash", '{"command":"touch x"}', "--backend", "overlay"], withRunner)).toBe(1);
    expect(withRunner.stderr).toBe("toolfs: bash is not offered with --backend overlay: its commands would change the real files\n");
    expect(withRunner.stdout).toContain(`Unknown tool "bash"`);
  });

  test("--commit applies the patch and says what it committed", async () => {
    const { host, volume } = overlayHost({ "a.txt": "one\n" });
    expect(await runCli([...readEdit, "--backend", "overlay", "--commit"], host)).toBe(0);
    expect(host.stdout).toContain("### patch (1 file changed)\ndiff --git a/a.txt b/a.txt");
    expect(host.stdout).toContain("\n### commit\nCommitted 1 file: a.txt\n");
    expect(String(volume.readFileSync("/ws/a.txt"))).toBe("two\n");
  });

  test("--commit over a file another writer changed meanwhile commits nothing, lists the conflict and exits 1", async () => {
    const { host, volume } = overlayHost({ "a.txt": "one\n", "b.txt": "b\n" });
    const out = host.out;
    host.out = (text: string) => {
      // While the patch is on the screen, someone saves a.txt.
      if (text.includes("### patch")) volume.writeFileSync("/ws/a.txt", "theirs\n");
      out(text);
    };
    const calls = [...readEdit, "read", '{"path":"b.txt"}', "edit", '{"path":"b.txt","old_string":"b","new_string":"c"}'];
    expect(await runCli([...calls, "--backend", "overlay", "--commit"], host)).toBe(1);
    expect(host.stdout.slice(host.stdout.indexOf("\n### commit"))).toBe(
      '\n### commit\nNothing was committed; 1 conflict:\n  a.txt (modified): "a.txt" was changed in the base by another writer after the overlay read it\nNot committed: a.txt, b.txt\n',
    );
    expect([String(volume.readFileSync("/ws/a.txt")), String(volume.readFileSync("/ws/b.txt"))]).toEqual(["theirs\n", "b\n"]);
  });

  test("--commit holds back when a call failed, and --commit needs the overlay", async () => {
    const { host, volume } = overlayHost({ "a.txt": "one\n" });
    expect(await runCli([...readEdit, "read", '{"path":"missing.txt"}', "--backend", "overlay", "--commit"], host)).toBe(1);
    expect(host.stdout).toContain("Nothing was committed: a call failed.");
    expect(String(volume.readFileSync("/ws/a.txt"))).toBe("one\n");
    const plain = memoryHost({});
    expect(await runCli(["tools", "--commit"], plain)).toBe(2);
    expect(plain.stderr).toContain("--commit goes with --backend overlay");
  });
});
