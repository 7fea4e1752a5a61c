// The bash tool over a scripted runner: the process it asks for, and when the toolkit registers it. Real
// processes are test/bash-cases.ts.
import { describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createToolkit, type ProcessRunner, type ProcessSpec } from "../core/mod.ts";

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

  test("bash runs outside the fence: a confining sandbox leaves it out, and refuses it when listed", () => {
    const { runner } = scripted();
    const sandboxed = createToolkit({ fs: fs(), runner, sandbox: { mode: "workspace-write" } });
    expect(sandboxed.definitions.map((d) => d.name)).toEqual(["read", "write", "edit"]);
    expect(() => createToolkit({ fs: fs(), runner, tools: ["bash"], sandbox: { mode: "read-only" } })).toThrow(/outside the sandbox fence/);
    expect(createToolkit({ fs: fs(), runner, sandbox: { mode: "full-access" } }).definitions.map((d) => d.name)).toContain("bash");
  });

  test("a default timeout above the maximum is a configuration error", () => {
    expect(() => createToolkit({ fs: fs(), limits: { bashTimeoutMs: 700_000 } })).toThrow(RangeError);
  });

  test("glob's guidance points at ls only when bash is there", () => {
    const search = { name: "none", files: async () => ({ paths: [], problems: [] }), grep: async () => ({ files: [], problems: [] }) };
    expect(createToolkit({ fs: fs(), search, tools: ["glob"] }).guidance).not.toContain("bash");
    expect(createToolkit({ fs: fs(), search, runner: scripted().runner, tools: ["glob", "bash"] }).guidance).toContain("use ls in bash");
  });
});
