// The ACP agent in this process: through the SDK's own client, and through a raw NDJSON driver for the pinned
// scenario, the wire-level edge cases and cancellation. Subprocesses and independent clients: stdio.test.ts.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { detectBubblewrap, fromWholeResults, type SearchBackend, SearchError } from "../../core/mod.ts";
import {
  expectPinned,
  headerFiles,
  headerSize,
  inProcessAgent,
  type TranscriptEntry,
  nodeRuntime,
  recordingModel,
  root,
  runScenario,
  scenarioDir,
  scenarioWorkspace,
  templateTranscript,
} from "../../test/acp-driver.ts";
import { survivors } from "../../test/process-cases.ts";
import { createNodeProcessRunner } from "../node/mod.ts";
import {
  type AcpAgentOptions,
  AGENT_VERSION,
  COMPOSITIONS,
  createAcpAgent,
  createScriptedModel,
  type Model,
  ModelError,
  parseScript,
  type Script,
} from "./mod.ts";

const PROMPT = "Call glob exactly once with pattern * and path tree, then reply with exactly GLOB_SAMPLED.";
const composition = COMPOSITIONS["bash-glob-grep"]!;

let workspace: { cwd: string; dispose: () => Promise<void> };
beforeEach(async () => {
  workspace = await scenarioWorkspace();
});
afterEach(() => workspace.dispose());

const scripted = (script: Script): Model => createScriptedModel(script);
const bashTurn = (command: string) => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

/** An in-process agent, initialized, with one session in the scenario's workspace. */
async function session(model: Model | undefined, extra: Partial<AcpAgentOptions> = {}) {
  const agent = inProcessAgent({ ...extra, model });
  await agent.peer.request("initialize", { protocolVersion: 1 });
  const created = await agent.peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
  const sessionId = (created.result as { sessionId: string }).sessionId;
  const prompt = (text = "go") => agent.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  return { ...agent, sessionId, prompt };
}

const updates = (transcript: readonly TranscriptEntry[]) =>
  transcript.flatMap((m) => ("agent" in m && m.agent.method === "session/update" ? [(m.agent.params as { update: Record<string, unknown> }).update] : []));

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("the glob-sampling scenario", () => {
  test("through the SDK client: one sampled glob call, then GLOB_SAMPLED and end_turn", async () => {
    const seen: acp.SessionUpdate[] = [];
    const agent = createAcpAgent({ composition, model: recordingModel().model, runtime: nodeRuntime() });
    const { text, stopReason } = await acp
      .client({ name: "test" })
      .onNotification(acp.methods.client.session.update, ({ params }) => void seen.push(params.update))
      .connectWith(agent.app, async (ctx) => {
        const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
        expect(init).toMatchObject({ protocolVersion: 1, agentInfo: { name: "toolfs", version: AGENT_VERSION }, authMethods: [] });
        return ctx.buildSession(workspace.cwd).withSession(async (s) => {
          const reading = s.readText();
          const response = await s.prompt(PROMPT);
          return { text: await reading, stopReason: response.stopReason };
        });
      });
    expect([text, stopReason]).toEqual(["GLOB_SAMPLED", "end_turn"]);
    expect(seen.map((u) => [u.sessionUpdate, "status" in u ? u.status : undefined, "kind" in u ? u.kind : undefined])).toEqual([
      ["tool_call", "in_progress", "search"],
      ["tool_call_update", "completed", undefined],
      ["agent_message_chunk", undefined, undefined],
    ]);
    const result = seen[1] as acp.ToolCallUpdate;
    expect(result.rawOutput).toEqual({
      isError: false,
      meta: {
        shape: "paths",
        root: "tree",
        paths: ["tree/archive/a.ts", "tree/docs/guide.md", "tree/src/index.ts", "tree/test/spec.ts"],
        truncated: true,
        total: 8,
      },
    });
  });

  test("the transcript and the request header match the pinned files", async () => {
    const { model, requests } = recordingModel();
    const { peer, done } = inProcessAgent({ model });
    const transcript = await runScenario(peer, workspace.cwd);
    await peer.close();
    await done;
    expectPinned("transcript.expected.json", templateTranscript(transcript, workspace.cwd));
    for (const [name, text] of Object.entries(headerFiles(requests[0]!, workspace.cwd))) expectPinned(name, text);
    expect(requests[0]!.tools.map((t) => t.name)).toEqual(["bash", "glob", "grep"]);
    expect(requests).toHaveLength(2);
  });

  test("a drifted pin fails with a readable diff and the command that updates it", () => {
    const pinned = readFileSync(join(scenarioDir, "system-prompt.expected.md"), "utf8");
    expect(() => expectPinned("system-prompt.expected.md", pinned.replace("coding agent", "helpful agent"))).toThrow(
      /drifted from the pinned file\. If the change is intended, run npm run fixtures:update\.\n[\s\S]*\n-You are a coding agent[^\n]*\n\+You are a helpful agent/,
    );
  });

  test("the scenario README states the header's current size", async () => {
    const { model, requests } = recordingModel();
    const s = await session(model);
    await s.prompt(PROMPT);
    const { bytes, tokens } = headerSize(requests[0]!);
    expect(readFileSync(join(scenarioDir, "README.md"), "utf8")).toContain(`${bytes} bytes, about ${tokens} tokens`);
    await s.peer.close();
    await s.done;
  });
});

