// The coding agent as an editor drives it, in this process: a real driver against the loopback fake of its
// wire protocol, permission requests answered by the client, diffs, refusals, cancellation, the context
// budget, and the sandbox's effect on the tools offered.
import { existsSync, promises as fsp, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { codingTree } from "../../fixtures/mod.ts";
import { type FakeServer, type FakeTurn, type Protocol, startFakeModel } from "../../test/fake-models.ts";
import {
  codingDir,
  codingHeaderRequest,
  expectPinned,
  headerFiles,
  headerSize,
  inProcessAgent,
  type Message,
  scenarioWorkspace,
  type TranscriptEntry,
} from "../../test/acp-driver.ts";
import {
  type AcpAgentOptions,
  COMPOSITIONS,
  createAnthropicModel,
  createOpenAIModel,
  createScriptedModel,
  type Model,
  type ModelMessage,
  parseScript,
} from "./mod.ts";

const coding = COMPOSITIONS.coding!;
const script = JSON.parse(readFileSync(join(codingDir, "script.json"), "utf8")) as { turns: FakeTurn[] };
const PROMPT = "Make greeting.txt greet the world, then check it.";

let workspace: { cwd: string; dispose: () => Promise<void> };
let fake: FakeServer | undefined;
beforeEach(async () => {
  workspace = await scenarioWorkspace(codingTree);
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await workspace.dispose();
});

const greeting = () => readFileSync(join(workspace.cwd, "greeting.txt"), "utf8");

type Answer = "allow_once" | "allow_always" | "reject_once" | "reject_always" | "never";

/** A coding session whose model is the `protocol` driver against a fake replaying `turns`. */
async function session(protocol: Protocol, turns: readonly FakeTurn[], answer: Answer | ((params: Message) => Answer), extra: Partial<AcpAgentOptions> = {}) {
  fake = await startFakeModel({ protocol, script: { turns } });
  const options = { model: "fake", baseUrl: fake.baseUrl, contextWindow: 100_000, retry: { retries: 0 } };
  const model = protocol === "openai" ? createOpenAIModel(options) : createAnthropicModel(options);
  return started(model, answer, extra);
}

async function started(model: Model, answer: Answer | ((params: Message) => Answer), extra: Partial<AcpAgentOptions> = {}) {
  const { peer, done } = inProcessAgent({ composition: coding, permissionMode: "ask", ...extra, model });
  const asked: Message[] = [];
  peer.answer("session/request_permission", (params) => {
    asked.push(params);
    const chosen = typeof answer === "function" ? answer(params) : answer;
    return chosen === "never" ? undefined : { outcome: { outcome: "selected", optionId: chosen } };
  });
  await peer.request("initialize", { protocolVersion: 1 });
  const created = await peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
  const sessionId = (created.result as { sessionId: string }).sessionId;
  const prompt = (text = PROMPT) => peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const end = async () => {
    await peer.close();
    await done;
  };
  return { peer, sessionId, prompt, asked, end };
}

const updates = (transcript: readonly TranscriptEntry[]) =>
  transcript.flatMap((m) => ("agent" in m && m.agent.method === "session/update" ? [(m.agent.params as { update: Record<string, unknown> }).update] : []));
const forCall = (transcript: readonly TranscriptEntry[], id: string) => updates(transcript).filter((u) => u.toolCallId === id);
const toolCalls = (transcript: readonly TranscriptEntry[]) => updates(transcript).filter((u) => u.sessionUpdate === "tool_call");
/** The tool messages of the fake's last request, in either protocol's shape, as text. */
function lastToolResults(server: FakeServer): string[] {
  const messages = server.requests.at(-1)!.body.messages as Record<string, unknown>[];
  return messages.flatMap((m) => {
    if (m.role === "tool") return [String(m.content)];
    if (!Array.isArray(m.content)) return [];
    return (m.content as Record<string, unknown>[]).filter((b) => b.type === "tool_result").map((b) => String(b.content));
  });
}

describe.each(["openai", "anthropic"] as const)("the coding agent on the %s driver", (protocol) => {
  test("reads, edits after a permission request, runs a command after another, and streams its final text", async () => {
    const s = await session(protocol, script.turns, "allow_once");
    const response = await s.prompt();
    expect(response.result).toMatchObject({ stopReason: "end_turn", usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) } });
    expect(greeting()).toBe("Hello, world!\n");
    const file = join(workspace.cwd, "greeting.txt");
    // Asked for the edit and the command, not for the read.
    expect(s.asked.map((p) => (p.toolCall as Record<string, unknown>).kind)).toEqual(["edit", "execute"]);
    expect(s.asked[0]).toMatchObject({
      toolCall: {
        status: "pending",
        title: "edit in greeting.txt",
        content: [{ type: "diff", path: file, oldText: "Hello, moon!\n", newText: "Hello, world!\n" }],
      },
      options: [{ kind: "allow_once" }, { kind: "allow_always" }, { kind: "reject_once" }, { kind: "reject_always" }],
    });
    const [read, edit, bash] = toolCalls(s.peer.transcript);
    expect([read!.status, edit!.status, bash!.status]).toEqual(["in_progress", "pending", "pending"]);
    const editUpdates = forCall(s.peer.transcript, edit!.toolCallId as string);
    expect(editUpdates.map((u) => u.status)).toEqual(["pending", "in_progress", "completed"]);
    expect(editUpdates[2]).toMatchObject({
      content: [{ type: "diff", path: file, oldText: "Hello, moon!\n", newText: "Hello, world!\n" }],
      locations: [{ path: file, line: 1 }],
    });
    expect(forCall(s.peer.transcript, bash!.toolCallId as string).at(-1)).toMatchObject({ status: "completed", rawOutput: { meta: { exitCode: 0 } } });
    expect(lastToolResults(fake!).at(-1)).toBe("1\n[exit code: 0]");
    const chunks = updates(s.peer.transcript)
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => (u.content as { text: string }).text);
    expect(chunks.join("")).toBe("greeting.txt now says Hello, world!");
    expect(chunks.length).toBeGreaterThan(2);
    expect(updates(s.peer.transcript).find((u) => u.sessionUpdate === "usage_update")).toMatchObject({ size: 100_000, used: expect.any(Number) });
    await s.end();
  });

  test("a refused permission is a tool result the model reads; the turn goes on", async () => {
    const s = await session(protocol, script.turns, (p) => ((p.toolCall as { kind: string }).kind === "edit" ? "reject_once" : "allow_once"));
    expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
    expect(greeting()).toBe("Hello, moon!\n");
    const edit = toolCalls(s.peer.transcript)[1]!;
    expect(forCall(s.peer.transcript, edit.toolCallId as string).at(-1)).toMatchObject({
      status: "failed",
      rawOutput: { isError: true, error: { code: "PERMISSION_REJECTED" } },
    });
    // The request after the refusal carries it, code first.
    const afterRefusal = fake!.requests[2]!;
    expect(JSON.stringify(afterRefusal.body.messages)).toContain("Error PERMISSION_REJECTED: The user refused this edit; nothing was run or changed.");
    await s.end();
  });
});

