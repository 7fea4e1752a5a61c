// The ACP agent on an overlay: writes stay out of the files, /changes shows them, /undo takes back the last
// prompt turn (files and conversation), /commit applies them.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { inProcessAgent, type Message, scenarioWorkspace } from "../../test/acp-driver.ts";
import { COMPOSITIONS, createScriptedModel, type Model } from "./mod.ts";

let workspace: { cwd: string; dispose: () => Promise<void> };
beforeEach(async () => {
  workspace = await scenarioWorkspace({ name: "overlay", files: [] });
  writeFileSync(join(workspace.cwd, "a.txt"), "alpha\n");
});
afterEach(() => workspace.dispose());

const script = createScriptedModel({
  turns: [
    { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] },
    { toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "beta" } }] },
    { text: "first turn done" },
    { toolCalls: [{ name: "write", arguments: { path: "new.txt", content: "n\n" } }] },
    { text: "second turn done" },
  ],
});

test("an overlay session keeps writes apart, shows them, undoes the last turn and commits on request", async () => {
  const tools: string[][] = [];
  const model: Model = { next: (request) => (tools.push(request.tools.map((t) => t.name)), script.next(request)) };
  const { peer } = inProcessAgent({ model, overlay: true, composition: COMPOSITIONS.coding! });
  const isUpdate = (kind: string) => (m: Message) =>
    m.method === "session/update" && (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === kind;
  const said = () => peer.next(isUpdate("agent_message_chunk")).then((m) => (m.params as { update: { content: { text: string } } }).update.content.text);
  await peer.request("initialize", { protocolVersion: 1 });
  const advertised = peer.next(isUpdate("available_commands_update"));
  const created = await peer.request("session/new", { cwd: workspace.cwd, mcpServers: [] });
  const sessionId = (created.result as { sessionId: string }).sessionId;
  const commands = ((await advertised).params as { update: { availableCommands: { name: string }[] } }).update.availableCommands;
  expect(commands.map((c) => c.name)).toEqual(["changes", "commit", "undo"]);
  const prompt = (text: string) => peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const file = (name: string) => (existsSync(join(workspace.cwd, name)) ? readFileSync(join(workspace.cwd, name), "utf8") : undefined);

  expect((await prompt("change a")).result).toEqual({ stopReason: "end_turn" });
  expect(tools[0]).toEqual(["read", "write", "edit", "delete", "move", "glob", "grep"]);
  expect(file("a.txt")).toBe("alpha\n");

  let reply = said();
  await prompt("/changes");
  expect(await reply).toBe(
    "1 file changed, not applied yet (/commit applies them):\n\n```diff\ndiff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-alpha\n+beta\n```",
  );

  await prompt("and a new file");
  reply = said();
  await prompt("/undo");
  expect(await reply).toBe("Undid the last turn: new.txt is back as before, and the conversation forgets it.");
  // The conversation forgot the turn: the scripted model replays its fourth reply to the same history.
  expect((await prompt("the new file again")).result).toEqual({ stopReason: "end_turn" });
  expect([file("a.txt"), file("new.txt")]).toEqual(["alpha\n", undefined]);

  reply = said();
  await prompt("/commit");
  expect(await reply).toBe("Committed a.txt, new.txt.");
  expect([file("a.txt"), file("new.txt")]).toEqual(["beta\n", "n\n"]);
  reply = said();
  await prompt("/undo");
  expect(await reply).toBe("Nothing to undo since the last commit: what it applied is in the real files now.");
  await peer.close();
});