describe("the wire", () => {
  test("bad input gets a JSON-RPC error and the agent keeps serving", async () => {
    const { peer, done } = inProcessAgent({ model: recordingModel().model });
    const early = await peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
    expect(early.error).toMatchObject({ code: -32600, message: expect.stringContaining("must be initialized") });
    const parseError = peer.next((m) => m.id === null);
    await peer.sendLine("{not json");
    expect((await parseError).error).toEqual({ code: -32700, message: "Parse error" });
    await peer.request("initialize", { protocolVersion: 1 });
    expect((await peer.request("nope/unknown", {})).error).toMatchObject({ code: -32601 });
    const relative = await peer.request("session/new", { cwd: "tree", mcpServers: [] });
    expect(relative.error).toMatchObject({ code: -32602, message: 'Invalid params: cwd must be an absolute path, got "tree"' });
    const missing = await peer.request("session/new", { cwd: join(workspace.cwd, "missing"), mcpServers: [] });
    expect(missing.error).toMatchObject({ code: -32602, message: expect.stringContaining("is not a directory") });
    expect((await peer.request("session/new", { cwd: workspace.cwd })).error).toMatchObject({ code: -32602 });
    const unknown = await peer.request("session/prompt", { sessionId: "nope", prompt: [{ type: "text", text: "x" }] });
    expect(unknown.error).toMatchObject({ code: -32002, data: { sessionId: "nope" } });
    const created = await peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
    const sessionId = (created.result as { sessionId: string }).sessionId;
    const image = await peer.request("session/prompt", { sessionId, prompt: [{ type: "image", data: "", mimeType: "image/png" }] });
    expect(image.error).toMatchObject({ code: -32602, message: expect.stringContaining("image content is not supported") });
    const served = await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: PROMPT }] });
    expect(served.result).toEqual({ stopReason: "end_turn" });
    await peer.close();
    await done;
  });

  test("without a model, or past the end of its script, a prompt fails with a JSON-RPC error that says why", async () => {
    const none = await session(undefined);
    expect((await none.prompt()).error).toMatchObject({ code: -32603, data: { code: "MODEL_UNAVAILABLE" }, message: expect.stringContaining("--script") });
    await none.peer.close();
    const s = await session(scripted({ turns: [{ text: "once" }] }));
    expect((await s.prompt()).result).toEqual({ stopReason: "end_turn" });
    expect((await s.prompt()).error).toMatchObject({ code: -32603, data: { code: "MODEL_SCRIPT_EXHAUSTED" } });
    await s.peer.close();
    await Promise.all([none.done, s.done]);
  });

  test("a failing tool is reported failed with its code, and the turn goes on; max_turn_requests ends a loop", async () => {
    const glob = { toolCalls: [{ name: "glob", arguments: { pattern: "*", path: "missing" } }] };
    const s = await session(scripted({ turns: [glob, { text: "done" }] }));
    expect((await s.prompt()).result).toEqual({ stopReason: "end_turn" });
    const failed = updates(s.peer.transcript).find((u) => u.sessionUpdate === "tool_call_update")!;
    expect(failed).toMatchObject({ status: "failed", rawOutput: { isError: true, error: { code: "FS_NOT_FOUND" } } });
    await s.peer.close();
    const loop = await session(scripted({ turns: [bashTurn("true"), bashTurn("true"), bashTurn("true")] }), { maxTurnRequests: 2 });
    expect((await loop.prompt()).result).toEqual({ stopReason: "max_turn_requests" });
    await loop.peer.close();
    await Promise.all([s.done, loop.done]);
  });

  test("a second prompt while one runs is refused", async () => {
    const s = await session(scripted({ turns: [bashTurn("sleep 60"), { text: "done" }] }));
    const first = s.prompt();
    await s.peer.next((m) => m.method === "session/update");
    expect((await s.prompt()).error).toMatchObject({ code: -32600, message: expect.stringContaining("already running") });
    await s.peer.notify("session/cancel", { sessionId: s.sessionId });
    expect((await first).result).toEqual({ stopReason: "cancelled" });
    await s.peer.close();
    await s.done;
  });
});

