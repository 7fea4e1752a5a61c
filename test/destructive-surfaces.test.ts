// Destructive, non-idempotent file tools (issue 20 item 6) on every surface, with host-defined tools of the
// shape of apply_patch, delete and move: no surface knows their names, each reads their traits, permission,
// preview and `meta.files`. docs/notes/0018-open-tools.md, "Destructive tools on every surface".
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunContext } from "@openai/agents";
import { afterEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { createToolkit, type DefinedTool, defineTool, type ToolContext } from "../core/mod.ts";
import { createScriptedModel } from "../adapters/acp/mod.ts";
import { createAiToolSet } from "../adapters/ai/mod.ts";
import { memoryRuntime, type Paired, pair } from "../adapters/mcp/support.ts";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createOpenAIAgentsTools } from "../adapters/openai-agents/mod.ts";
import { inProcessAgent, type NdjsonPeer } from "./acp-driver.ts";

const destructive = { readOnly: false, destructive: true, idempotent: false, openWorld: false } as const;
const filesSchema = {
  files: {
    type: "array",
    items: {
      type: "object",
      properties: {
        path: { type: "string" },
        operation: { type: "string", enum: ["add", "update", "delete", "move"] },
        from: { type: "string" },
        diff: { type: "string" },
        added: { type: "integer", minimum: 0 },
        removed: { type: "integer", minimum: 0 },
      },
    },
  },
};

async function removeFile(context: ToolContext, path: string): Promise<void> {
  await context.fs.remove(await context.fs.resolve(path, { cwd: context.cwd }));
}

// A small patch tool in apply_patch's format: Add File (+ lines), Delete File, Update File with one
// `-old`/`+new` line pair, optionally moved. Enough to drive every operation a patch reports.
const patchFiles = defineTool({
  name: "patch_files",
  description: "Apply a patch.",
  schema: z.object({ input: z.string() }).strict(),
  traits: { title: "Patch files", ...destructive },
  result: filesSchema,
  kind: "edit",
  permission: "edit",
  async run({ input }, context) {
    const files: Record<string, unknown>[] = [];
    const blocks = input.split(/^(?=\*\*\* (?:Add|Update|Delete) File: )/m).slice(1);
    for (const block of blocks) {
      const [head, ...lines] = block.replace(/\n\*\*\* End Patch\n?$/, "\n").split("\n");
      const [, op, path] = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(head!)!;
      if (op === "Add") {
        const text = lines
          .filter((l) => l.startsWith("+"))
          .map((l) => `${l.slice(1)}\n`)
          .join("");
        await context.writeText(text, path);
        files.push({ path: path!, operation: "add", diff: `+${text}`, added: 1, removed: 0 });
      } else if (op === "Delete") {
        await context.readText(path);
        await removeFile(context, path!);
        files.push({ path: path!, operation: "delete", diff: "-…", added: 0, removed: 1 });
      } else {
        const moveTo = lines.find((l) => l.startsWith("*** Move to: "))?.slice("*** Move to: ".length);
        const old = lines.find((l) => l.startsWith("-"))!.slice(1);
        const next = lines.find((l) => l.startsWith("+"))!.slice(1);
        const { text } = await context.readText(path);
        await context.writeText(text.replace(old, next), path);
        if (moveTo !== undefined) {
          await context.fs.move(await context.fs.resolve(path!, { cwd: context.cwd }), await context.fs.resolve(moveTo, { cwd: context.cwd }));
          files.push({ path: moveTo, operation: "move", from: path!, diff: `-${old}\n+${next}`, added: 1, removed: 1 });
        } else files.push({ path: path!, operation: "update", diff: `-${old}\n+${next}`, added: 1, removed: 1 });
      }
    }
    return { content: `Patched ${files.length} files.`, meta: { files } };
  },
});

// delete's shape: one path, and a preview that says the file goes (null).
const deleteFile: DefinedTool = {
  ...defineTool({
    name: "delete_file",
    description: "Delete a file.",
    schema: z.object({ path: z.string().min(1) }).strict(),
    traits: { title: "Delete file", ...destructive },
    result: filesSchema,
    kind: "edit",
    permission: "edit",
    sequenced: true,
    async run({ path }, context) {
      await context.readText();
      await removeFile(context, path);
      return { content: `Deleted ${path}.`, meta: { files: [{ path, operation: "delete", diff: "-…", added: 0, removed: 1 }] } };
    },
  }),
  preview: () => null,
};

