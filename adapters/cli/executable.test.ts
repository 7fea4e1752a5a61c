// The toolfs executable (dist/cli.js, run `npm run build` first) as a user runs it: real directories, the
// optional peers missing, and how the HTTP server stops.
import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, onTestFinished, test } from "vitest";
import { outsideTemp } from "../../test/outside.ts";
import { detectBubblewrap } from "../../core/mod.ts";
import { createNodeProcessRunner } from "../node/mod.ts";

const cli = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const run = promisify(execFile);

describe("the toolfs executable", () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-cli-")));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test.for(["node", "memory"])("reads and edits a real directory on the %s backend", async (backend) => {
    writeFileSync(join(dir, "notes.md"), "# Notes\r\nfirst\r\n");
    const { stdout } = await run(process.execPath, [
      cli,
      "read",
      '{"path":"notes.md"}',
      "edit",
      '{"path":"notes.md","old_string":"first","new_string":"second"}',
      "--root",
      dir,
      "--backend",
      backend,
    ]);
    expect(stdout).toContain("1: # Notes\n2: first");
    expect(stdout).toContain("Edited notes.md: replaced 1 occurrence at line 2");
    const expected = backend === "node" ? "# Notes\r\nsecond\r\n" : "# Notes\r\nfirst\r\n";
    expect(readFileSync(join(dir, "notes.md"), "utf8")).toBe(expected);
  });

  test("on --backend overlay prints the patch and leaves the directory, and with --commit changes it", async () => {
    writeFileSync(join(dir, "README.md"), "# Title\n\nHello world.\n");
    const calls = [
      "read",
      '{"path":"README.md"}',
      "edit",
      '{"path":"README.md","old_string":"Hello world.","new_string":"Hello, overlay."}',
      "--root",
      dir,
      "--backend",
      "overlay",
    ];
    const { stdout } = await run(process.execPath, [cli, ...calls]);
    expect(stdout).toContain("Edited README.md: replaced 1 occurrence at line 3");
    expect(stdout).toContain(
      "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # Title\n \n-Hello world.\n+Hello, overlay.\n",
    );
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("# Title\n\nHello world.\n");
    const committed = await run(process.execPath, [cli, ...calls, "--commit"]);
    expect(committed.stdout).toContain("### commit\nCommitted 1 file: README.md\n");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("# Title\n\nHello, overlay.\n");
  });

  test("bash under --sandbox workspace-write lists the workspace and reports writes elsewhere refused, where bubblewrap works", async (context) => {
    const confinement = await detectBubblewrap(createNodeProcessRunner());
    if (!confinement.available) return context.skip(confinement.reason);
    writeFileSync(join(dir, "a.txt"), "a\n");
    // A home outside the temp directories, which workspace-write leaves writable (a CI home may be in one).
    const home = outsideTemp("toolfs-cli-home-");
    if (!("path" in home)) return context.skip(home.reason);
    onTestFinished(home.dispose);
    const marker = `toolfs-${Date.now()}-${process.pid}`;
    const command = JSON.stringify({ command: `touch /etc/${marker}; echo hi > ~/${marker}; ls` });
    const { stdout } = await run(process.execPath, [cli, "bash", command, "--sandbox", "workspace-write", "--root", dir], {
      env: { ...process.env, HOME: home.path },
    });
    expect(stdout).toContain(`touch: cannot touch '/etc/${marker}': Read-only file system`);
    expect(stdout).toContain(`${home.path}/${marker}: Read-only file system`);
    expect(stdout).toContain("a.txt\n[exit code: 0]");
    expect(existsSync(join(home.path, marker))).toBe(false);
  });

  test("without an optional peer, every entry point names the package to install and exits 2, without a stack trace", async () => {
    // The package as installed without its optional peers: dist/ beside its dependencies only (and, for the
    // memory backend under mcp, the MCP SDK), so memfs and the ACP SDK cannot be found.
    const { cpSync, mkdirSync, symlinkSync } = await import("node:fs");
    const pkg = join(dir, "pkg");
    mkdirSync(join(pkg, "node_modules/@vscode"), { recursive: true });
    mkdirSync(join(pkg, "node_modules/@modelcontextprotocol"), { recursive: true });
    cpSync(fileURLToPath(new URL("../../dist", import.meta.url)), join(pkg, "dist"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), '{"type":"module"}');
    const modules = fileURLToPath(new URL("../../node_modules", import.meta.url));
    // Every dependency package.json declares, so one added later is there too.
    const manifest = JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as {
      dependencies: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies)) symlinkSync(realpathSync(join(modules, name)), join(pkg, "node_modules", name));
    writeFileSync(join(dir, "a.txt"), "a\n");
    writeFileSync(join(dir, "s.json"), '{"turns":[{"text":"hi"}]}');
    const bin = join(pkg, "dist/cli.js");
    const fails = async (argv: string[]) => {
      const failure = await run(process.execPath, [bin, ...argv], { cwd: dir }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failure, argv.join(" ")).toBeDefined();
      expect([failure!.code, failure!.stdout], argv.join(" ")).toEqual([2, ""]);
      expect(failure!.stderr).not.toMatch(/\n\s+at /);
      return failure!.stderr;
    };
    expect(await fails(["read", '{"path":"a.txt"}', "--backend", "memory"])).toMatch(
      /^toolfs: --backend memory needs the optional dependency memfs: npm i memfs \(.*\)\n$/,
    );
    expect(await fails(["acp", "--script", "s.json"])).toMatch(
      /^toolfs: acp needs the optional dependency @agentclientprotocol\/sdk: npm i @agentclientprotocol\/sdk \(/,
    );
    expect(await fails(["mcp", "--root", dir])).toMatch(
      /^toolfs: mcp needs the optional dependency @modelcontextprotocol\/server: npm i @modelcontextprotocol\/server \(/,
    );
    symlinkSync(realpathSync(join(modules, "@modelcontextprotocol/server")), join(pkg, "node_modules/@modelcontextprotocol/server"));
    expect(await fails(["mcp", "--root", dir, "--backend", "memory"])).toMatch(/^toolfs: --backend memory needs the optional dependency memfs: npm i memfs \(/);
  }, 60_000);

  // Started as npm starts a bin (npx, npm exec, npm run): a shell between, which does not pass signals on.
  function serve() {
    const command = `"${process.execPath}" "${cli}" mcp --root "${dir}" --http 127.0.0.1:0; echo "server exited $?" >&2`;
    const child = spawn("sh", ["-c", command], { env: { ...process.env, npm_lifecycle_event: "npx" }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    const listening = new Promise<void>((resolve) =>
      child.stderr.on("data", (chunk: Buffer) => ((stderr += chunk), stderr.includes("listening on") && resolve())),
    );
    // Every holder of the pipes gone: the shell and the server.
    const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
    let pid = 0;
    const server = async () => (pid = Number(execFileSync("ps", ["-o", "pid=", "--ppid", String(child.pid)], { encoding: "utf8" }).trim()));
    // A server that outlived its test (the bug) is stopped by the pid found while its shell was alive.
    onTestFinished(() => {
      if (pid > 0 && existsSync(`/proc/${pid}/cmdline`) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(cli)) process.kill(pid, "SIGKILL");
    });
    return { child, listening, closed, server, stderr: () => stderr };
  }

  test.for(["SIGTERM", "SIGHUP", "SIGINT"] as const)("toolfs mcp --http exits cleanly on %s", { timeout: 60_000 }, async (signal) => {
    const { listening, closed, server, stderr } = serve();
    await listening;
    process.kill(await server(), signal);
    await closed;
    expect(stderr()).toContain("server exited 0\n");
  });

  test("toolfs mcp --http started by npm exits when its parent shell is stopped (npx forwards SIGTERM only to that shell)", async () => {
    const { child, listening, closed, server } = serve();
    await listening;
    const pid = await server();
    child.kill("SIGTERM");
    await closed;
    // Gone, or a zombie where nobody reaps orphans (a container's init): it has exited either way.
    const state = () => (existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0] : "gone");
    expect(["gone", "Z"]).toContain(state());
  }, 60_000);

  test("a failing call exits 1", async () => {
    await expect(run(process.execPath, [cli, "read", '{"path":"missing.txt"}', "--root", dir])).rejects.toMatchObject({ code: 1 });
  });
});