describe("cancellation", () => {
  test("session/cancel stops the turn with cancelled and kills the running command's tree; the session goes on", async () => {
    const pidFile = join(workspace.cwd, "pid");
    const s = await session(scripted({ turns: [bashTurn(`sleep 60 & echo $! > ${pidFile}; wait`), { text: "next turn" }] }));
    const prompt = s.prompt();
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
    await s.peer.notify("session/cancel", { sessionId: s.sessionId });
    expect((await prompt).result).toEqual({ stopReason: "cancelled" });
    const last = updates(s.peer.transcript).at(-1)!;
    expect(last).toMatchObject({ sessionUpdate: "tool_call_update", status: "failed", rawOutput: { error: { code: "TOOL_ABORTED" } } });
    expect(await survivors(createNodeProcessRunner(), [readFileSync(pidFile, "utf8").trim()])).toEqual([]);
    expect((await s.prompt()).result).toEqual({ stopReason: "end_turn" });
    expect(updates(s.peer.transcript).at(-1)).toMatchObject({ sessionUpdate: "agent_message_chunk", content: { text: "next turn" } });
    await s.peer.close();
    await s.done;
  });

  test("session/cancel aborts a running search", async () => {
    let aborted = false;
    let started: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const search: SearchBackend = fromWholeResults({
      name: "waits for its signal",
      files: (request) =>
        new Promise((_, reject) => {
          request.signal!.addEventListener("abort", () => {
            aborted = true;
            reject(new SearchError("SEARCH_ABORTED", "The search was cancelled"));
          });
          started();
        }),
      grep: async () => ({ files: [], problems: [] }),
    });
    const runtime = { ...nodeRuntime(), search };
    const s = await session(scripted({ turns: [{ toolCalls: [{ name: "glob", arguments: { pattern: "*" } }] }] }), { runtime });
    const prompt = s.prompt();
    await running;
    await s.peer.notify("session/cancel", { sessionId: s.sessionId });
    expect((await prompt).result).toEqual({ stopReason: "cancelled" });
    expect(aborted).toBe(true);
    expect(updates(s.peer.transcript).at(-1)).toMatchObject({ status: "failed", rawOutput: { error: { code: "SEARCH_ABORTED" } } });
    await s.peer.close();
    await s.done;
  });

  test("the end of the input cancels running turns, and serving ends once their commands are gone", async () => {
    const pidFile = join(workspace.cwd, "pid");
    const s = await session(scripted({ turns: [bashTurn(`echo $$ > ${pidFile}; sleep 60`)] }));
    void s.prompt();
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
    await s.peer.close();
    await s.done;
    expect(await survivors(createNodeProcessRunner(), [readFileSync(pidFile, "utf8").trim()])).toEqual([]);
  });
});

