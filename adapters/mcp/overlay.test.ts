// The MCP server over an overlay: the patch as a resource, and a commit the client's user approves.
import type { Volume } from "memfs";
import { afterEach, describe, expect, test } from "vitest";
import { createEngineBackend, createMemorySpillStore, createOverlayProvider, createOverlaySearchBackend } from "../../core/mod.ts";
import { createMemoryProvider, createMemoryVolume } from "../memory/mod.ts";
import type { McpRuntime, McpWorkspace } from "./mod.ts";
import { type Paired, pair } from "./support.ts";

const open: Paired[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((p) => p.close()));
});

// One overlay per set of roots over one volume, as `toolfs mcp --backend overlay` keeps one per roots.
function overlayRuntime(files: Record<string, string>): McpRuntime & { volume: Volume } {
  const volume = createMemoryVolume();
  for (const [path, content] of Object.entries(files)) {
    volume.mkdirSync(path.slice(0, path.lastIndexOf("/")) || "/", { recursive: true });
    volume.writeFileSync(path, content);
  }
  const workspaces = new Map<string, McpWorkspace>();
  return {
    volume,
    async workspace(roots) {
      const key = roots.join("\0");
      let workspace = workspaces.get(key);
      if (!workspace) {
        const base = createMemoryProvider({ volume, cwd: roots[0] ?? "/" });
        const overlay = createOverlayProvider({ base });
        workspace = { fs: overlay, overlay, search: createOverlaySearchBackend(overlay, createEngineBackend(base)), spill: createMemorySpillStore() };
        workspaces.set(key, workspace);
      }
      return workspace;
    },
    async realDirectory(path) {
      return volume.existsSync(path) ? path : undefined;
    },
  };
}

async function session(answer: "accept" | "refuse" | "decline" | undefined, files: Record<string, string> = { "/ws/a.txt": "alpha\n" }) {
  const runtime = overlayRuntime(files);
  const asked: string[] = [];
  const capabilities = answer === undefined ? {} : { elicitation: { form: {} } };
  const paired = await pair({ runtime, roots: ["/ws"] }, { capabilities }, (c) => {
    if (answer === undefined) return;
    c.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      return answer === "decline" ? { action: "decline" } : { action: "accept", content: { apply: answer === "accept" } };
    });
  });
  open.push(paired);
  const { client } = paired;
  const call = async (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  await call("read", { path: "a.txt" });
  await call("edit", { path: "a.txt", old_string: "alpha", new_string: "beta" });
  await call("write", { path: "new.txt", content: "n\n" });
  return { client, runtime, asked, call };
}

describe("an overlay session", () => {
  test("lists the commit tool and the changes resource; the tools' writes stay out of the files", async () => {
    const { client, runtime } = await session("accept");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["read", "write", "edit", "glob", "grep", "commit"]);
    expect(client.getInstructions()).toContain("Writes are kept apart from the real files until commit applies them");
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([["toolfs://overlay/changes.patch", "text/x-diff"]]);
    const read = await client.readResource({ uri: "toolfs://overlay/changes.patch" });
    expect((read.contents[0] as { text: string }).text).toBe(
      "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-alpha\n+beta\n" +
        "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+n\n",
    );
    expect([runtime.volume.readFileSync("/ws/a.txt", "utf8"), runtime.volume.existsSync("/ws/new.txt")]).toEqual(["alpha\n", false]);
  });

  test("commit asks the user, then applies the changes", async () => {
    const { runtime, asked, call } = await session("accept");
    const result = await call("commit", {});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ committed: ["a.txt", "new.txt"], conflicts: [], pending: [] });
    expect(asked).toEqual([
      "Apply 2 changed files: a.txt (modified), new.txt (created) to the real files? The patch is the resource toolfs://overlay/changes.patch.",
    ]);
    expect([runtime.volume.readFileSync("/ws/a.txt", "utf8"), runtime.volume.readFileSync("/ws/new.txt", "utf8")]).toEqual(["beta\n", "n\n"]);
    expect((await call("commit", {})).content).toEqual([{ type: "text", text: "Nothing to commit: no file was changed." }]);
  });

  test.for([
    ["refuse", 1],
    ["decline", 1],
    [undefined, 0],
  ] as const)("an answer of %s applies nothing", async ([answer, questions]) => {
    const { runtime, asked, call } = await session(answer);
    const result = await call("commit", {});
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ error: { name: "McpError", code: "MCP_COMMIT_UNAPPROVED" } });
    expect(asked).toHaveLength(questions);
    expect(runtime.volume.readFileSync("/ws/a.txt", "utf8")).toBe("alpha\n");
  });

  test("a file changed on disk after the session read it is a conflict: nothing is applied", async () => {
    const { runtime, call } = await session("accept");
    runtime.volume.writeFileSync("/ws/a.txt", "someone else's\n");
    const result = await call("commit", {});
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      committed: [],
      conflicts: [{ path: "a.txt", reason: "modified" }],
      pending: ["a.txt", "new.txt"],
      error: { name: "McpError", code: "MCP_COMMIT_CONFLICT" },
    });
    expect([runtime.volume.readFileSync("/ws/a.txt", "utf8"), runtime.volume.existsSync("/ws/new.txt")]).toEqual(["someone else's\n", false]);
    const some = await call("commit", { paths: ["new.txt"] });
    expect(some.structuredContent).toEqual({ committed: ["new.txt"], conflicts: [], pending: [] });
    const none = await call("commit", { paths: ["nothing-here.txt"] });
    expect(none.structuredContent).toEqual({ error: { name: "OverlayError", code: "OVERLAY_NOT_CHANGED" } });
    expect((await call("commit", { paths: "a.txt" })).structuredContent).toEqual({ error: { name: "ToolError", code: "TOOL_INVALID_ARGUMENTS" } });
  });
});
