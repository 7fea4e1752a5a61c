// The process-runner cases both runtimes run against real processes: vitest registers them for the Node
// runner, `deno test` for the Deno one. Runtime-neutral on purpose: everything they need from the system
// (scratch directories, which processes survive) they ask bash through the runner under test.
import { assert, assertEquals } from "../conformance/mod.ts";
import { BoundedCollector, HeadTailCollector, isProcessError, type ProcessRunner, type ProcessSpec } from "../core/mod.ts";

type Register = (name: string, fn: () => Promise<void>) => void;

/** Runs bash and returns its stdout; fails the case on anything but exit 0. */
export async function bash(runner: ProcessRunner, script: string, args: readonly string[] = [], spec: Partial<ProcessSpec> = {}): Promise<string> {
  const out = new BoundedCollector({ maxBytes: 1 << 20 });
  const result = await runner.run({ command: "bash", args: ["-c", script, "bash", ...args], stdout: out, ...spec });
  assertEquals(result.exitCode, 0, `exit code of ${JSON.stringify(script)}`);
  return out.text();
}

/** The pids among `pids` that still run (zombies have exited and do not count). */
export async function survivors(runner: ProcessRunner, pids: readonly string[]): Promise<string[]> {
  const script = 'for p in "$@"; do s=$(ps -o stat= -p "$p"); case "$s" in ""|Z*) ;; *) echo "$p";; esac; done';
  return (await bash(runner, script, pids)).split("\n").filter(Boolean);
}

/** Collects stdout lines and calls `onLines` after each chunk. */
function lines(onLines?: (lines: string[]) => void) {
  const seen: string[] = [];
  let partial = "";
  return {
    seen,
    sink: {
      write(chunk: Uint8Array) {
        const parts = (partial + new TextDecoder().decode(chunk)).split("\n");
        partial = parts.pop() ?? "";
        seen.push(...parts);
        onLines?.(seen);
      },
    },
  };
}

// A tree: two background grandchildren, one of which ignores SIGTERM (an ignored signal stays ignored across
// exec), then the script's own pid; it waits forever.
const TREE = `(trap '' TERM; exec sleep 1000) & echo $!; sleep 1000 & echo $!; echo $$; wait`;

