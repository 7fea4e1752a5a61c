// The bash tool against real processes, registered by vitest for the Node runner and by `deno test` for the
// Deno one: what the model reads for each way a command can end, and that nothing it started survives.
import { assert, assertEquals } from "../conformance/mod.ts";
import { createToolkit, type FileSystem, type ProcessRunner, type Toolkit, type ToolLimits } from "../core/mod.ts";
import { bash, survivors } from "./process-cases.ts";

type Register = (name: string, fn: () => Promise<void>) => void;

export interface BashCaseRuntime {
  readonly runner: ProcessRunner;
  provider(cwd: string): FileSystem;
}

export function registerBashCases(test: Register, runtime: BashCaseRuntime, prefix: string): void {
  const name = (text: string) => `${prefix} bash tool: ${text}`;
  const { runner } = runtime;

  async function withKit(fn: (kit: Toolkit, cwd: string) => Promise<void>, limits: Partial<ToolLimits> = {}): Promise<void> {
    const cwd = (await bash(runner, 'cd "$(mktemp -d)" && pwd -P')).trim();
    try {
      await fn(createToolkit({ fs: runtime.provider(cwd), runner, tools: ["bash"], limits }), cwd);
    } finally {
      await bash(runner, 'rm -rf -- "$1"', [cwd]);
    }
  }

  test(name("stdout and stderr come back together, then the exit code"), () =>
    withKit(async (kit, cwd) => {
      const result = await kit.call("bash", { command: "pwd; echo oops >&2; exit 3" });
      assertEquals(result.isError, false, "isError");
      const lines = result.content.split("\n");
      assertEquals([...lines.slice(0, 2)].sort(), [cwd, "oops"].sort(), "output lines");
      assertEquals(lines.slice(2), ["[exit code: 3]"], "exit line");
      assertEquals(result.meta, { exitCode: 3, signal: null, timedOut: false, outputBytes: cwd.length + 6, omittedBytes: 0 }, "meta");
      assertEquals((await kit.call("bash", { command: "true" })).content, "(no output)\n[exit code: 0]", "no output");
    }),
  );

  test(name("past the byte cap, whole lines from the start and the end, and the count of what was cut"), () =>
    withKit(
      async (kit) => {
        const result = await kit.call("bash", { command: "seq 1 20000" });
        const total = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join("").length;
        const marker = /\n\[\.\.\. (\d+) of (\d+) bytes omitted \.\.\.\]\n/.exec(result.content);
        assert(marker, `a marker in ${JSON.stringify(result.content.slice(0, 200))}…`);
        assertEquals(Number(marker[2]), total, "total bytes");
        const [head, tail] = result.content.split(marker[0]) as [string, string];
        assert(head.startsWith("1\n2\n3\n") && /\n\d+$/.test(head), "the head is whole lines from the start");
        assert(tail.endsWith("\n19999\n20000\n[exit code: 0]") && /^\d+\n/.test(tail), "the tail is whole lines to the end");
        const shown = new TextEncoder().encode(`${head}\n${tail.slice(0, -"[exit code: 0]".length)}`).length;
        assertEquals(shown + Number(marker[1]), total, "shown and omitted bytes add up");
        assertEquals(result.meta.omittedBytes, Number(marker[1]), "meta.omittedBytes");
      },
      { bashOutputBytes: 1000 },
    ),
  );

  test(name("a timeout stops the command and what it started, and says so"), () =>
    withKit(async (kit) => {
      const result = await kit.call("bash", { command: "sleep 60 & echo $!; wait", timeout: 0.5 });
      const [pid] = result.content.split("\n");
      assertEquals(result.content, `${pid}\n[timed out after 0.5 s and was stopped]\n[exit code: none, killed by SIGTERM]`, "content");
      assertEquals(result.meta.timedOut, true, "meta.timedOut");
      assertEquals(await survivors(runner, [pid!]), [], "survivors");
    }),
  );

  test(name("background jobs do not outlive a command that exits"), () =>
    withKit(async (kit) => {
      const result = await kit.call("bash", { command: "sleep 60 >/dev/null 2>&1 & echo $!" });
      const [pid, exit] = result.content.split("\n");
      assertEquals(exit, "[exit code: 0]", "exit line");
      assertEquals(await survivors(runner, [pid!]), [], "survivors");
    }),
  );

  test(name("a cancelled call stops the command: TOOL_ABORTED"), () =>
    withKit(async (kit) => {
      const controller = new AbortController();
      const call = kit.call("bash", { command: "echo started; sleep 60" }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 200);
      const result = await call;
      assertEquals(result.error?.code, "TOOL_ABORTED", "code");
      assert(result.content.endsWith("[cancelled; the command was stopped]"), result.content);
    }),
  );

  test(name("a timeout over the maximum, a blank command and a missing cwd are errors before anything runs"), () =>
    withKit(async (kit, cwd) => {
      const over = await kit.call("bash", { command: "true", timeout: 601 });
      assertEquals([over.error?.code, over.content], ["TOOL_INVALID_ARGUMENTS", "Invalid arguments for bash: timeout: timeout is at most 600 seconds"], "over");
      assertEquals((await kit.call("bash", { command: " " })).error?.code, "TOOL_INVALID_ARGUMENTS", "blank");
      assertEquals((await kit.call("bash", { command: "true" }, { cwd: `${cwd}/missing` })).error?.code, "PROCESS_BAD_CWD", "missing cwd");
    }),
  );
}
