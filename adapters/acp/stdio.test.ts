// The agent as an editor starts it: `toolfs acp` as a subprocess speaking on stdio, under Node (the built
// bin) and under Deno (least permissions), checked against the pinned transcript; the independent client acpx
// end to end; and the scenario README's commands, run as printed.
import { execFile } from "node:child_process";
import { existsSync, promises as fsp, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  denoAgentArgs,
  expectPinned,
  root,
  runScenario,
  scenarioDir,
  scenarioScript,
  scenarioWorkspace,
  subprocessAgent,
  templateTranscript,
} from "../../test/acp-driver.ts";
import { survivors } from "../../test/process-cases.ts";
import { createNodeProcessRunner } from "../node/mod.ts";

const run = promisify(execFile);
const cli = join(root, "dist/cli.js");
const deno = join(root, "node_modules/.bin/deno");
const acpx = join(root, "node_modules/.bin/acpx");
const PROMPT = "Call glob exactly once with pattern * and path tree, then reply with exactly GLOB_SAMPLED.";

let workspace: { cwd: string; dispose: () => Promise<void> };
let home: string;
beforeEach(async () => {
  workspace = await scenarioWorkspace();
  home = await fsp.mkdtemp(join(tmpdir(), "toolfs-home-"));
});
afterEach(async () => {
  await workspace.dispose();
  await fsp.rm(home, { recursive: true, force: true });
});

// acpx keeps its configuration and sessions under HOME; npm would check for updates from there.
const clientEnv = () => ({ ...process.env, HOME: home, npm_config_update_notifier: "false", NO_COLOR: "1" });

describe.each([
  ["node", () => [process.execPath, [cli, "acp", "--script", scenarioScript]] as const],
  ["deno", async () => [deno, await denoAgentArgs(workspace.cwd, scenarioScript)] as const],
])("toolfs acp on %s over stdio", (_, command) => {
  test("replays the scenario to the pinned transcript, writes nothing else, and exits when stdin closes", async () => {
    const [program, args] = await command();
    const agent = subprocessAgent(program, args);
    const transcript = await runScenario(agent.peer, workspace.cwd);
    await agent.peer.close();
    expect(await agent.exit).toBe(0);
    await agent.peer.ended;
    expectPinned("transcript.expected.json", templateTranscript(transcript, workspace.cwd));
    expect(agent.stderr()).toBe("");
  });

  test("a line over 32 MiB is answered with a JSON-RPC error and the agent keeps serving", async () => {
    const [program, args] = await command();
    const agent = subprocessAgent(program, args);
    await agent.peer.request("initialize", { protocolVersion: 1 });
    const pad = "x".repeat(32 * 1024 * 1024);
    // A request whose id comes before the oversized params gets its error under that id; a line with no
    // readable id gets one under id null.
    const named = agent.peer.next((m) => m.id === 1000);
    const unnamed = agent.peer.next((m) => m.id === null);
    await agent.peer.sendLine(`{"jsonrpc":"2.0","id":1000,"method":"session/new","params":{"cwd":${JSON.stringify(workspace.cwd)},"mcpServers":[],"pad":"${pad}"}}`);
    await agent.peer.sendLine(`["${pad}"]`);
    const [first, second] = await Promise.all([named, unnamed]);
    expect(first).toMatchObject({ jsonrpc: "2.0", id: 1000, error: { code: -32600, data: { maxMessageBytes: 32 * 1024 * 1024 } } });
    expect((first as { error: { message: string } }).error.message).toMatch(/^Invalid request: the message is \d+ bytes long, more than the 33554432 bytes this agent reads; it was skipped$/);
    expect(second).toMatchObject({ id: null, error: { code: -32600 } });
    const created = await agent.peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
    expect(created.result).toMatchObject({ sessionId: expect.any(String) });
    await agent.peer.close();
    expect(await agent.exit).toBe(0);
    expect(agent.stderr()).toContain("toolfs acp: the message is");
  }, 60_000);

  test("SIGTERM cancels the running command, stops its tree, and ends the agent", async () => {
    const script = join(workspace.cwd, "script.json");
    const pidFile = join(workspace.cwd, "pid");
    await fsp.writeFile(script, JSON.stringify({ turns: [{ toolCalls: [{ name: "bash", arguments: { command: `echo $$ > ${pidFile}; sleep 60` } }] }] }));
    const [program, args] = await command();
    const agent = subprocessAgent(program, [...args.slice(0, -1), script]);
    await agent.peer.request("initialize", { protocolVersion: 1 });
    const created = await agent.peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
    void agent.peer.request("session/prompt", { sessionId: (created.result as { sessionId: string }).sessionId, prompt: [{ type: "text", text: "go" }] });
    while (!existsSync(pidFile) || !readFileSync(pidFile, "utf8").endsWith("\n")) await new Promise((resolve) => setTimeout(resolve, 20));
    agent.child.kill("SIGTERM");
    expect(await agent.exit).toBe(0);
    expect(await survivors(createNodeProcessRunner(), [readFileSync(pidFile, "utf8").trim()])).toEqual([]);
  });
});

describe("acpx, an independent client", () => {
  const exec = (script: string) =>
    run(acpx, ["--agent", `${process.execPath} ${cli} acp --script ${script}`, "--cwd", workspace.cwd, "--format", "quiet", "exec", PROMPT], {
      cwd: root,
      env: clientEnv(),
    });

  test("prints the final text, GLOB_SAMPLED, and exits 0", async () => {
    const { stdout } = await exec(scenarioScript);
    expect(stdout).toBe("GLOB_SAMPLED\n");
  });

  test("exits 1 and shows the agent's error when the prompt fails", async () => {
    const script = join(workspace.cwd, "short.json");
    await fsp.writeFile(script, JSON.stringify({ turns: [{ toolCalls: [{ name: "bash", arguments: { command: "true" } }] }] }));
    const failure = (await exec(script).catch((error: unknown) => error)) as { code: number; stderr: string };
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain("The script has 1 turns and this session has used them all");
  });
});

test("the scenario README's commands print GLOB_SAMPLED, run as printed", async () => {
  const readme = readFileSync(join(scenarioDir, "README.md"), "utf8");
  const commands = /## Run it[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!.trim().split("\n");
  expect(commands).toHaveLength(2);
  const mainReadme = readFileSync(join(root, "README.md"), "utf8");
  for (const command of commands) expect(mainReadme, "the main README shows the same commands").toContain(command);
  const dir = join(realpathSync(home), "glob-sampling");
  const outputs: string[] = [];
  for (const command of commands) {
    const { stdout } = await run("bash", ["-c", command.replaceAll("/tmp/glob-sampling", dir)], { cwd: root, env: clientEnv() });
    outputs.push(stdout);
  }
  expect(outputs[0]).toContain(`glob-sampling: wrote 8 files with pinned modification times under ${dir}`);
  expect(outputs[1]).toBe("GLOB_SAMPLED\n");
}, 60_000);
