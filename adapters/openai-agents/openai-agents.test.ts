// toolfs/openai-agents: function tools built by the Agents SDK's own tool(), invoked as its runner invokes
// them, and the apply_patch Editor over the guarded seam.
import { RunContext } from "@openai/agents";
import { describe, expect, test } from "vitest";
import { createEngineBackend, createToolkit, type FileSystem, strictToolSchema } from "../../core/mod.ts";
import { createMemoryProvider, createMemoryVolume } from "../memory/mod.ts";
import { createOpenAIAgentsTools, createToolfsEditor } from "./mod.ts";

function setup(files: Record<string, string> = { "a.txt": "alpha\n" }) {
  const volume = createMemoryVolume();
  const fs = createMemoryProvider({ volume, cwd: "/ws", files });
  return { volume, fs, toolkit: createToolkit({ fs, search: createEngineBackend(fs), sandbox: { mode: "workspace-write" } }) };
}

const invoke = (tool: { invoke: (context: RunContext, input: string, details?: object) => Promise<unknown> }, args: unknown, details?: object) =>
  tool.invoke(new RunContext(), JSON.stringify(args), details) as Promise<string>;

describe("strictToolSchema", () => {
  test("makes every property required and nullable where it was optional, and maps nulls back", () => {
    const { toolkit } = setup();
    const read = toolkit.definitions.find((d) => d.name === "read")!.inputSchema;
    const strict = strictToolSchema(read);
    expect(strict.schema.required).toEqual(["path", "offset", "limit", "pages"]);
    expect(strict.schema.additionalProperties).toBe(false);
    expect((strict.schema.properties as Record<string, { anyOf?: unknown[] }>).offset!.anyOf).toContainEqual({ type: "null" });
    expect((strict.schema.properties as Record<string, unknown>).path).toEqual((read.properties as Record<string, unknown>).path);
    expect(strict.toInput({ path: "a", offset: null, limit: 5 })).toEqual({ path: "a", limit: 5 });
  });
});

describe("createOpenAIAgentsTools", () => {
  test("strict by default: the SDK accepts the schemas, and nulls for optional fields reach the toolkit as absent", async () => {
    const tools = createOpenAIAgentsTools(setup().toolkit);
    expect(tools.map((t) => [t.name, t.strict])).toEqual(["read", "write", "edit", "glob", "grep"].map((n) => [n, true]));
    for (const tool of tools) {
      const schema = tool.parameters as { required: string[]; properties: Record<string, unknown>; additionalProperties: boolean };
      expect(schema.required.sort()).toEqual(Object.keys(schema.properties).sort());
      expect(schema.additionalProperties).toBe(false);
    }
    const read = tools.find((t) => t.name === "read")!;
    expect(await invoke(read, { path: "a.txt", offset: null, limit: null })).toBe("1: alpha\n\n(End of file: 1 line.)");
    const edit = tools.find((t) => t.name === "edit")!;
    const edited = await invoke(edit, { path: "a.txt", old_string: "alpha", new_string: "beta", replace_all: null });
    expect(edited).toContain("Edited a.txt");
  });

  test("strict: false passes the toolkit's schema and arguments through", async () => {
    const tools = createOpenAIAgentsTools(setup().toolkit, { strict: false });
    const read = tools.find((t) => t.name === "read")!;
    expect(read.strict).toBe(false);
    expect(await invoke(read, { path: "a.txt" })).toContain("1: alpha");
    expect(await invoke(read, { path: "a.txt", offset: null })).toContain("Invalid arguments for read: offset");
  });

  test("the run's abort signal reaches the call, and each tool set is its own actor", async () => {
    const { toolkit } = setup();
    const [first, second] = [createOpenAIAgentsTools(toolkit), createOpenAIAgentsTools(toolkit)];
    const controller = new AbortController();
    controller.abort();
    const aborted = await invoke(first.find((t) => t.name === "read")!, { path: "a.txt", offset: null, limit: null }, { signal: controller.signal });
    expect(aborted).toMatch(/abort|cancel/i);
    await invoke(first.find((t) => t.name === "read")!, { path: "a.txt", offset: null, limit: null });
    const refused = await invoke(second.find((t) => t.name === "write")!, { path: "a.txt", content: "x" });
    expect(refused).toContain("has not been read");
  });
});

