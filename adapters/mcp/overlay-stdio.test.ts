// `toolfs mcp --backend overlay` as a client starts it, under Node (the built bin) and Deno: edits stay out
// of the files until the commit the client's user approves; and --backend memory, whose copy the files never see.
import { promises as fsp, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { root } from "../../test/acp-driver.ts";

const cli = join(root, "dist/cli.js");
const deno = join(root, "node_modules/.bin/deno");

let ws: string;
beforeEach(async () => {
  ws = realpathSync(await fsp.mkdtemp(join(tmpdir(), "toolfs-mcp-overlay-")));
  await fsp.mkdir(join(ws, "src"));
  await fsp.writeFile(join(ws, "src/app.ts"), "export const retries = 3;\n");
});
afterEach(() => fsp.rm(ws, { recursive: true, force: true }));

const servers = {
  node: async () => ({ command: process.execPath, args: [cli, "mcp", "--root", ws, "--backend", "overlay"] }),
  deno: async () => {
    const { rgPath } = await import("@vscode/ripgrep");
    const reads = [root, realpathSync(join(root, "node_modules")), ws, tmpdir()].join(",");
    const args = ["run", "--no-prompt", `--allow-read=${reads}`, `--allow-write=${ws},${tmpdir()}`, "--allow-env=npm_config_arch", `--allow-run=${rgPath}`];
    return { command: deno, args: [...args, join(root, "adapters/cli/main.deno.ts"), "mcp", "--root", ws, "--backend", "overlay"] };
  },
};

describe.each(Object.entries(servers))("toolfs mcp --backend overlay on %s", (_, server) => {
  test("an edit stays out of the file until the approved commit", async () => {
    const transport = new StdioClientTransport({ ...(await server()), env: { PATH: process.env.PATH ?? "" }, stderr: "pipe" });
    const client = new Client({ name: "overlay-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { apply: true } }));
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["read", "write", "edit", "glob", "grep", "commit"]);
      await client.callTool({ name: "read", arguments: { path: "src/app.ts" } });
      const edit = await client.callTool({ name: "edit", arguments: { path: "src/app.ts", old_string: "retries = 3", new_string: "retries = 5" } });
      expect(edit.isError).toBeFalsy();
      const grep = await client.callTool({ name: "grep", arguments: { pattern: "retries = 5" } });
      expect(grep.structuredContent).toMatchObject({ files: [{ path: "src/app.ts" }] });
      expect(readFileSync(join(ws, "src/app.ts"), "utf8")).toBe("export const retries = 3;\n");
      const patch = await client.readResource({ uri: "toolfs://overlay/changes.patch" });
      expect((patch.contents[0] as { text: string }).text).toContain("-export const retries = 3;\n+export const retries = 5;\n");
      const commit = await client.callTool({ name: "commit", arguments: {} });
      expect(commit.structuredContent).toEqual({ committed: ["src/app.ts"], conflicts: [], pending: [] });
      expect(readFileSync(join(ws, "src/app.ts"), "utf8")).toBe("export const retries = 5;\n");
    } finally {
      await client.close();
    }
  });
});

describe("toolfs mcp --backend memory (the built bin)", () => {
  test("the root is loaded into memory: edits and searches see the copy, the files on disk stay as they were", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "mcp", "--root", ws, "--backend", "memory"],
      env: { PATH: process.env.PATH ?? "" },
      stderr: "pipe",
    });
    const client = new Client({ name: "memory-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["read", "write", "edit", "glob", "grep"]);
      const read = await client.callTool({ name: "read", arguments: { path: "src/app.ts" } });
      expect(read.structuredContent).toMatchObject({ path: "src/app.ts", totalLines: 1 });
      const edit = await client.callTool({ name: "edit", arguments: { path: "src/app.ts", old_string: "retries = 3", new_string: "retries = 5" } });
      expect(edit.isError).toBeFalsy();
      const grep = await client.callTool({ name: "grep", arguments: { pattern: "retries = 5" } });
      expect(grep.structuredContent).toMatchObject({ files: [{ path: "src/app.ts" }] });
      const glob = await client.callTool({ name: "glob", arguments: { pattern: "*.ts" } });
      expect(glob.structuredContent).toMatchObject({ paths: ["src/app.ts"], total: 1 });
      expect(readFileSync(join(ws, "src/app.ts"), "utf8")).toBe("export const retries = 3;\n");
    } finally {
      await client.close();
    }
  });
});