const PATCH = [
  "*** Begin Patch",
  "*** Add File: new.txt",
  "+fresh",
  "*** Update File: old.txt",
  "*** Move to: moved.txt",
  "@@",
  "-alpha",
  "+ALPHA",
  "*** Delete File: gone.txt",
  "*** End Patch",
].join("\n");

type Update = Record<string, unknown>;

function updates(peer: NdjsonPeer): Update[] {
  return peer.transcript.flatMap((m) => ("agent" in m && m.agent.method === "session/update" ? [(m.agent.params as { update: Update }).update] : []));
}

function permissionRequests(peer: NdjsonPeer): Update[] {
  return peer.transcript.flatMap((m) =>
    "agent" in m && m.agent.method === "session/request_permission" ? [(m.agent.params as { toolCall: Update }).toolCall] : [],
  );
}

async function prompt(peer: NdjsonPeer, cwd: string): Promise<void> {
  await peer.request("initialize", { protocolVersion: 1 });
  const created = await peer.request("session/new", { cwd, mcpServers: [] });
  const sessionId = (created.result as { sessionId: string }).sessionId;
  const response = await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(response.result).toMatchObject({ stopReason: "end_turn" });
}

describe("the ACP agent", () => {
  let cwd: string;
  afterEach(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  async function workspace(): Promise<string> {
    cwd = await mkdtemp(join(tmpdir(), "toolfs-destructive-"));
    await writeFile(join(cwd, "old.txt"), "alpha\nbeta\n");
    await writeFile(join(cwd, "gone.txt"), "obsolete\n");
    return cwd;
  }

  test("asks before a patch, showing it and its files; shows the result as one diff per file", async () => {
    await workspace();
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "patch_files", arguments: { input: PATCH } }] }, { text: "done" }] });
    const composition = { name: "patching", tools: ["read", patchFiles] as const, limits: {}, intro: "Work in {cwd}." };
    const { peer } = inProcessAgent({ model, composition, permissionMode: "ask" });
    peer.answer("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }));
    await prompt(peer, cwd);

    const [asked] = permissionRequests(peer);
    expect(asked).toMatchObject({
      title: "patch_files",
      kind: "edit",
      status: "pending",
      content: [{ type: "content", content: { type: "text", text: PATCH } }],
      locations: ["new.txt", "old.txt", "moved.txt", "gone.txt"].map((name) => ({ path: join(cwd, name) })),
    });
    const done = updates(peer).find((u) => u.status === "completed")!;
    expect(done.content).toEqual([
      { type: "diff", path: join(cwd, "new.txt"), oldText: null, newText: "fresh\n" },
      {
        type: "diff",
        path: join(cwd, "moved.txt"),
        oldText: "alpha\nbeta\n",
        newText: "ALPHA\nbeta\n",
        _meta: { toolfs: { operation: "move", from: join(cwd, "old.txt") } },
      },
      { type: "diff", path: join(cwd, "gone.txt"), oldText: "obsolete\n", newText: "", _meta: { toolfs: { operation: "delete" } } },
    ]);
    expect(done.locations).toEqual([{ path: join(cwd, "new.txt") }, { path: join(cwd, "moved.txt") }]);
    expect(await readFile(join(cwd, "moved.txt"), "utf8")).toBe("ALPHA\nbeta\n");
  });

  test("a delete is asked about as a diff to nothing, and refused it changes nothing", async () => {
    await workspace();
    const model = createScriptedModel({
      turns: [
        { toolCalls: [{ name: "delete_file", arguments: { path: "gone.txt" } }] },
        { toolCalls: [{ name: "delete_file", arguments: { path: "gone.txt" } }] },
        { text: "ok" },
      ],
    });
    const composition = { name: "deleting", tools: ["read", deleteFile] as const, limits: {}, intro: "Work in {cwd}." };
    const { peer } = inProcessAgent({ model, composition, permissionMode: "ask" });
    let answers = 0;
    peer.answer("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: answers++ === 0 ? "reject_once" : "allow_once" } }));
    await prompt(peer, cwd);

    const asked = permissionRequests(peer);
    expect(asked).toHaveLength(2);
    const gone = { type: "diff", path: join(cwd, "gone.txt"), oldText: "obsolete\n", newText: "", _meta: { toolfs: { operation: "delete" } } };
    expect(asked[0]).toMatchObject({ title: "delete_file in gone.txt", kind: "edit", content: [gone] });
    const all = updates(peer);
    expect(all.find((u) => u.status === "failed")).toMatchObject({ rawOutput: { error: { code: "PERMISSION_REJECTED" } } });
    expect(all.find((u) => u.status === "completed")).toMatchObject({ content: [gone] });
    await expect(readFile(join(cwd, "gone.txt"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  test("allow-edits runs them unasked, as writes and edits", async () => {
    await workspace();
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "delete_file", arguments: { path: "gone.txt" } }] }, { text: "ok" }] });
    const composition = { name: "deleting", tools: ["read", deleteFile] as const, limits: {}, intro: "Work in {cwd}." };
    const { peer } = inProcessAgent({ model, composition, permissionMode: "allow-edits" });
    await prompt(peer, cwd);
    expect(permissionRequests(peer)).toEqual([]);
    expect(updates(peer).find((u) => u.status === "completed")).toMatchObject({ content: [{ type: "diff", newText: "" }] });
  });
});