describe("scripts and metadata", () => {
  test("a script that cannot be replayed is MODEL_SCRIPT_INVALID, saying where", () => {
    const invalid = (text: string) => {
      try {
        parseScript(text);
      } catch (error) {
        expect(error).toBeInstanceOf(ModelError);
        return `${(error as ModelError).code}: ${(error as ModelError).message}`;
      }
      throw new Error("parsed");
    };
    expect(invalid("{")).toMatch(/^MODEL_SCRIPT_INVALID: The script is not JSON/);
    expect(invalid('{"turns":[]}')).toMatch(/^MODEL_SCRIPT_INVALID: .*turns/);
    expect(invalid('{"turns":[{}]}')).toBe("MODEL_SCRIPT_INVALID: The script is not valid: turns.0: a turn needs text or toolCalls");
    expect(invalid('{"turns":[{"toolCalls":[{"name":"glob","arguments":"*"}]}]}')).toMatch(/turns\.0\.toolCalls\.0\.arguments/);
    expect(parseScript(readFileSync(join(scenarioDir, "script.json"), "utf8")).turns).toHaveLength(2);
  });

  test("the agent reports package.json's version", () => {
    expect(AGENT_VERSION).toBe(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version);
  });

  test("under a sandbox, bash is left out where it cannot be confined (logged once), and runs confined where it can", async () => {
    const lines: string[] = [];
    const requests: string[][] = [];
    const model: Model = { next: async (request) => (requests.push(request.tools.map((t) => t.name)), { text: "done", toolCalls: [] }) };
    const missing = { kind: "bubblewrap", available: false, program: "bwrap", reason: "bubblewrap (bwrap) is not installed" } as const;
    const withheld = inProcessAgent({ model, log: (line) => lines.push(line), sandbox: { mode: "workspace-write", confinement: missing } });
    await withheld.peer.request("initialize", { protocolVersion: 1 });
    for (let i = 0; i < 2; i++) {
      const created = await withheld.peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
      const sessionId = (created.result as { sessionId: string }).sessionId;
      await withheld.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    }
    expect(requests).toEqual([
      ["glob", "grep"],
      ["glob", "grep"],
    ]);
    expect(lines).toEqual([
      "toolfs acp: bash is not available: its commands cannot be held to the workspace-write sandbox here (bubblewrap (bwrap) is not installed)",
    ]);
    await withheld.peer.close();
    await withheld.done;

    const confinement = await detectBubblewrap(createNodeProcessRunner());
    if (!confinement.available) return;
    const marker = `toolfs-acp-${process.pid}`;
    const confined = await session(scripted({ turns: [bashTurn(`touch /etc/${marker}; ls`), { text: "ok" }] }), {
      sandbox: { mode: "workspace-write", confinement },
    });
    await confined.prompt();
    const result = updates(confined.peer.transcript).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    expect(JSON.stringify(result)).toContain(`cannot touch '/etc/${marker}': Read-only file system`);
    await confined.peer.close();
    await confined.done;
  });

  test("ignored MCP servers are logged, on the log and not the wire", async () => {
    const lines: string[] = [];
    const { peer, done } = inProcessAgent({ model: undefined, log: (line) => lines.push(line) });
    await peer.request("initialize", { protocolVersion: 1 });
    const server = { name: "x", command: "x", args: [], env: [] };
    expect((await peer.request("session/new", { cwd: workspace.cwd, mcpServers: [server] })).result).toHaveProperty("sessionId");
    expect(lines).toEqual(["toolfs acp: ignoring 1 MCP server(s); this agent offers only its own tools"]);
    await peer.close();
    await done;
  });
});
