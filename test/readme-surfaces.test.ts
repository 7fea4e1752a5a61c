// The README's quick starts for the MCP server, the AI SDK and the OpenAI Agents SDK, run as written: each
// client configuration is started as that client starts it (command and args, from a directory outside the
// repository) and driven by the MCP client; the Inspector command runs as printed; the SDK snippets run with
// the examples' scripted models standing in for `model`.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { detectBubblewrap } from "../core/mod.ts";
import { createNodeProcessRunner } from "../adapters/node/mod.ts";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const readme = readFileSync(join(root, "README.md"), "utf8");
const section = (title: string) => readme.slice(readme.indexOf(`## ${title}`), readme.indexOf("\n## ", readme.indexOf(`## ${title}`) + 3));
const fenced = (text: string, lang: string) => [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]!);

let project: string;
let home: string;
beforeEach(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-readme-project-")));
  home = mkdtempSync(join(tmpdir(), "toolfs-readme-home-"));
  mkdirSync(join(project, "src"));
  writeFileSync(join(project, "src/app.ts"), "export const retries = 3;\n");
});
afterEach(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

// The default sandbox offers bash confined by bubblewrap where it works, and leaves it out elsewhere.
const confinement = await detectBubblewrap(createNodeProcessRunner());
const TOOLS = ["read", "write", "edit", "glob", "grep", ...(confinement.available ? ["bash"] : [])];

const fill = (text: string) => text.replaceAll("/path/to/toolfs", root).replaceAll("/path/to/project", project);
// `npx --prefix <this repository> toolfs` runs the package's own bin, dist/cli.js, installing nothing. Were a
// future npm to install it instead, its lifecycle build would run; VITEST makes that build refuse (note 0011)
// rather than empty dist/ under the other tests, and the stamp check below would fail.
const env = () => ({ PATH: process.env.PATH ?? "", HOME: home, npm_config_update_notifier: "false", VITEST: "true" });
const stamp = () => readFileSync(join(root, "dist", ".build-stamp"), "utf8");

describe("An MCP server", () => {
  const configs = fenced(section("An MCP server"), "json");
  let built: string;
  beforeEach(() => {
    built = stamp();
  });
  afterEach(() => {
    expect(stamp(), "dist/ was rebuilt by the README's command").toBe(built);
  });

  test("has a configuration for Claude Desktop, Cursor and VS Code", () => {
    expect(configs).toHaveLength(3);
  });

  test.for([0, 1, 2])("client configuration %i starts a server that lists and calls the tools", async (index) => {
    const config = JSON.parse(fill(configs[index]!)) as { mcpServers?: Record<string, Entry>; servers?: Record<string, Entry> };
    type Entry = { command: string; args: string[]; type?: string };
    const entry = (config.mcpServers ?? config.servers)!.toolfs!;
    expect(entry.type ?? "stdio").toBe("stdio");
    // A desktop client starts servers from its own directory, not from this repository.
    const client = new Client({ name: "readme", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, cwd: home, env: env() }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
      const read = await client.callTool({ name: "read", arguments: { path: "src/app.ts" } });
      expect(read.structuredContent).toMatchObject({ path: "src/app.ts", totalLines: 1 });
    } finally {
      await client.close();
    }
  });

  test("the Inspector command prints the tool list, and calls a tool", () => {
    const [command] = fenced(section("An MCP server"), "sh");
    const args = fill(command!.trim()).split(/\s+/);
    expect(args[0]).toBe("npx");
    const output = execFileSync("npx", args.slice(1), {
      cwd: root,
      encoding: "utf8",
      env: { ...env(), MCP_CATALOG_PATH: join(home, "catalog.json") },
    });
    expect((JSON.parse(output) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(TOOLS);
    // The same command calls a tool.
    const call = args.slice(0, args.indexOf("--method"));
    expect(call.length).toBeGreaterThan(1);
    const read = execFileSync("npx", [...call.slice(1), "--method", "tools/call", "--tool-name", "read", "--tool-arg", "path=src/app.ts"], {
      cwd: root,
      encoding: "utf8",
      env: { ...env(), MCP_CATALOG_PATH: join(home, "catalog.json") },
    });
    expect((JSON.parse(read) as { content: { text: string }[] }).content[0]!.text).toBe("1: export const retries = 3;\n\n(End of file: 1 line.)");
  });
});

function runSnippet(source: string, name: string): string {
  // Inside the repository so `toolfs/...` resolves to this package (self-reference through its exports).
  const file = join(root, ".tmp", name);
  mkdirSync(join(root, ".tmp"), { recursive: true });
  writeFileSync(file, source);
  try {
    return execFileSync(process.execPath, ["--import", "tsx", file], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: "1" },
    });
  } finally {
    rmSync(file, { force: true });
  }
}

test("The AI SDK quick start runs as written", () => {
  const [snippet] = fenced(section("The AI SDK"), "ts");
  const output = runSnippet(`import { scriptedModel } from "../examples/ai-sdk.ts";\nconst model = scriptedModel();\n${fill(snippet!)}`, "readme-ai.ts");
  expect(output).toBe("retries is now 5 in src/app.ts.\n");
  expect(readFileSync(join(project, "src/app.ts"), "utf8")).toBe("export const retries = 5;\n");
});

test("The OpenAI Agents SDK quick start runs as written", () => {
  const [snippet] = fenced(section("The OpenAI Agents SDK"), "ts");
  const output = runSnippet(
    `import { scriptedModel } from "../examples/openai-agents.ts";\nconst model = scriptedModel();\n${fill(snippet!)}`,
    "readme-agents.ts",
  );
  expect(output).toBe("retries is now 5, and CHANGELOG.md records it.\n");
  expect(readFileSync(join(project, "src/app.ts"), "utf8")).toBe("export const retries = 5;\n");
  expect(readFileSync(join(project, "CHANGELOG.md"), "utf8")).toBe("# Changelog\n\n- retries is now 5\n");
});