describe("writes", () => {
  test("a new file and a replacement are asked for with their diffs (no old text for the new file) and reported with them", async () => {
    const turns: FakeTurn[] = [
      { toolCalls: [{ name: "write", arguments: { path: "notes/todo.txt", content: "one\n" } }] },
      { toolCalls: [{ name: "read", arguments: { path: "greeting.txt" } }] },
      { toolCalls: [{ name: "write", arguments: { path: "greeting.txt", content: "Hi, world!\n" } }] },
      { text: "done" },
    ];
    const s = await session("openai", turns, "allow_once");
    expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
    const created = join(workspace.cwd, "notes/todo.txt");
    const replaced = join(workspace.cwd, "greeting.txt");
    expect([readFileSync(created, "utf8"), greeting()]).toEqual(["one\n", "Hi, world!\n"]);
    expect(s.asked.map((p) => p.toolCall)).toMatchObject([
      { kind: "edit", status: "pending", content: [{ type: "diff", path: created, oldText: null, newText: "one\n" }] },
      { kind: "edit", status: "pending", content: [{ type: "diff", path: replaced, oldText: "Hello, moon!\n", newText: "Hi, world!\n" }] },
    ]);
    const [first, , second] = toolCalls(s.peer.transcript);
    expect(forCall(s.peer.transcript, first!.toolCallId as string).at(-1)).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path: created, oldText: null, newText: "one\n" }],
    });
    expect(forCall(s.peer.transcript, second!.toolCallId as string).at(-1)).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path: replaced, oldText: "Hello, moon!\n", newText: "Hi, world!\n" }],
    });
    await s.end();
  });
});