describe("MCP, the AI SDK and OpenAI Agents", () => {
  const open: Paired[] = [];
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((p) => p.close()));
  });

  test("MCP: annotations from the traits: destructive, not idempotent, not read-only, closed-world", async () => {
    const runtime = memoryRuntime();
    runtime.volume.mkdirSync("/ws", { recursive: true });
    runtime.volume.writeFileSync("/ws/gone.txt", "obsolete\n");
    const paired = await pair({ runtime, roots: ["/ws"], tools: ["read", deleteFile] });
    open.push(paired);
    const { tools } = await paired.client.listTools();
    expect(tools.find((t) => t.name === "delete_file")!.annotations).toEqual({
      title: "Delete file",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(tools.find((t) => t.name === "read")!.annotations).toEqual({ title: "Read file", readOnlyHint: true, openWorldHint: false });
    const result = await paired.client.callTool({ name: "delete_file", arguments: { path: "gone.txt" } });
    expect(result.structuredContent).toMatchObject({ files: [{ path: "gone.txt", operation: "delete" }] });
    expect(runtime.volume.existsSync("/ws/gone.txt")).toBe(false);
  });

  test("the AI SDK: served, and marked with the traits and permission a host's toolApproval reads", async () => {
    const fs = createMemoryProvider({ cwd: "/ws", files: { "gone.txt": "obsolete\n" } });
    const tools = createAiToolSet(createToolkit({ fs, tools: ["read", deleteFile] }));
    expect(tools.delete_file!.metadata).toEqual({
      source: "toolfs",
      title: "Delete file",
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: false,
      permission: "edit",
    });
    expect(tools.read!.metadata).toMatchObject({ readOnly: true, destructive: false });
    expect(tools.read!.metadata).not.toHaveProperty("permission");
    // No tool-level needsApproval: AI SDK 7 deprecates it for generateText's toolApproval.
    expect(tools.delete_file).not.toHaveProperty("needsApproval");
    const output = await tools.delete_file!.execute!({ path: "gone.txt" }, { toolCallId: "c", messages: [], context: {} } as never);
    expect(output).toMatchObject({ isError: false, meta: { files: [{ operation: "delete" }] } });
    expect(await fs.stat(await fs.resolve("/ws/gone.txt"))).toBeUndefined();
  });

  test("OpenAI Agents: a host's destructive tool is a function tool", async () => {
    const fs = createMemoryProvider({ cwd: "/ws", files: { "gone.txt": "obsolete\n" } });
    const tools = createOpenAIAgentsTools(createToolkit({ fs, tools: ["read", deleteFile, patchFiles] }));
    expect(tools.map((t) => t.name)).toEqual(["read", "delete_file", "patch_files"]);
    const remove = tools.find((t) => t.name === "delete_file")!;
    const text = await remove.invoke(new RunContext(), JSON.stringify({ path: "gone.txt" }), { toolCall: { callId: "c1" } } as never);
    expect(text).toBe("Deleted gone.txt.");
    expect(await fs.stat(await fs.resolve("/ws/gone.txt"))).toBeUndefined();
  });
});