export function registerProcessCases(test: Register, runner: ProcessRunner, prefix: string): void {
  const name = (text: string) => `${prefix} process runner: ${text}`;

  test(name("every argument arrives as one inert element, with no shell in between"), async () => {
    const dir = (await bash(runner, "mktemp -d")).trim();
    try {
      const hostile = ["$(touch pwned)", "`touch pwned`", "a b", "'\"", "-e", "--pre=sh", "line1\nline2", "*", "", "; touch pwned"];
      const out = await bash(runner, 'printf "%s\\0" "$@"', hostile, { cwd: dir });
      assertEquals(out.split("\0").slice(0, -1), hostile, "arguments");
      assertEquals(await bash(runner, "ls -A", [], { cwd: dir }), "", "files created");
    } finally {
      await bash(runner, 'rm -rf -- "$1"', [dir]);
    }
  });

  test(name("stdin is closed, so a program that reads it sees the end at once"), async () => {
    const out = await bash(runner, "cat; echo done", [], { timeoutMs: 20_000 });
    assertEquals(out, "done\n", "output");
  });

  test(name("exit codes and signals are reported as such"), async () => {
    assertEquals(await runner.run({ command: "bash", args: ["-c", "exit 7"] }), { exitCode: 7, signal: null, forced: false }, "exit 7");
    assertEquals(await runner.run({ command: "bash", args: ["-c", "kill -KILL $$"] }), { exitCode: null, signal: "SIGKILL", forced: false }, "self-kill");
  });

  test(name("a timeout stops the whole tree, killing what ignores SIGTERM after the grace"), async () => {
    const out = lines();
    const result = await runner.run({ command: "bash", args: ["-c", TREE], stdout: out.sink, timeoutMs: 1000, graceMs: 200 });
    assertEquals(result.stopReason, "timeout", "stop reason");
    assertEquals(result.forced, true, "forced");
    assertEquals(out.seen.length, 3, "pids printed");
    assertEquals(await survivors(runner, out.seen), [], "survivors");
  });

  test(name("an abort stops the whole tree"), async () => {
    const controller = new AbortController();
    const out = lines((seen) => seen.length === 3 && controller.abort());
    const result = await runner.run({ command: "bash", args: ["-c", TREE], stdout: out.sink, signal: controller.signal, graceMs: 200 });
    assertEquals(result.stopReason, "abort", "stop reason");
    assertEquals(await survivors(runner, out.seen), [], "survivors");
  });

  test(name("descendants left running by a program that exited are stopped too"), async () => {
    const out = lines();
    const script = "(trap '' TERM; exec sleep 1000) & echo $!; sleep 1000 & echo $!; exit 0";
    const result = await runner.run({ command: "bash", args: ["-c", script], stdout: out.sink, graceMs: 200 });
    assertEquals(result, { exitCode: 0, signal: null, forced: true }, "result");
    assertEquals(await survivors(runner, out.seen), [], "survivors");
  });

  test(name("a sink that has enough stops the process"), async () => {
    const pid = lines();
    const budget = new BoundedCollector({ maxBytes: 10_000, stopOnOverflow: true });
    const result = await runner.run({
      command: "bash",
      args: ["-c", "echo $$ >&2; exec yes"],
      stdout: budget,
      stderr: pid.sink,
    });
    assertEquals(result.stopReason, "output", "stop reason");
    assert(budget.overflowed && budget.bytes().length === 10_000, "the budget keeps its first 10000 bytes");
    assertEquals(await survivors(runner, pid.seen), [], "survivors");
  });

  test(name("one head/tail collector takes both streams and counts what it left out"), async () => {
    const both = new HeadTailCollector({ headBytes: 100, tailBytes: 100 });
    const script = "head -c 50000 /dev/zero | tr '\\0' a; printf 'e%.0s' $(seq 1000) >&2";
    await runner.run({ command: "bash", args: ["-c", script], stdout: both, stderr: both });
    assertEquals(both.totalBytes, 51_000, "bytes written");
    assertEquals(both.omittedBytes, 50_800, "bytes left out");
    const text = both.text((n) => `[${n}]`);
    assert(text.includes("[50800]") && text.length === 100 + "[50800]".length + 100, `rendered: ${text.length} characters`);
  });

  test(name("environment changes set and remove variables"), async () => {
    const out = await bash(runner, 'echo "${HOME:-empty} ${TOOLFS_SET}"', [], { env: { HOME: undefined, TOOLFS_SET: "set" } });
    assertEquals(out, "empty set\n", "output");
  });

  test(name("a program that cannot be started is a ProcessError, not a crash"), async () => {
    const missingCwd = await runner.run({ command: "bash", args: ["-c", "true"], cwd: "/nonexistent/toolfs" }).catch((e: unknown) => e);
    assert(isProcessError(missingCwd, "PROCESS_BAD_CWD"), `missing cwd: ${String(missingCwd)}`);
    const fileCwd = await runner.run({ command: "bash", args: ["-c", "true"], cwd: "/etc/passwd" }).catch((e: unknown) => e);
    assert(isProcessError(fileCwd, "PROCESS_BAD_CWD"), `file as cwd: ${String(fileCwd)}`);
    const nul = await runner.run({ command: "bash", args: ["-c", "true", "a\0b"] }).catch((e: unknown) => e);
    assert(isProcessError(nul, "PROCESS_INVALID_ARGUMENT"), `NUL byte: ${String(nul)}`);
    // Not found where the runtime may look for it; under Deno without a grant, not permitted either.
    const missing = await runner.run({ command: "toolfs-no-such-program" }).catch((e: unknown) => e);
    assert(isProcessError(missing, "PROCESS_NOT_FOUND") || isProcessError(missing, "PROCESS_PERMISSION_DENIED"), `missing program: ${String(missing)}`);
  });
}

/**
 * Cases for a runner that can list no processes (no /proc, no ps: macOS for Node, a Deno without `ps` or a
 * read grant for /proc). A stop must still reach the whole tree through its process group, and the group's
 * liveness must come from probing it, not from the child alone: without that, a grandchild that ignores
 * SIGTERM outlives its parent.
 */
export function registerTablelessCases(test: Register, runner: ProcessRunner, prefix: string): void {
  const name = (text: string) => `${prefix} process runner without a process table: ${text}`;

  test(name("a timeout stops the whole tree, killing what ignores SIGTERM after the grace"), async () => {
    const out = lines();
    const result = await runner.run({ command: "bash", args: ["-c", TREE], stdout: out.sink, timeoutMs: 1000, graceMs: 200 });
    assertEquals(result.stopReason, "timeout", "stop reason");
    assertEquals(out.seen.length, 3, "pids printed");
    assertEquals(await survivors(runner, out.seen), [], "survivors");
  });

  test(name("descendants left running by a program that exited are stopped too"), async () => {
    const out = lines();
    const script = "(trap '' TERM; exec sleep 1000) & echo $!; sleep 1000 & echo $!; exit 0";
    const result = await runner.run({ command: "bash", args: ["-c", script], stdout: out.sink, graceMs: 200 });
    assertEquals([result.exitCode, result.forced], [0, true], "exit code, forced");
    assertEquals(await survivors(runner, out.seen), [], "survivors");
  });
}