describe("permissions", () => {
  const twoOfEach: FakeTurn[] = [
    { toolCalls: [{ name: "read", arguments: { path: "greeting.txt" } }] },
    { toolCalls: [{ name: "edit", arguments: { path: "greeting.txt", old_string: "moon", new_string: "world" } }] },
    { toolCalls: [{ name: "bash", arguments: { command: "true" } }] },
    { toolCalls: [{ name: "edit", arguments: { path: "greeting.txt", old_string: "Hello", new_string: "Goodbye" } }] },
    { toolCalls: [{ name: "bash", arguments: { command: "true" } }] },
    { text: "done" },
  ];

  test("allow always is remembered for the session, per kind of call", async () => {
    const s = await session("openai", twoOfEach, "allow_always");
    expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
    expect(s.asked.map((p) => (p.toolCall as { kind: string }).kind)).toEqual(["edit", "execute"]);
    expect(greeting()).toBe("Goodbye, world!\n");
    // A call allowed from memory runs from the start, with no pending state.
    expect(toolCalls(s.peer.transcript).map((u) => u.status)).toEqual(["in_progress", "pending", "pending", "in_progress", "in_progress"]);
    await s.end();
  });

  test("reject always is remembered too: the second edit is refused without asking", async () => {
    const s = await session("openai", twoOfEach, (p) => ((p.toolCall as { kind: string }).kind === "edit" ? "reject_always" : "allow_once"));
    expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
    expect(s.asked.map((p) => (p.toolCall as { kind: string }).kind)).toEqual(["edit", "execute", "execute"]);
    expect(greeting()).toBe("Hello, moon!\n");
    expect(lastToolResults(fake!)[3]).toBe("Error PERMISSION_REJECTED: The user has refused every file change in this session; this edit was not run.");
    await s.end();
  });

  test.for([
    ["allow-edits", ["execute", "execute"]],
    ["allow-all", []],
  ] as const)("--permission-mode %s asks for %j", async ([mode, kinds]) => {
    const s = await session("openai", twoOfEach, "allow_once", { permissionMode: mode });
    expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
    expect(s.asked.map((p) => (p.toolCall as { kind: string }).kind)).toEqual(kinds);
    expect(greeting()).toBe("Goodbye, world!\n");
    await s.end();
  });

  test("a sandbox refusal retried with wider access is put to the user, and runs once allowed", async () => {
    const outside = realpathSync(await fsp.mkdtemp(join(tmpdir(), "toolfs-outside-")));
    try {
      const target = join(outside, "note.txt");
      const turns: FakeTurn[] = [
        { toolCalls: [{ name: "write", arguments: { path: target, content: "x\n" } }] },
        {
          toolCalls: [
            { name: "write", arguments: { path: target, content: "x\n", sandbox_permissions: "full-access", justification: "The user asked for it there." } },
          ],
        },
        { text: "written" },
      ];
      const s = await session("openai", turns, "allow_once", { permissionMode: "allow-all", sandbox: { mode: "workspace-write" } });
      expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
      expect(s.asked).toHaveLength(1);
      expect(s.asked[0]).toMatchObject({
        toolCall: {
          title: `full access to write ${target}`,
          content: [{ type: "content", content: { type: "text", text: expect.stringContaining("The model's reason: The user asked for it there.") } }],
          locations: [{ path: target }],
        },
        options: [{ kind: "allow_once" }, { kind: "reject_once" }],
      });
      expect(readFileSync(target, "utf8")).toBe("x\n");
      expect(lastToolResults(fake!)[0]).toMatch(/^Error FS_SANDBOX_DENIED: \[sandbox: workspace-write\]/);
      await s.end();
    } finally {
      await fsp.rm(outside, { recursive: true, force: true });
    }
  });

  test("an escalation through a symlink is asked under the file that would change, with the rule and the roots", async () => {
    const outside = realpathSync(await fsp.mkdtemp(join(tmpdir(), "toolfs-outside-")));
    try {
      const secret = join(outside, "secret.txt");
      await fsp.writeFile(secret, "old\n");
      await fsp.symlink(secret, join(workspace.cwd, "notes.txt"));
      const turns: FakeTurn[] = [
        { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
        { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "x\n" } }] },
        { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "x\n", sandbox_permissions: "full-access", justification: "Notes." } }] },
        { text: "written" },
      ];
      const s = await session("openai", turns, "allow_once", { permissionMode: "allow-all", sandbox: { mode: "workspace-write" } });
      expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
      expect(s.asked).toHaveLength(1);
      const toolCall = s.asked[0]!.toolCall as { title: string; content: { content: { text: string } }[]; locations: unknown };
      expect(toolCall.title).toBe(`full access to write ${secret} (given as notes.txt)`);
      expect(toolCall.content[0]!.content.text).toContain(`it is outside the writable roots (${realpathSync(workspace.cwd)})`);
      expect(toolCall.locations).toEqual([{ path: secret }]);
      expect(readFileSync(secret, "utf8")).toBe("x\n");
      await s.end();
    } finally {
      await fsp.rm(outside, { recursive: true, force: true });
    }
  });
});

