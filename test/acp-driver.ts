// Drives the ACP agent the way an editor does, with no SDK on the client side: NDJSON lines in, NDJSON lines
// out, every message kept in a transcript. Runs the pinned scenarios in-process or against a subprocess, and
// turns a run into the pinned files' text (volatile values templated).
import { type ChildProcess, spawn } from "node:child_process";
import { promises as fsp, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { createTwoFilesPatch } from "diff";
import { type AcpAgentOptions, COMPOSITIONS, createScriptedModel, type Model, type ModelRequest, parseScript, serveAcp } from "../adapters/acp/mod.ts";
import { nodeProbe } from "../adapters/node/subject.ts";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "../adapters/node/mod.ts";
import { type FixtureTree, globSamplingTree, seedTree } from "../fixtures/mod.ts";

export const root: string = fileURLToPath(new URL("..", import.meta.url));
export const scenarioDir: string = join(root, "fixtures/acp/glob-sampling");
export const scenarioScript: string = join(scenarioDir, "script.json");
export const codingDir: string = join(root, "fixtures/acp/coding");
export const codingScript: string = join(codingDir, "script.json");

export type Message = Record<string, unknown>;
export type TranscriptEntry = { readonly client: Message | string } | { readonly agent: Message };

const encoder = new TextEncoder();

/** The client end of one connection. */
export class NdjsonPeer {
  readonly transcript: TranscriptEntry[] = [];
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiters = new Set<{ test: (m: Message) => boolean; resolve: (m: Message) => void }>();
  readonly #answers = new Map<string, (params: Message) => unknown>();
  readonly #ended: Promise<void>;
  #nextId = 0;

  constructor(toAgent: WritableStream<Uint8Array>, fromAgent: ReadableStream<Uint8Array>) {
    this.#writer = toAgent.getWriter();
    this.#ended = this.#read(fromAgent);
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const message = JSON.parse(line) as Message;
        this.transcript.push({ agent: message });
        const answer = typeof message.method === "string" && "id" in message ? this.#answers.get(message.method) : undefined;
        const result = answer?.(message.params as Message);
        if (result !== undefined) void this.sendLine(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
        for (const waiter of this.#waiters) {
          if (!waiter.test(message)) continue;
          this.#waiters.delete(waiter);
          waiter.resolve(message);
        }
      }
    }
  }

  /** Sends one line as is: a message, or bytes that are not one. */
  async sendLine(line: string): Promise<void> {
    let entry: Message | string = line;
    try {
      entry = JSON.parse(line) as Message;
    } catch {
      // Kept as the raw text: the transcript shows what went on the wire.
    }
    this.transcript.push({ client: entry });
    await this.#writer.write(encoder.encode(`${line}\n`));
  }

  /**
   * Answers every request the agent sends with `method` (such as session/request_permission) with `answer`'s
   * result; a request it returns undefined for stays unanswered.
   */
  answer(method: string, answer: (params: Message) => unknown): this {
    this.#answers.set(method, answer);
    return this;
  }

  /** The first agent message from now on that passes `test`. */
  next(test: (message: Message) => boolean): Promise<Message> {
    return new Promise((resolve) => this.#waiters.add({ test, resolve }));
  }

  /** Sends a request and resolves with its response (a result or an error). */
  async request(method: string, params: unknown): Promise<Message> {
    const id = this.#nextId++;
    const response = this.next((m) => m.id === id && !("method" in m));
    await this.sendLine(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return response;
  }

  async notify(method: string, params: unknown): Promise<void> {
    await this.sendLine(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  /** Ends the input, as an editor closing the agent's stdin. */
  async close(): Promise<void> {
    await this.#writer.close();
  }

  /** Resolves once the agent's output has ended. */
  get ended(): Promise<void> {
    return this.#ended;
  }
}

/** A directory holding a scenario's tree, with its modification times. */
export async function scenarioWorkspace(tree: FixtureTree = globSamplingTree): Promise<{ cwd: string; dispose: () => Promise<void> }> {
  const cwd = realpathSync(await fsp.mkdtemp(join(tmpdir(), "toolfs-acp-")));
  await seedTree(nodeProbe(cwd, cwd), tree);
  return { cwd, dispose: () => fsp.rm(cwd, { recursive: true, force: true }) };
}

/** The adapters the Node agent runs with. */
export function nodeRuntime(): AcpAgentOptions["runtime"] {
  const runner = createNodeProcessRunner();
  return { provider: (cwd) => createNodeProvider({ cwd }), search: createNodeSearchBackend({ runner }), runner };
}

/**
 * An agent served in this process over in-memory byte streams; `done` settles once it has shut down. Unless
 * told otherwise it asks no permissions: the peer answers no requests until a test sets `answer`.
 */
export function inProcessAgent(options: Partial<AcpAgentOptions> & { model: Model | undefined }): { peer: NdjsonPeer; done: Promise<void> } {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const fromAgent = new TransformStream<Uint8Array, Uint8Array>();
  const done = serveAcp({
    composition: COMPOSITIONS["bash-glob-grep"]!,
    runtime: nodeRuntime(),
    permissionMode: "allow-all",
    ...options,
    input: toAgent.readable,
    output: fromAgent.writable,
  }).finally(() => fromAgent.writable.close());
  return { peer: new NdjsonPeer(toAgent.writable, fromAgent.readable), done };
}

/** The agent as a child process speaking on its stdio. */
export function subprocessAgent(
  command: string,
  args: readonly string[],
): { peer: NdjsonPeer; child: ChildProcess; stderr: () => string; exit: Promise<number | null> } {
  const child = spawn(command, [...args], { cwd: root, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const peer = new NdjsonPeer(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  return { peer, child, stderr: () => stderr, exit };
}

/**
 * How `deno run` starts the agent with least permissions: reads of the repository, node_modules and `reads`,
 * network access to `net` (a model's host:port) when given, and the programs the tools run.
 */
export async function denoAgentArgs(reads: readonly string[], acpArgs: readonly string[], net?: string): Promise<string[]> {
  const { rgPath } = await import("@vscode/ripgrep");
  return [
    "run",
    "--no-prompt",
    `--allow-read=${[root, realpathSync(join(root, "node_modules")), ...reads].join(",")}`,
    "--allow-env=npm_config_arch",
    ...(net === undefined ? [] : [`--allow-net=${net}`]),
    `--allow-run=${rgPath},bash,setsid,kill,ps`,
    join(root, "adapters/cli/main.deno.ts"),
    "acp",
    ...acpArgs,
  ];
}

/** Replays the scenario's input.jsonl, each request after the previous response, and returns the transcript. */
export async function runScenario(peer: NdjsonPeer, cwd: string): Promise<TranscriptEntry[]> {
  let sessionId = "";
  for (const line of readFileSync(join(scenarioDir, "input.jsonl"), "utf8").split("\n").filter(Boolean)) {
    const message = JSON.parse(line.replaceAll("{{cwd}}", cwd).replaceAll("{{sessionId}}", sessionId)) as { method: string; params: unknown };
    const response = await peer.request(message.method, message.params);
    const result = response.result as { sessionId?: string } | undefined;
    if (result?.sessionId) sessionId = result.sessionId;
  }
  return peer.transcript;
}

/**
 * The transcript as the pinned file holds it: one message per entry, with session ids, tool call ids, the
 * agent's version and the session directory replaced by placeholders.
 */
export function templateTranscript(transcript: readonly TranscriptEntry[], cwd: string): string {
  const volatile = new Map<string, string>();
  const visit = (value: unknown, key?: string): void => {
    if (Array.isArray(value)) for (const v of value) visit(v);
    else if (typeof value === "object" && value !== null) for (const [k, v] of Object.entries(value)) visit(v, k);
    else if (typeof value === "string" && !volatile.has(value)) {
      if (key === "sessionId") volatile.set(value, "{{sessionId}}");
      else if (key === "toolCallId") volatile.set(value, `{{toolCallId#${[...volatile.values()].filter((v) => v.startsWith("{{toolCallId")).length + 1}}}`);
    }
  };
  visit(transcript);
  let text = JSON.stringify(transcript, null, 2);
  for (const [value, placeholder] of volatile) text = text.replaceAll(JSON.stringify(value), JSON.stringify(placeholder));
  text = text.replace(/("agentInfo": \{[^}]*"version": )"[^"]*"/, '$1"{{version}}"');
  return `${text.replaceAll(cwd, "{{cwd}}")}\n`;
}

/** A scripted model that also keeps the requests it was sent. */
export function recordingModel(scriptFile: string = scenarioScript): { model: Model; requests: ModelRequest[] } {
  const scripted = createScriptedModel(parseScript(readFileSync(scriptFile, "utf8")));
  const requests: ModelRequest[] = [];
  return { model: { next: (request) => (requests.push(request), scripted.next(request)) }, requests };
}

/** The request a model receives first in a `coding` session in `cwd` (default sandbox, bash offered). */
export async function codingHeaderRequest(cwd: string, options: Partial<AcpAgentOptions> = {}): Promise<ModelRequest> {
  const requests: ModelRequest[] = [];
  const model: Model = {
    ...(options.model?.applyPatch ? { applyPatch: true } : {}),
    next: async (request) => (requests.push(request), { text: "ok", toolCalls: [] }),
  };
  const { peer, done } = inProcessAgent({ composition: COMPOSITIONS.coding!, ...options, model });
  await peer.request("initialize", { protocolVersion: 1 });
  const created = await peer.request("session/new", { cwd, mcpServers: [] });
  await peer.request("session/prompt", { sessionId: (created.result as { sessionId: string }).sessionId, prompt: [{ type: "text", text: "hi" }] });
  await peer.close();
  await done;
  return requests[0]!;
}

/** The pinned header files' text, from the first request a model received in a session in `cwd`. */
export function headerFiles(request: ModelRequest, cwd: string): { "system-prompt.expected.md": string; "tool-schemas.expected.json": string } {
  return {
    "system-prompt.expected.md": `${request.system.replaceAll(cwd, "{{cwd}}")}\n`,
    "tool-schemas.expected.json": `${JSON.stringify(request.tools, null, 2)}\n`,
  };
}

/** The header's size as a model receives it: the system prompt, and the tool schemas as compact JSON. */
export function headerSize(request: ModelRequest): { bytes: number; tokens: number } {
  const bytes = encoder.encode(request.system).length + encoder.encode(JSON.stringify(request.tools)).length;
  // About four bytes of English or JSON per token for current tokenizers; an estimate, not a count.
  return { bytes, tokens: Math.round(bytes / 4) };
}

/** Throws a unified diff when `actual` differs from the pinned file `name` in the scenario directory `dir`. */
export function expectPinned(name: string, actual: string, dir: string = scenarioDir): void {
  const file = join(dir, name);
  let expected: string;
  try {
    expected = readFileSync(file, "utf8");
  } catch {
    throw new Error(`${file} is missing; run npm run fixtures:update`);
  }
  if (actual === expected) return;
  const patch = createTwoFilesPatch(`${name} (pinned)`, `${name} (this run)`, expected, actual, undefined, undefined, { context: 2 });
  throw new Error(`${name} drifted from the pinned file. If the change is intended, run npm run fixtures:update.\n${patch}`);
}
