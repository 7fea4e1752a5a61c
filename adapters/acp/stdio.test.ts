// The agent as an editor starts it: `toolfs acp` as a subprocess speaking on stdio, under Node (the built
// bin) and under Deno (least permissions), checked against the pinned transcript; the independent client acpx
// end to end; and the scenario README's commands, run as printed.
import { execFile, spawn } from "node:child_process";
import { existsSync, promises as fsp, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { codingTree } from "../../fixtures/mod.ts";
import { type FakeServer, type FakeTurn, startFakeModel } from "../../test/fake-models.ts";
import {
  codingDir,
  codingScript,
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

type Command = (acpArgs: readonly string[], net?: string) => Promise<readonly [string, readonly string[]]>;

describe.each([
  ["node", (async (acpArgs) => [process.execPath, [cli, "acp", ...acpArgs]]) as Command],
  ["deno", (async (acpArgs, net) => [deno, await denoAgentArgs([workspace.cwd], acpArgs, net)]) as Command],
])("toolfs acp on %s over stdio", (_, command) => {
  test("replays the scenario to the pinned transcript, writes nothing else, and exits when stdin closes", async () => {
    const [program, args] = await command(["--script", scenarioScript]);
    const agent = subprocessAgent(program, args);
    const transcript = await runScenario(agent.peer, workspace.cwd);
    await agent.peer.close();
    expect(await agent.exit).toBe(0);
    await agent.peer.ended;
    expectPinned("transcript.expected.json", templateTranscript(transcript, workspace.cwd));
    expect(agent.stderr()).toBe("");
  });

  test("a line over 32 MiB is answered with a JSON-RPC error and the agent keeps serving", async () => {
    const [program, args] = await command(["--script", scenarioScript]);
    const agent = subprocessAgent(program, args);
    await agent.peer.request("initialize", { protocolVersion: 1 });
    const pad = "x".repeat(32 * 1024 * 1024);
    // A request whose id comes before the oversized params gets its error under that id; a line with no
    // readable id gets one under id null.
    const named = agent.peer.next((m) => m.id === 1000);
    const unnamed = agent.peer.next((m) => m.id === null);
    await agent.peer.sendLine(
      `{"jsonrpc":"2.0","id":1000,"method":"session/new","params":{"cwd":${JSON.stringify(workspace.cwd)},"mcpServers":[],"pad":"${pad}"}}`,
    );
    await agent.peer.sendLine(`["${pad}"]`);
    const [first, second] = await Promise.all([named, unnamed]);
    expect(first).toMatchObject({ jsonrpc: "2.0", id: 1000, error: { code: -32600, data: { maxMessageBytes: 32 * 1024 * 1024 } } });
    expect((first as { error: { message: string } }).error.message).toMatch(
      /^Invalid request: the message is \d+ bytes long, more than the 33554432 bytes this agent reads; it was skipped$/,
    );
    expect(second).toMatchObject({ id: null, error: { code: -32600 } });
    const created = await agent.peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
    expect(created.result).toMatchObject({ sessionId: expect.any(String) });
    await agent.peer.close();
    expect(await agent.exit).toBe(0);
    expect(agent.stderr()).toContain("toolfs acp: the message is");
  }, 180_000);

  test.for(["openai", "anthropic"] as const)(
    "runs the scenario through the %s driver against the fake server: the pinned transcript, plus usage",
    async (protocol) => {
      const script = JSON.parse(readFileSync(scenarioScript, "utf8")) as { turns: FakeTurn[] };
      // Whole pieces: the reply then arrives as one chunk, as the scripted model sends it.
      const fake = await startFakeModel({ protocol, script, piece: 1000 });
      try {
        const { port } = new URL(fake.baseUrl);
        const [program, args] = await command(["--model", `${protocol}:fake`, "--base-url", fake.baseUrl], `127.0.0.1:${port}`);
        const agent = subprocessAgent(program, args);
        const transcript = await runScenario(agent.peer, workspace.cwd);
        await agent.peer.close();
        expect(await agent.exit).toBe(0);
        const usage = transcript.filter(
          (m) => "agent" in m && (m.agent.params as { update?: { sessionUpdate?: string } })?.update?.sessionUpdate === "usage_update",
        );
        expect(usage).toHaveLength(1);
        const last = transcript.at(-1) as { agent: { result: { stopReason: string; usage?: unknown } } };
        expect(last.agent.result).toMatchObject({ stopReason: "end_turn", usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) } });
        delete last.agent.result.usage;
        expectPinned(
          "transcript.expected.json",
          templateTranscript(
            transcript.filter((m) => !usage.includes(m)),
            workspace.cwd,
          ),
        );
        expect(fake.requests).toHaveLength(2);
        expect(agent.stderr()).toBe("");
      } finally {
        await fake.close();
      }
    },
  );

  test("SIGTERM cancels the running command, stops its tree, and ends the agent", async () => {
    const script = join(workspace.cwd, "script.json");
    const pidFile = join(workspace.cwd, "pid");
    await fsp.writeFile(script, JSON.stringify({ turns: [{ toolCalls: [{ name: "bash", arguments: { command: `echo $$ > ${pidFile}; sleep 60` } }] }] }));
    const [program, args] = await command(["--script", script, "--permission-mode", "allow-all"]);
    const agent = subprocessAgent(program, args);
    await agent.peer.request("initialize", { protocolVersion: 1 });
    const created = await agent.peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
    void agent.peer.request("session/prompt", { sessionId: (created.result as { sessionId: string }).sessionId, prompt: [{ type: "text", text: "go" }] });
    while (!existsSync(pidFile) || !readFileSync(pidFile, "utf8").endsWith("\n")) await new Promise((resolve) => setTimeout(resolve, 20));
    agent.child.kill("SIGTERM");
    expect(await agent.exit).toBe(0);
    expect(await survivors(createNodeProcessRunner(), [readFileSync(pidFile, "utf8").trim()])).toEqual([]);
  });
});