describe("what a permission request shows", () => {
  test("a bash request's title is the whole command, every line of it", async () => {
    const command = "echo one\necho two > two.txt";
    const turns: FakeTurn[] = [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "done" }];
    const s = await session("openai", turns, "reject_once");
    expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
    expect((s.asked[0]!.toolCall as { title: string }).title).toBe(command);
    await s.end();
  });

  test("without a sandbox, a write through a symlink is asked for under the file it would change", async () => {
    const outside = realpathSync(await fsp.mkdtemp(join(tmpdir(), "toolfs-outside-")));
    try {
      const secret = join(outside, "secret.txt");
      await fsp.writeFile(secret, "old\n");
      await fsp.symlink(secret, join(workspace.cwd, "notes.txt"));
      const turns: FakeTurn[] = [
        { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
        { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "new\n" } }] },
        { text: "written" },
      ];
      const s = await session("openai", turns, "reject_once");
      expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
      const asked = s.asked[0]!.toolCall as { title: string; locations: unknown; content: { path: string; oldText: string }[] };
      expect(asked.title).toBe(`write in notes.txt, which leads to ${secret}`);
      expect(asked.locations).toEqual([{ path: secret }]);
      expect(asked.content[0]).toMatchObject({ type: "diff", path: secret, oldText: "old\n", newText: "new\n" });
      expect(readFileSync(secret, "utf8")).toBe("old\n");
      await s.end();
    } finally {
      await fsp.rm(outside, { recursive: true, force: true });
    }
  });
});

