// Under Deno, a missing permission is named as such, never reported as a missing directory, a broken
// installation or a guarantee quietly dropped: the Deno CLI and the toolkit the Deno hosts build, run by a
// real `deno run` with too few permissions.
import { execFile } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const root = new URL("..", import.meta.url).pathname;
const deno = join(root, "node_modules/.bin/deno");
const run = promisify(execFile);
let dir: string;
let home: string;

beforeAll(() => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-deno-perms-")));
  dir = join(base, "ws");
  home = join(base, "home");
  mkdirSync(dir);
  mkdirSync(home);
  writeFileSync(join(dir, "a.txt"), "hello\n");
  writeFileSync(join(home, ".profile"), "export A=1\n");
});

afterAll(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

async function denoRun(permissions: string[], script: string, args: string[], env: Record<string, string> = {}) {
  const options = { cwd: root, env: { ...process.env, NO_COLOR: "1", ...env } };
  try {
    const { stdout, stderr } = await run(deno, ["run", "--no-prompt", ...permissions, join(root, script), ...args], options);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function probe(permissions: string[]): Promise<Record<string, { content?: string; error?: { code: string } } & Record<string, unknown>>> {
  const { stdout, stderr } = await denoRun(permissions, "test/deno-permissions-probe.ts", [dir]);
  const lines = stdout
    .trim()
    .split("\n")
    .filter((l) => l !== "");
  if (lines.length === 0) throw new Error(`the probe printed nothing: ${stderr}`);
  return Object.fromEntries(lines.map((l) => JSON.parse(l) as { what: string; value: never }).map(({ what, value }) => [what, value]));
}

describe("Deno permissions are named", { timeout: 120_000 }, () => {
  test("the CLI without --allow-read names the flag instead of calling the directory missing", async () => {
    const result = await denoRun([], "adapters/cli/main.deno.ts", ["--root", dir, "read", '{"path":"a.txt"}']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`toolfs: Deno is not permitted to read ${dir}; grant --allow-read\n`);
  });

  test("~ reads the home directory when HOME may be read, and is refused plainly when not", async () => {
    const call = ["--root", dir, "read", '{"path":"~/.profile"}'];
    const allowed = await denoRun(["--allow-read", "--allow-env=HOME"], "adapters/cli/main.deno.ts", call, { HOME: home });
    expect(allowed.stdout).toBe("1: export A=1\n\n(End of file: 1 line.)\n");
    const refused = await denoRun(["--allow-read"], "adapters/cli/main.deno.ts", [...call, "--json"], { HOME: home });
    const result = JSON.parse(refused.stdout);
    expect(result.error.code).toBe("TOOL_INVALID_ARGUMENTS");
    expect(result.content).toContain("the home directory is not known");
  });

  test("with read only: bash refuses naming setsid, kill and ps; glob names --allow-env; a run names --allow-run", async () => {
    const seen = await probe(["--allow-read"]);
    expect(seen.gap).toContain("grant --allow-run=setsid,kill,ps");
    expect(seen.guidance).toContain("bash cannot run in this session");
    expect(seen.guidance).not.toContain("Background jobs are killed");
    expect(seen.bash!.error!.code).toBe("TOOL_UNAVAILABLE");
    expect(seen.bash!.content).toContain("--allow-run=setsid,kill,ps");
    expect(seen.glob!.error!.code).toBe("SEARCH_FAILED");
    expect(seen.glob!.content).toContain("--allow-env=npm_config_arch");
    expect(seen.glob!.content).not.toContain("reinstall");
    expect(seen.read!.content).toBe("1: hello\n\n(End of file: 1 line.)");
    expect(seen.run).toEqual({ code: "PROCESS_PERMISSION_DENIED", message: 'Cannot start "bash": Deno is not permitted to run it; grant --allow-run=bash.' });
  });

  test("with no permission at all, files name --allow-read and a run is not blamed on its directory", async () => {
    const seen = await probe([]);
    expect(seen.read!.error!.code).toBe("FS_PERMISSION_DENIED");
    expect(seen.read!.content).toContain("grant --allow-read");
    expect(seen.run!.code).toBe("PROCESS_PERMISSION_DENIED");
  });

  test("setsid allowed but not kill and ps: the gap names exactly those two", async () => {
    const seen = await probe(["--allow-read", "--allow-run=bash,setsid"]);
    expect(seen.gap).toContain("Deno is not permitted to run kill, ps; grant --allow-run=kill,ps as well");
    expect(seen.bash!.error!.code).toBe("TOOL_UNAVAILABLE");
  });

  test("with setsid, kill and ps: no gap, the guidance promises the kill, and bash runs", async () => {
    const seen = await probe(["--allow-read", "--allow-run=bash,setsid,kill,ps"]);
    expect(seen.gap).toBeNull();
    expect(seen.guidance).toContain("Background jobs are killed");
    expect(seen.bash!.content).toBe("ran\n[exit code: 0]");
  });
});
