// The Node process runner against real processes: the shared cases, plus what Node reports distinctly.
import { expect, test } from "vitest";
import { createProcessRunner, isProcessError } from "../../core/mod.ts";
import { registerProcessCases, registerTablelessCases } from "../../test/process-cases.ts";
import { createNodeProcessRunner } from "./mod.ts";
import { nodeProcessDriverOver } from "./process.ts";

const runner = createNodeProcessRunner();

registerProcessCases(test, runner, "node");

test("node process runner: a missing program is PROCESS_NOT_FOUND, a file that is not executable PROCESS_PERMISSION_DENIED", async () => {
  const missing = await runner.run({ command: "toolfs-no-such-program" }).catch((e: unknown) => e);
  expect(isProcessError(missing, "PROCESS_NOT_FOUND")).toBe(true);
  const notExecutable = await runner.run({ command: "/etc/passwd" }).catch((e: unknown) => e);
  expect(isProcessError(notExecutable, "PROCESS_PERMISSION_DENIED")).toBe(true);
});

// As on macOS, which has no /proc: no process table at all.
registerTablelessCases(test, createProcessRunner(nodeProcessDriverOver(async () => undefined)), "node");
