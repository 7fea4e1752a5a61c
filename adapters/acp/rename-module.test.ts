// The done-when scenario of issue 20: a scripted OpenAI-style model, in the coding agent over ACP, renames
// src/utils.ts to src/strings.ts, fixes its 22 importers with one apply_patch, deletes an obsolete file and adds
// a test. Run on node, on memory and on the overlay (then committed), the trees must be byte-identical, and
// equal to the tree `git apply` of git's own diff of the change gives (fixtures/acp/rename-module/).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { fixtureBytes, renameModuleTree } from "../../fixtures/mod.ts";
import { inProcessAgent, root, scenarioWorkspace, type TranscriptEntry } from "../../test/acp-driver.ts";
import { snapshot } from "../../test/patch-tree.ts";
import { createMemoryProvider } from "../memory/mod.ts";
import { createNodeProvider } from "../node/mod.ts";
import { createEngineBackend } from "../../core/mod.ts";
import { type AcpAgentOptions, COMPOSITIONS, createScriptedModel, parseScript } from "./mod.ts";

const dir = join(root, "fixtures/acp/rename-module");
const PROMPT = "Rename src/utils.ts to src/strings.ts and fix its imports, delete the obsolete src/legacy.ts, add a test for the string helpers.";
const files = Object.fromEntries(renameModuleTree.files.map((f) => [f.path, fixtureBytes(f)]));

const disposers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose();
});

async function workspace(): Promise<string> {
  const ws = await scenarioWorkspace(renameModuleTree);
  disposers.push(ws.dispose);
  return ws.cwd;
}

// One session: the prompt, then (on the overlay) /commit; returns the transcript.
async function session(cwd: string, options: Partial<AcpAgentOptions>, commit = false): Promise<readonly TranscriptEntry[]> {
  const model = createScriptedModel(parseScript(readFileSync(join(dir, "script.json"), "utf8")));
  const { peer, done } = inProcessAgent({ composition: COMPOSITIONS.coding!, permissionMode: "allow-all", ...options, model });
  await peer.request("initialize", { protocolVersion: 1 });
  const created = await peer.request("session/new", { cwd, mcpServers: [] });
  const sessionId = (created.result as { sessionId: string }).sessionId;
  const answer = await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: PROMPT }] });
  expect(answer.result).toEqual({ stopReason: "end_turn" });
  if (commit) await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/commit" }] });
  await peer.close();
  await done;
  return peer.transcript;
}

// The apply_patch call's completion: one call, completed, one diff per file.
function patchCall(transcript: readonly TranscriptEntry[]): Record<string, unknown>[] {
  const updates = transcript.flatMap((m) =>
    "agent" in m && m.agent.method === "session/update" ? [(m.agent.params as { update: Record<string, unknown> }).update] : [],
  );
  const started = updates.filter((u) => u.sessionUpdate === "tool_call" && String(u.title).startsWith("apply_patch"));
  expect(started.length).toBe(1);
  return updates.filter((u) => u.toolCallId === started[0]!.toolCallId && u.sessionUpdate === "tool_call_update");
}

const filesOnly = (tree: Record<string, string | null>) => Object.fromEntries(Object.entries(tree).filter(([, v]) => v !== null));

// The tree git apply makes of git's own diff of the change.
async function gitTree(): Promise<Record<string, string | null>> {
  const cwd = await workspace();
  execFileSync("git", ["apply", join(dir, "change.diff")], { cwd });
  return filesOnly(await snapshot(createNodeProvider({ cwd })));
}

test("node and memory: one apply_patch renames the module, fixes 22 importers, deletes one file and adds a test, as git apply does", async () => {
  const expected = await gitTree();
  expect(Object.keys(expected)).toContain("src/strings.ts");
  expect(Object.keys(expected)).not.toContain("src/legacy.ts");

  const cwd = await workspace();
  const onNode = await session(cwd, {});
  const completed = patchCall(onNode).at(-1)!;
  expect(completed.status).toBe("completed");
  const node = filesOnly(await snapshot(createNodeProvider({ cwd })));
  expect(node).toEqual(expected);

  const memory = createMemoryProvider({ files, cwd: "/ws" });
  const runtime = { provider: () => memory, search: createEngineBackend(memory), runner: undefined as never };
  const onMemory = await session("/ws", { runtime });
  expect(patchCall(onMemory).at(-1)!.status).toBe("completed");
  expect(filesOnly(await snapshot(memory))).toEqual(expected);
});

test("the overlay, then committed, leaves the same tree as git apply", async () => {
  const expected = await gitTree();
  const cwd = await workspace();
  await session(cwd, { overlay: true }, true);
  expect(filesOnly(await snapshot(createNodeProvider({ cwd })))).toEqual(expected);
});
