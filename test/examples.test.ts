// The examples under examples/, run as written (against their scripted models) and type-checked as a user's
// project would check them, through the package's exports.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, test } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolfs-example-"));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/app.ts"), "export const retries = 3;\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (example: string) =>
  execFileSync(process.execPath, ["--import", "tsx", join(root, "examples", example), dir], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });

test("examples/ai-sdk.ts: a ToolLoopAgent greps, reads and edits through the toolfs ToolSet", () => {
  const output = run("ai-sdk.ts");
  expect(output).toBe(
    "[grep] Found 1 match in 1 file.\n[read] 1: export const retries = 3;\n[edit] Edited src/app.ts: replaced 1 occurrence at line 1 (+1 -1 lines).\nretries is now 5 in src/app.ts.\n",
  );
  expect(readFileSync(join(dir, "src/app.ts"), "utf8")).toBe("export const retries = 5;\n");
});

test("examples/openai-agents.ts: an Agent edits through strict function tools and creates a file through apply_patch", () => {
  expect(run("openai-agents.ts")).toBe("retries is now 5, and CHANGELOG.md records it.\n");
  expect(readFileSync(join(dir, "src/app.ts"), "utf8")).toBe("export const retries = 5;\n");
  expect(readFileSync(join(dir, "CHANGELOG.md"), "utf8")).toBe("# Changelog\n\n- retries is now 5\n");
});

test("examples/acp-ai-sdk.ts: the ACP agent, driven by an AI SDK mock model through createAiSdkModel, greps, reads and edits after asking", () => {
  expect(run("acp-ai-sdk.ts")).toBe(
    [
      '[tool] grep "retries" (*.ts)',
      "[tool] read in src/app.ts",
      "[tool] edit in src/app.ts",
      "[asked] edit in src/app.ts",
      "[agent] retries is now 5 ",
      "[agent] in src/app.ts.",
      "[stop] end_turn",
      "",
    ].join("\n"),
  );
  expect(readFileSync(join(dir, "src/app.ts"), "utf8")).toBe("export const retries = 5;\n");
});

test("the examples (and other code written as a user writes it) type-check against the built package", () => {
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  expect(() => execFileSync(process.execPath, [tsc, "-p", "test/consumers.tsconfig.json"], { cwd: root, stdio: "pipe" })).not.toThrow();
}, 180_000);

// A project without src/app.ts: the scripted model still claims success, so the example must not.
const runFailing = (example: string) => {
  rmSync(join(dir, "src"), { recursive: true });
  return spawnSync(process.execPath, ["--import", "tsx", join(root, "examples", example), dir], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
};

test("examples/ai-sdk.ts: when its read and edit fail it exits 1, names them, and prints no success line", () => {
  const { status, stdout, stderr } = runFailing("ai-sdk.ts");
  expect(stderr).toBe(
    'read failed (FS_NOT_FOUND): Cannot read "src/app.ts": no such file; use glob to find it\n' +
      'edit failed (FS_NOT_FOUND): Cannot edit "src/app.ts": it did not exist when last read; create it with write\n',
  );
  expect(stdout).not.toContain("retries is now 5");
  expect(status).toBe(1);
});

test("examples/openai-agents.ts: when its calls fail it exits 1 and names them, the refused apply_patch too", () => {
  writeFileSync(join(dir, "CHANGELOG.md"), "kept\n");
  const { status, stdout, stderr } = runFailing("openai-agents.ts");
  expect(stderr).toBe(
    'read failed (FS_NOT_FOUND): Cannot read "src/app.ts": no such file; use glob to find it\n' +
      'edit failed (FS_NOT_FOUND): Cannot edit "src/app.ts": it did not exist when last read; create it with write\n' +
      "apply_patch failed: Cannot create CHANGELOG.md: it already exists; update it instead\n",
  );
  expect(stdout).toBe("");
  expect(status).toBe(1);
  expect(readFileSync(join(dir, "CHANGELOG.md"), "utf8")).toBe("kept\n");
});

// The README's run commands for the examples, run as written from the clone (mktemp under a temp dir we remove).
const readme = readFileSync(join(root, "README.md"), "utf8");
const shBlock = (example: string) => [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes(`npx tsx examples/${example}`));

test.for([
  ["ai-sdk.ts", "[edit] Edited src/app.ts: replaced 1 occurrence at line 1 (+1 -1 lines).\nretries is now 5 in src/app.ts.\nexport const retries = 5;\n"],
  ["openai-agents.ts", "retries is now 5, and CHANGELOG.md records it.\n# Changelog\n\n- retries is now 5\n"],
] as const)("the README's commands for examples/%s run as written", { timeout: 120_000 }, ([example, ending]) => {
  const block = shBlock(example);
  expect(block).toBeDefined();
  const output = execFileSync("bash", ["-e", "-c", block!], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", TMPDIR: dir } });
  expect(output.endsWith(ending)).toBe(true);
});