describe("createToolfsEditor", () => {
  const context = undefined;

  test("creates a file through a no-replace publication, and refuses to create over an existing one", async () => {
    const { fs, volume } = setup();
    const editor = createToolfsEditor({ fs });
    expect(await editor.createFile({ type: "create_file", path: "new.md", diff: "+# Title\n+body\n" }, context)).toEqual({
      status: "completed",
      output: "Created new.md",
    });
    expect(volume.readFileSync("/ws/new.md", "utf8")).toBe("# Title\nbody\n");
    const again = await editor.createFile({ type: "create_file", path: "a.txt", diff: "+x\n" }, context);
    expect(again).toMatchObject({ status: "failed" });
    expect(volume.readFileSync("/ws/a.txt", "utf8")).toBe("alpha\n");
  });

  test("updates keep the file's BOM and CRLF line endings", async () => {
    const { fs, volume } = setup({ "crlf.txt": "\uFEFFone\r\ntwo\r\nthree\r\n" });
    const editor = createToolfsEditor({ fs });
    const result = await editor.updateFile({ type: "update_file", path: "crlf.txt", diff: "@@\n one\n-two\n+TWO\n three\n" }, context);
    expect(result).toEqual({ status: "completed", output: "Updated crlf.txt" });
    expect(volume.readFileSync("/ws/crlf.txt", "utf8")).toBe("\uFEFFone\r\nTWO\r\nthree\r\n");
  });

  test("an update is published only over the version the diff was applied to", async () => {
    const { fs, volume } = setup({ "race.txt": "one\ntwo\n" });
    // A provider whose read is followed, before the write, by another writer's change.
    let raced = false;
    const racing = new Proxy(fs, {
      get(target, key) {
        if (key === "readBytes") {
          return async (...args: Parameters<FileSystem["readBytes"]>) => {
            const read = await target.readBytes(...args);
            volume.writeFileSync("/ws/race.txt", "someone else\n");
            raced = true;
            return read;
          };
        }
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const result = await createToolfsEditor({ fs: racing }).updateFile({ type: "update_file", path: "race.txt", diff: "@@\n one\n-two\n+2\n" }, context);
    expect(raced).toBe(true);
    expect(result).toMatchObject({ status: "failed" });
    expect((result as { output: string }).output).toMatch(/changed|modified|version/i);
    expect(volume.readFileSync("/ws/race.txt", "utf8")).toBe("someone else\n");
  });

  test("writes pass the sandbox fence", async () => {
    const { fs, volume } = setup();
    volume.mkdirSync("/elsewhere", { recursive: true });
    const editor = createToolfsEditor({ fs });
    const outside = await editor.createFile({ type: "create_file", path: "/elsewhere/x.txt", diff: "+x\n" }, context);
    expect(outside).toMatchObject({ status: "failed" });
    expect((outside as { output: string }).output).toContain("[sandbox: workspace-write]");
    expect(volume.existsSync("/elsewhere/x.txt")).toBe(false);
  });

  test("deletes a file through the fence; a missing file, a folder and a file outside are refused and kept", async () => {
    const { fs, volume } = setup({ "a.txt": "alpha\n", "dir/b.txt": "beta\n" });
    volume.mkdirSync("/elsewhere", { recursive: true });
    volume.writeFileSync("/elsewhere/x.txt", "x\n");
    const editor = createToolfsEditor({ fs });
    expect(await editor.deleteFile({ type: "delete_file", path: "a.txt" }, context)).toEqual({ status: "completed", output: "Deleted a.txt" });
    expect(volume.existsSync("/ws/a.txt")).toBe(false);
    expect(await editor.deleteFile({ type: "delete_file", path: "a.txt" }, context)).toEqual({
      status: "failed",
      output: "Cannot delete a.txt: it does not exist",
    });
    expect(await editor.deleteFile({ type: "delete_file", path: "dir" }, context)).toMatchObject({ status: "failed" });
    expect(volume.readFileSync("/ws/dir/b.txt", "utf8")).toBe("beta\n");
    const outside = await editor.deleteFile({ type: "delete_file", path: "/elsewhere/x.txt" }, context);
    expect((outside as { output: string }).output).toContain("[sandbox: workspace-write]");
    expect(volume.readFileSync("/elsewhere/x.txt", "utf8")).toBe("x\n");
  });

  test("an update with moveTo is updated and moved, into new folders; refused, it changes nothing", async () => {
    const { fs, volume } = setup({ "a.txt": "alpha\n", "taken.txt": "mine\n" });
    volume.mkdirSync("/elsewhere", { recursive: true });
    const editor = createToolfsEditor({ fs });
    const diff = "@@\n-alpha\n+ALPHA\n";
    for (const moveTo of ["taken.txt", "/elsewhere/a.txt"]) {
      expect(await editor.updateFile({ type: "update_file", path: "a.txt", diff, moveTo }, context)).toMatchObject({ status: "failed" });
      expect(volume.readFileSync("/ws/a.txt", "utf8")).toBe("alpha\n");
    }
    expect(volume.readFileSync("/ws/taken.txt", "utf8")).toBe("mine\n");
    expect(volume.existsSync("/elsewhere/a.txt")).toBe(false);
    expect(await editor.updateFile({ type: "update_file", path: "a.txt", diff, moveTo: "src/b.txt" }, context)).toEqual({
      status: "completed",
      output: "Updated a.txt and moved it to src/b.txt",
    });
    expect(volume.existsSync("/ws/a.txt")).toBe(false);
    expect(volume.readFileSync("/ws/src/b.txt", "utf8")).toBe("ALPHA\n");
  });

  test("the fence protects .git as the toolkit's does: the root's, a nested repository's, and a gitdir: file's target", async () => {
    const { fs, volume } = setup();
    volume.mkdirSync("/ws/.git/hooks", { recursive: true });
    volume.mkdirSync("/ws/sub/.git/hooks", { recursive: true });
    volume.mkdirSync("/ws/mod", { recursive: true });
    volume.writeFileSync("/ws/mod/.git", "gitdir: ../.modules/mod\n");
    for (const dir of ["/ws/.modules/mod/objects", "/ws/.modules/mod/refs"]) volume.mkdirSync(dir, { recursive: true });
    volume.writeFileSync("/ws/.modules/mod/HEAD", "ref: refs/heads/main\n");
    const editor = createToolfsEditor({ fs });
    for (const path of [".git/hooks/pre-commit", "sub/.git/hooks/pre-commit", ".modules/mod/hooks/pre-commit"]) {
      const result = await editor.createFile({ type: "create_file", path, diff: "+#!/bin/sh\n" }, context);
      expect(result).toMatchObject({ status: "failed" });
      expect((result as { output: string }).output).toContain("is protected and stays read-only");
      expect(volume.existsSync(`/ws/${path}`)).toBe(false);
    }
    expect(await editor.createFile({ type: "create_file", path: "sub/ok.txt", diff: "+ok\n" }, context)).toMatchObject({ status: "completed" });
  });
});
