// The bash tool over a scripted runner: the process it asks for, and when the toolkit registers it. Real
// processes are test/bash-cases.ts.
import { describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { bashOffer, createToolkit, fromWholeResults, type ProcessRunner, type ProcessSpec } from "../core/mod.ts";

function scripted(output = "", exitCode = 0) {
  const specs: ProcessSpec[] = [];
  const runner: ProcessRunner = {
    async run(spec) {
      specs.push(spec);
      spec.stdout?.write(new TextEncoder().encode(output), "stdout");
      return { exitCode, signal: null, forced: false };
    },
  };
  return { runner, specs };
}

const fs = () => createMemoryProvider({ cwd: "/ws", files: { "a.txt": "x" } });

describe("bash", () => {
  test("runs bash -c in the call's cwd with one sink for both streams and the timeout in milliseconds", async () => {
    const { runner, specs } = scripted("hi\n");
    const kit = createToolkit({ fs: fs(), runner, tools: ["bash"] });
    expect((await kit.call("bash", { command: "echo hi" })).content).toBe("hi\n[exit code: 0]");
    await kit.call("bash", { command: "ls", timeout: 2.5 }, { cwd: "/ws/sub" });
    expect(specs.map((s) => [s.command, s.args, s.cwd, s.timeoutMs])).toEqual([
      ["bash", ["-c", "echo hi"], "/ws", 120_000],
      ["bash", ["-c", "ls"], "/ws/sub", 2500],
    ]);
    expect(specs[0]!.stdout).toBe(specs[0]!.stderr);
  });

  test("the schema states the unit, the default and the maximum from the limits", () => {
    const kit = createToolkit({ fs: fs(), runner: scripted().runner, tools: ["bash"], limits: { bashTimeoutMs: 30_000, bashMaxTimeoutMs: 90_000 } });
    const timeout = (kit.definitions[0]!.inputSchema.properties as Record<string, Record<string, unknown>>).timeout!;
    expect(timeout).toMatchObject({ type: "number", maximum: 90, description: "Seconds before the command is killed (default 30, at most 90)" });
    expect(kit.guidance).toContain("[exit code: N]");
  });

  test("a runner adds bash to the default tools; without one, a listed bash says why it cannot run", async () => {
    const { runner } = scripted();
    expect(createToolkit({ fs: fs(), runner }).definitions.map((d) => d.name)).toEqual(["read", "write", "edit", "bash"]);
    const without = await createToolkit({ fs: fs(), tools: ["bash"] }).call("bash", { command: "true" });
    expect([without.error?.code, without.content]).toEqual([
      "TOOL_UNAVAILABLE",
      "bash cannot run in this session: no process runner was configured. Nothing was run; tell the user.",
    ]);
  });

  test("a runner that cannot stop background jobs: bash says so in the guidance and refuses every command, running nothing", async () => {
    let gap: string | undefined = "Deno is not permitted to run kill, ps; grant --allow-run=kill,ps as well";
    const { runner, specs } = scripted("ran");
    const kit = createToolkit({ fs: fs(), runner: Object.assign(runner, { treeStopGap: () => gap }) });
    expect(kit.definitions.map((d) => d.name)).toContain("bash");
    expect(kit.guidance).toContain("bash cannot run in this session: Deno is not permitted to run kill, ps; grant --allow-run=kill,ps as well.");
    expect(kit.guidance).not.toContain("Background jobs are killed");
    const refused = await kit.call("bash", { command: "sleep 1000 &" });
    expect([refused.error?.code, refused.content]).toEqual([
      "TOOL_UNAVAILABLE",
      "bash cannot run in this session: Deno is not permitted to run kill, ps; grant --allow-run=kill,ps as well. Nothing was run; tell the user.",
    ]);
    expect(specs).toEqual([]);
    // Asked on every call: once the runner can stop trees, commands run.
    gap = undefined;
    expect((await kit.call("bash", { command: "true" })).content).toBe("ran\n[exit code: 0]");
  });

  test("without OS confinement, a confining sandbox or a deny list leaves bash out, says why, and refuses it when listed", async () => {
    const { runner } = scripted();
    const sandboxed = createToolkit({ fs: fs(), runner, sandbox: { mode: "workspace-write" } });
    expect(sandboxed.definitions.map((d) => d.name)).toEqual(["read", "write", "edit"]);
    expect(sandboxed.withheld.bash).toMatch(/^bash is not available: its commands cannot be held to the workspace-write sandbox here \(no OS confinement/);
    const asked = await sandboxed.call("bash", { command: "ls" });
    expect([asked.error?.code, asked.content]).toEqual(["TOOL_UNKNOWN", `${sandboxed.withheld.bash}; available: read, write, edit`]);
    expect(() => createToolkit({ fs: fs(), runner, tools: ["bash"], sandbox: { mode: "read-only" } })).toThrow(/cannot be held to the read-only sandbox/);
    const missing = { kind: "bubblewrap", available: false, program: "bwrap", reason: "bubblewrap (bwrap) is not installed" } as const;
    expect(bashOffer({ mode: "read-only", confinement: missing })).toEqual({
      offered: false,
      reason: "bash is not available: its commands cannot be held to the read-only sandbox here (bubblewrap (bwrap) is not installed)",
    });
    expect(bashOffer({ mode: "full-access", deny: [".env"], confinement: missing }).offered).toBe(false);
    expect(bashOffer({ mode: "full-access", readScope: "workspace" })).toMatchObject({
      offered: false,
      reason: expect.stringContaining("the workspace read scope"),
    });
    expect(bashOffer({ mode: "full-access" })).toEqual({ offered: true, confined: false });
    expect(bashOffer(undefined)).toEqual({ offered: true, confined: false });
    expect(createToolkit({ fs: fs(), runner, sandbox: { mode: "full-access" } }).definitions.map((d) => d.name)).toContain("bash");
  });

  test("with OS confinement, bash is offered under every mode and each command runs inside bubblewrap", async () => {
    const { runner, specs } = scripted("ok\n");
    const confinement = { kind: "bubblewrap", available: true, program: "/usr/bin/bwrap" } as const;
    const volume = { "a.txt": "x", ".git/config": "[core]\n", "keys/id": "k", "sub/.env": "e" };
    for (const mode of ["read-only", "workspace-write", "full-access"] as const) {
      expect(bashOffer({ mode, confinement })).toEqual({ offered: true, confined: mode !== "full-access" });
      const kit = createToolkit({
        fs: createMemoryProvider({ cwd: "/ws", files: volume }),
        runner,
        sandbox: { mode, confinement, deny: ["keys", ".env"], writableRoots: ["/tmp"] },
      });
      expect(kit.definitions.map((d) => d.name)).toContain("bash");
      expect((await kit.call("bash", { command: "ls" })).content).toBe("ok\n[exit code: 0]");
    }
    // bubblewrap is started by a small bash launcher that hands it the seccomp filter on fd 3; the filter is
    // longer without the network (full-access keeps it by default).
    const [readOnly, workspaceWrite, fullAccess] = specs.map((spec) => {
      expect([spec.command, spec.args![2], spec.args![4], ...spec.args!.slice(5, 7)]).toEqual(["bash", "toolfs-confine", "/usr/bin/bwrap", "--seccomp", "3"]);
      return { args: spec.args!.slice(7), cwd: spec.cwd, filter: spec.args![3]! };
    });
    expect(readOnly!.filter).toBe(workspaceWrite!.filter);
    expect(fullAccess!.filter.length).toBeLessThan(readOnly!.filter.length);
    const tail = [
      "--ro-bind",
      "/dev/null",
      "/ws/sub/.env",
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
    const masks = ["--perms", "0000", "--tmpfs", "/ws/keys", "--remount-ro", "/ws/keys"];
    expect([readOnly!.args, readOnly!.cwd]).toEqual([
      ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc", ...masks, ...tail],
      "/ws",
    ]);
    // /tmp does not exist in this volume, so only the workspace is bound; .git exists and is bound read-only again.
    expect(workspaceWrite!.args).toEqual([
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--remount-ro",
      "/proc",
      "--bind",
      "/ws",
      "/ws",
      "--ro-bind-try",
      "/ws/.git",
      "/ws/.git",
      ...masks,
      ...tail,
    ]);
    expect(fullAccess!.args).toEqual([
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
      ...masks,
      ...tail.filter((arg) => arg !== "--unshare-net"),
    ]);
  });

  test("the description and the guidance say what a confined bash may do, and only that", () => {
    const confinement = { kind: "bubblewrap", available: true, program: "bwrap" } as const;
    const kit = createToolkit({
      fs: fs(),
      runner: scripted().runner,
      tools: ["bash"],
      sandbox: {
        mode: "workspace-write",
        confinement,
        writableRoots: ["/tmp"],
        protectedPaths: ["dist"],
        readScope: "workspace",
        readableRoots: ["/docs"],
        deny: [".env"],
        network: true,
      },
    });
    const said =
      "sandboxed: files can be written only in /ws, /tmp (not in .git, dist); only /ws, /tmp, /docs, the system directories are visible; " +
      'paths matching ".env" are hidden; the network is reachable.';
    expect(kit.definitions[0]!.description).toContain(`Commands run ${said}`);
    expect(kit.guidance).toContain(`bash commands run ${said}`);
    const readOnly = createToolkit({ fs: fs(), runner: scripted().runner, tools: ["bash"], sandbox: { mode: "read-only", confinement } });
    expect(readOnly.definitions[0]!.description).toContain("Commands run sandboxed: no file can be written; there is no network.");
  });

  test("under the workspace read scope, a command cannot start in a directory outside it", async () => {
    const { runner, specs } = scripted();
    const confinement = { kind: "bubblewrap", available: true, program: "bwrap" } as const;
    const kit = createToolkit({ fs: fs(), runner, tools: ["bash"], sandbox: { mode: "read-only", confinement, readScope: "workspace" } });
    const result = await kit.call("bash", { command: "ls" }, { cwd: "/etc" });
    expect(result.error?.code).toBe("FS_SANDBOX_DENIED");
    expect(specs).toEqual([]);
  });

  test("a default timeout above the maximum is a configuration error", () => {
    expect(() => createToolkit({ fs: fs(), limits: { bashTimeoutMs: 700_000 } })).toThrow(RangeError);
  });

  test("glob's guidance points at ls only when bash is there", () => {
    const search = fromWholeResults({ name: "none", files: async () => ({ paths: [], problems: [] }), grep: async () => ({ files: [], problems: [] }) });
    expect(createToolkit({ fs: fs(), search, tools: ["glob"] }).guidance).not.toContain("bash");
    expect(createToolkit({ fs: fs(), search, runner: scripted().runner, tools: ["glob", "bash"] }).guidance).toContain("use ls in bash");
  });
});
