// Deno as the README says to use it: the Deno CLI offers the same tools as the Node one (glob and grep on the
// engine when Deno may not run ripgrep, bash where it may run its helpers), its README line runs as written, and
// a program outside the clone imports the sources with the clone's deno.json as its config.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { rgPath } from "@vscode/ripgrep";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const root = new URL("..", import.meta.url).pathname;
const deno = join(root, "node_modules/.bin/deno");
const readme = readFileSync(join(root, "README.md"), "utf8");
let base: string;
let dir: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-deno-cli-")));
  dir = join(base, "ws");
  mkdirSync(dir);
  writeFileSync(join(dir, "a.txt"), "hello TODO\n");
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function denoRun(args: string[], cwd = root) {
  try {
    const { stdout, stderr } = await promisify(execFile)(deno, args, { cwd, env: { ...process.env, NO_COLOR: "1" } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const cli = (permissions: string[], args: string[]) =>
  denoRun(["run", "--no-prompt", ...permissions, join(root, "adapters/cli/main.deno.ts"), "--root", dir, ...args]);

describe("the Deno CLI", { timeout: 120_000 }, () => {
  test("offers the six tools, as the Node CLI does", async () => {
    const { stdout } = await cli(["--allow-read"], ["tools"]);
    expect((JSON.parse(stdout) as { name: string }[]).map((d) => d.name)).toEqual(["read", "write", "edit", "glob", "grep", "bash"]);
  });

  test("with read only: glob and grep answer on the engine, and bash names the grant it lacks", async () => {
    const { code, stdout } = await cli(["--allow-read"], ["glob", '{"pattern":"*"}', "grep", '{"pattern":"TODO"}', "bash", '{"command":"echo ran"}']);
    expect(stdout).toContain('### glob {"pattern":"*"}\na.txt\n');
    expect(stdout).toContain("Found 1 match in 1 file.\n\na.txt\n  1: hello TODO\n");
    expect(stdout).toContain("grant --allow-run=setsid,kill,ps as well. Nothing was run; tell the user.");
    expect(code).toBe(1);
  });

  test("with ripgrep and bash's helpers permitted, every call succeeds", async () => {
    const permissions = ["--allow-read", "--allow-env=npm_config_arch", `--allow-run=${rgPath},bash,setsid,kill,ps`];
    const { code, stdout } = await cli(permissions, ["glob", '{"pattern":"*"}', "grep", '{"pattern":"TODO"}', "bash", '{"command":"echo ran"}']);
    expect(stdout).toContain('### glob {"pattern":"*"}\na.txt\n');
    expect(stdout).toContain("a.txt\n  1: hello TODO\n");
    expect(stdout).toContain("ran\n[exit code: 0]\n");
    expect(code).toBe(0);
  });

  test("the README's Deno line runs as written from the clone", async () => {
    const line = /^npx deno (run .+main.deno\.ts .+)$/m.exec(readme)?.[1];
    expect(line).toBeDefined();
    const args = line!.match(/'[^']*'|\S+/g)!.map((a) => a.replace(/^'|'$/g, ""));
    const { code, stdout } = await denoRun(args);
    expect(stdout).toContain('### glob {"pattern":"deno.json"}\ndeno.json\n');
    expect(stdout).toMatch(/Found 1 match in 1 file\.\n\ndeno\.json\n {2}\d+: {3}"nodeModulesDir": "manual",\n/);
    expect(code).toBe(0);
  });
});

test("a program outside the clone imports its sources with --config <clone>/deno.json, as the README says", { timeout: 120_000 }, async () => {
  expect(readme).toContain("runs with `--config\n/path/to/toolfs/deno.json`");
  const program = join(base, "use.ts");
  writeFileSync(
    program,
    [
      `import { createToolkit } from ${JSON.stringify(join(root, "core/public.ts"))};`,
      `import { createDenoProvider } from ${JSON.stringify(join(root, "adapters/deno/mod.ts"))};`,
      "const tools = createToolkit({ fs: createDenoProvider({ cwd: Deno.args[0] }) });",
      'console.log((await tools.call("read", { path: "a.txt" })).content);',
    ].join("\n"),
  );
  const withConfig = await denoRun(["run", "--no-prompt", "--allow-read", "--config", join(root, "deno.json"), program, dir], base);
  expect(withConfig.stdout).toBe("1: hello TODO\n\n(End of file: 1 line.)\n");
  const without = await denoRun(["run", "--no-prompt", "--allow-read", program, dir], base);
  expect(without.code).not.toBe(0);
  // Which bare specifier Deno names first follows its walk of the module graph; any of the package's is the point.
  expect(without.stderr).toMatch(/Import "(zod|re2js|diff|@vscode\/ripgrep|eventsource-parser)" not a dependency/);
});