describe("cancellation", () => {
  test.for(["openai", "anthropic"] as const)("session/cancel mid-stream ends the turn as cancelled and closes the %s stream", async (protocol) => {
    const s = await session(protocol, [{ text: "after the cancel" }], "allow_once");
    fake!.queue.push({ kind: "hang", text: "Let me look" });
    const prompt = s.prompt();
    await s.peer.next(
      (m) => m.method === "session/update" && (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === "agent_message_chunk",
    );
    await s.peer.notify("session/cancel", { sessionId: s.sessionId });
    expect((await prompt).result).toEqual({ stopReason: "cancelled" });
    await fake!.hangClosed;
    // The session goes on: the next prompt is answered by the script.
    expect((await s.prompt("again")).result).toMatchObject({ stopReason: "end_turn" });
    await s.end();
  });

  test("session/cancel while a permission request is open ends the turn without running the call", async () => {
    const s = await session("openai", script.turns.slice(1), "never");
    const prompt = s.prompt();
    await s.peer.next((m) => m.method === "session/request_permission");
    await s.peer.notify("session/cancel", { sessionId: s.sessionId });
    expect((await prompt).result).toMatchObject({ stopReason: "cancelled" });
    expect(greeting()).toBe("Hello, moon!\n");
    await s.end();
  });
});

describe("what the model gets wrong", () => {
  test("an unknown tool and malformed arguments are tool results with their codes; nothing is asked or run", async () => {
    const turns: FakeTurn[] = [
      { toolCalls: [{ name: "delete_everything", arguments: {} }] },
      { toolCalls: [{ name: "edit", arguments: '{"path": "greeting.txt", "old_' }] },
      { text: "gave up" },
    ];
    const s = await session("openai", turns, "allow_once");
    expect((await s.prompt()).result).toMatchObject({ stopReason: "end_turn" });
    expect(s.asked).toEqual([]);
    const failed = updates(s.peer.transcript).filter((u) => u.status === "failed");
    expect(failed.map((u) => (u.rawOutput as { error: { code: string } }).error.code)).toEqual(["TOOL_UNKNOWN", "TOOL_INVALID_ARGUMENTS"]);
    const [unknown, malformed] = lastToolResults(fake!);
    expect(unknown).toBe('Error TOOL_UNKNOWN: Unknown tool "delete_everything"; available: read, write, edit, delete, move, glob, grep, bash');
    expect(malformed).toBe(
      'Error TOOL_INVALID_ARGUMENTS: Invalid arguments for edit: not a JSON object ("{\\"path\\": \\"greeting.txt\\", \\"old_"). Send the arguments as one JSON object.',
    );
    expect(greeting()).toBe("Hello, moon!\n");
    await s.end();
  });
});

describe("the context budget", () => {
  test("near the window, the oldest tool outputs become one-line notes; the latest stay whole", async () => {
    for (const name of ["one", "two", "three"]) await fsp.writeFile(join(workspace.cwd, `${name}.txt`), `${name} line of text for the budget\n`.repeat(150));
    const scripted = createScriptedModel(
      parseScript(
        JSON.stringify({
          turns: [...["one", "two", "three"].map((n) => ({ toolCalls: [{ name: "read", arguments: { path: `${n}.txt` } }] })), { text: "done" }],
        }),
      ),
    );
    const seen: ModelMessage[][] = [];
    // About 1,500 tokens per read and 1,300 for the header at four bytes a token: from the third request on, the
    // conversation would pass 80% of 4,000 tokens.
    const model: Model = { contextWindow: 4000, next: (request) => (seen.push([...request.messages]), scripted.next(request)) };
    const lines: string[] = [];
    const s = await started(model, "allow_once", { log: (line) => lines.push(line) });
    expect((await s.prompt()).result).toEqual({ stopReason: "end_turn" });
    const tools = (messages: ModelMessage[]) => messages.flatMap((m) => (m.role === "tool" ? [m.content] : []));
    expect(tools(seen[1]!)[0]).toMatch(/^1: one line/);
    expect(tools(seen[2]!)[0]).toMatch(/^\[Elided to fit the context window: the \d+-byte output of read in one\.txt\. Run it again if you need it\.\]$/);
    expect(tools(seen[2]!)[1]).toMatch(/^1: two line/);
    expect(
      tools(seen[3]!)
        .slice(0, 2)
        .every((t) => t.startsWith("[Elided")),
    ).toBe(true);
    expect(tools(seen[3]!)[2]).toMatch(/^1: three line/);
    expect(lines).toContain("toolfs acp: elided 1 old tool output(s) to fit the 4000-token context window");
    await s.end();
  });

  test("without a known window nothing is elided", async () => {
    for (const name of ["one", "two", "three"]) await fsp.writeFile(join(workspace.cwd, `${name}.txt`), `${name} line of text for the budget\n`.repeat(150));
    const scripted = createScriptedModel(
      parseScript(
        JSON.stringify({
          turns: [...["one", "two", "three"].map((n) => ({ toolCalls: [{ name: "read", arguments: { path: `${n}.txt` } }] })), { text: "done" }],
        }),
      ),
    );
    const seen: ModelMessage[][] = [];
    const s = await started({ next: (request) => (seen.push([...request.messages]), scripted.next(request)) }, "allow_once");
    await s.prompt();
    expect(seen[3]!.filter((m) => m.role === "tool" && m.content.startsWith("[Elided"))).toEqual([]);
    await s.end();
  });
});

describe("the coding composition", () => {
  test("its header matches the pinned files, and its README states the size", async () => {
    const request = await codingHeaderRequest(workspace.cwd);
    for (const [name, text] of Object.entries(headerFiles(request, workspace.cwd))) expectPinned(name, text, codingDir);
    expect(request.tools.map((t) => t.name)).toEqual(["read", "write", "edit", "delete", "move", "glob", "grep", "bash"]);
    const { bytes, tokens } = headerSize(request);
    expect(readFileSync(join(codingDir, "README.md"), "utf8")).toContain(`${bytes} bytes, about ${tokens} tokens`);
  });

  test("a model trained on apply_patch (OpenAI's) is offered it after edit; others are not", async () => {
    const openai = createOpenAIModel({ model: "gpt-5-codex" });
    expect(openai.applyPatch).toBe(true);
    expect(createOpenAIModel({ model: "llama3.1:8b" }).applyPatch).toBeUndefined();
    const request = await codingHeaderRequest(workspace.cwd, { model: openai });
    expect(request.tools.map((t) => t.name)).toEqual(["read", "write", "edit", "apply_patch", "delete", "move", "glob", "grep", "bash"]);
    const scripted = createScriptedModel(parseScript(JSON.stringify({ applyPatch: true, turns: [{ text: "ok" }] })));
    expect((await codingHeaderRequest(workspace.cwd, { model: scripted })).tools.map((t) => t.name)).toContain("apply_patch");
    const { bytes } = headerSize(request);
    // The size with apply_patch, as the closing note of issue 20 reports it.
    expect(bytes).toBeGreaterThan(headerSize(await codingHeaderRequest(workspace.cwd)).bytes);
  });

  test.for(["read-only", "workspace-write"] as const)("under a %s sandbox bash is left out, and the header and the log say so", async (mode) => {
    const lines: string[] = [];
    const request = await codingHeaderRequest(workspace.cwd, { sandbox: { mode }, log: (line) => lines.push(line) });
    expect(request.tools.map((t) => t.name)).toEqual(["read", "write", "edit", "delete", "move", "glob", "grep"]);
    const note = `bash is not available: its commands cannot be held to the ${mode} sandbox here (no OS confinement (bubblewrap) was configured)`;
    expect(request.system.endsWith(`\n${note}`)).toBe(true);
    expect(lines).toEqual([`toolfs acp: ${note}`]);
  });

  test("with OS confinement, bash is offered under a confining sandbox and says what the sandbox allows", async () => {
    const confinement = { kind: "bubblewrap", available: true, program: "bwrap" } as const;
    const request = await codingHeaderRequest(workspace.cwd, { sandbox: { mode: "workspace-write", confinement } });
    expect(request.tools.map((t) => t.name)).toContain("bash");
    expect(request.system).toContain("bash commands run sandboxed: files can be written only in");
  });

  test("under full-access bash is offered", async () => {
    const request = await codingHeaderRequest(workspace.cwd, { sandbox: { mode: "full-access" } });
    expect(request.tools.map((t) => t.name)).toContain("bash");
    expect(existsSync(join(workspace.cwd, "greeting.txt"))).toBe(true);
  });
});
