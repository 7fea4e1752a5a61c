// Run by test/deno-permissions.test.ts under `deno run` with chosen permissions: builds the toolkit the Deno
// hosts build, makes one call of each kind, and prints one JSON result per line, so the test can check what
// each missing permission makes the model (and the host) read.
// node:process rather than the Deno global, so that tsc checks this file with the rest of test/.
import process from "node:process";
import { createToolkit } from "../core/mod.ts";
import { createDenoProcessRunner, createDenoProvider, createDenoSearchBackend } from "../adapters/deno/mod.ts";

const workspace = process.argv[2] as string;
const runner = createDenoProcessRunner();
const kit = createToolkit({ fs: createDenoProvider({ cwd: workspace }), workspace, search: createDenoSearchBackend({ runner }), runner });
const print = (what: string, value: unknown) => console.log(JSON.stringify({ what, value }));

print("gap", runner.treeStopGap?.() ?? null);
print("guidance", kit.guidance);
for (const [tool, args] of [
  ["bash", { command: "echo ran" }],
  ["glob", { pattern: "*" }],
  ["read", { path: "a.txt" }],
] as const) {
  print(tool, await kit.call(tool, args));
}
try {
  const result = await runner.run({ command: "bash", args: ["-c", "true"], cwd: workspace });
  print("run", { exitCode: result.exitCode });
} catch (error) {
  print("run", { code: (error as { code?: string }).code, message: (error as Error).message });
}