describe("acpx drives the coding agent against the fake OpenAI server", () => {
  const CODING_PROMPT = "Make greeting.txt greet the world, then check it.";
  let coding: { cwd: string; dispose: () => Promise<void> };
  let fake: FakeServer;
  beforeEach(async () => {
    coding = await scenarioWorkspace(codingTree);
    fake = await startFakeModel({ protocol: "openai", script: JSON.parse(readFileSync(codingScript, "utf8")) as { turns: FakeTurn[] } });
  });
  afterEach(async () => {
    await fake.close();
    await coding.dispose();
  });
  const exec = (format: "quiet" | "json", approval: "--approve-all" | "--deny-all") =>
    run(
      acpx,
      [
        approval,
        "--agent",
        `${process.execPath} ${cli} acp --composition coding --model openai:fake --base-url ${fake.baseUrl}`,
        "--cwd",
        coding.cwd,
        "--format",
        format,
        "exec",
        CODING_PROMPT,
      ],
      { cwd: root, env: clientEnv() },
    );
  const greeting = () => readFileSync(join(coding.cwd, "greeting.txt"), "utf8");

  test("through read, an allowed edit and an allowed command, printing the model's final text", async () => {
    const { stdout } = await exec("quiet", "--approve-all");
    expect(stdout).toBe("greeting.txt now says Hello, world!\n");
    expect(greeting()).toBe("Hello, world!\n");
    const results = (fake.requests.at(-1)!.body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").map((m) => m.content);
    expect(results[0]).toMatch(/^1: Hello, moon!/);
    expect(results[1]).toMatch(/^Edited greeting.txt: replaced 1 occurrence at line 1/);
    expect(results[2]).toBe("1\n[exit code: 0]");
  });

  test("the permission requests go over the wire with the diff; refused, nothing changes and the model is told", async () => {
    // acpx exits 5 (its PERMISSION_DENIED) once it has denied a request; the turn itself ended normally.
    const failed = (await exec("json", "--deny-all").catch((error: unknown) => error)) as { code: number; stdout: string };
    expect(failed.code).toBe(5);
    const { stdout } = failed;
    const wire = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const asked = wire.filter((m) => m.method === "session/request_permission").map((m) => (m.params as { toolCall: Record<string, unknown> }).toolCall);
    expect(asked.map((c) => c.kind)).toEqual(["edit", "execute"]);
    expect(asked[0]!.content).toEqual([{ type: "diff", path: join(coding.cwd, "greeting.txt"), oldText: "Hello, moon!\n", newText: "Hello, world!\n" }]);
    expect(wire.at(-1)).toMatchObject({ result: { stopReason: "end_turn" } });
    expect(greeting()).toBe("Hello, moon!\n");
    const results = (fake.requests.at(-1)!.body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").map((m) => m.content);
    expect(results.slice(1)).toEqual([
      "Error PERMISSION_REJECTED: The user refused this edit; nothing was run or changed. Do not repeat it; ask the user or take another way.",
      "Error PERMISSION_REJECTED: The user refused this command; nothing was run or changed. Do not repeat it; ask the user or take another way.",
    ]);
  });

  test("a tool it does not have and arguments that are not JSON come back to the model as coded errors", async () => {
    fake.queue.push(
      { kind: "turn", turn: { toolCalls: [{ name: "rm_rf", arguments: { path: "." } }] } },
      { kind: "turn", turn: { toolCalls: [{ name: "edit", arguments: '{"path": "greeting.txt", "old_string": "moon' }] } },
      { kind: "turn", turn: { text: "I could not change it." } },
    );
    const { stdout } = await exec("quiet", "--approve-all");
    expect(stdout).toBe("I could not change it.\n");
    expect(greeting()).toBe("Hello, moon!\n");
    const results = (fake.requests.at(-1)!.body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").map((m) => m.content);
    expect(results.map((r) => r.split(":")[0])).toEqual(["Error TOOL_UNKNOWN", "Error TOOL_INVALID_ARGUMENTS"]);
  });

  test("interrupting acpx mid-stream sends session/cancel: the agent aborts the model's stream and ends the turn cancelled", async () => {
    fake.queue.push({ kind: "hang", text: "Let me look" });
    const agent = `${process.execPath} ${cli} acp --composition coding --model openai:fake --base-url ${fake.baseUrl}`;
    const client = spawn(acpx, ["--approve-all", "--agent", agent, "--cwd", coding.cwd, "--format", "json", "exec", CODING_PROMPT], {
      cwd: root,
      env: clientEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => client.once("exit", (code) => resolve(code)));
    let out = "";
    await new Promise<void>((resolve) =>
      client.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        if (out.includes('"sessionUpdate":"agent_message_chunk"')) resolve();
      }),
    );
    client.kill("SIGINT");
    await fake.hangClosed;
    await exited;
    const wire = out
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(wire.filter((m) => m.method === "session/cancel")).toHaveLength(1);
    const prompt = wire.find((m) => m.method === "session/prompt")!;
    expect(wire.find((m) => m.id === prompt.id && "result" in m)).toMatchObject({ result: { stopReason: "cancelled" } });
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

// `npx --prefix $PWD toolfs` runs the package's bin, dist/cli.js, after installing this directory into npx's
// cache, whose `prepare` would rebuild dist/ if it were stale. The test runs the bin itself: a test never
// builds, so none can empty dist/ under another.
const NPX_TOOLFS = "npx --prefix $PWD toolfs";

test("npx runs the bin the tests run", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; bin: Record<string, string> };
  expect(pkg.name).toBe("toolfs");
  expect(join(root, pkg.bin.toolfs!)).toBe(cli);
});

test("the scenario README's commands print GLOB_SAMPLED, run as printed (the agent started from dist/cli.js)", async () => {
  const readme = readFileSync(join(scenarioDir, "README.md"), "utf8");
  const commands = /## Run it[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!.trim().split("\n");
  expect(commands).toHaveLength(2);
  const mainReadme = readFileSync(join(root, "README.md"), "utf8");
  for (const command of commands) expect(mainReadme, "the main README shows the same commands").toContain(command);
  expect(commands[1]).toContain(NPX_TOOLFS);
  const dir = join(realpathSync(home), "glob-sampling");
  const outputs: string[] = [];
  for (const command of commands) {
    const local = command.replaceAll("/tmp/glob-sampling", dir).replaceAll(NPX_TOOLFS, `${process.execPath} ${cli}`);
    const { stdout } = await run("bash", ["-c", local], { cwd: root, env: clientEnv() });
    outputs.push(stdout);
  }
  expect(outputs[0]).toContain(`glob-sampling: wrote 8 files with pinned modification times under ${dir}`);
  expect(outputs[1]).toBe("GLOB_SAMPLED\n");
}, 180_000);

test("the coding scenario README's commands print the model's final text, run as printed (the agent started from dist/cli.js)", async () => {
  const readme = readFileSync(join(codingDir, "README.md"), "utf8");
  const commands = /## Run it[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!.trim().split("\n");
  expect(commands).toHaveLength(3);
  const dir = join(realpathSync(home), "coding");
  expect(commands[2]).toContain(NPX_TOOLFS);
  const local = (command: string) => command.replaceAll("/tmp/coding", dir).replaceAll(NPX_TOOLFS, `${process.execPath} ${cli}`);
  const seeded = await run("bash", ["-c", local(commands[0]!)], { cwd: root, env: clientEnv() });
  expect(seeded.stdout).toContain(`coding: wrote 1 files with pinned modification times under ${dir}`);
  // The fake serves until stopped. Tests take port 0, so it runs on a free port and the agent is pointed there.
  expect(commands[1]).toContain("--port 8931");
  const server = spawn("bash", ["-c", `exec ${local(commands[1]!).replace("--port 8931", "--port 0")}`], {
    cwd: root,
    env: clientEnv(),
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      server.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        const found = /http:\/\/127\.0\.0\.1:\d+\/v1/.exec(out);
        if (found) resolve(found[0]);
      });
      server.once("exit", () => reject(new Error(`the fake model exited: ${out}`)));
    });
    expect(commands[2]).toContain("http://127.0.0.1:8931/v1");
    const { stdout } = await run("bash", ["-c", local(commands[2]!).replace("http://127.0.0.1:8931/v1", url)], { cwd: root, env: clientEnv() });
    expect(stdout).toBe("greeting.txt now says Hello, world!\n");
    expect(readFileSync(join(dir, "greeting.txt"), "utf8")).toBe("Hello, world!\n");
  } finally {
    // The fake's process group: npm, the shell it starts and tsx's node.
    process.kill(-server.pid!, "SIGTERM");
  }
}, 180_000);
