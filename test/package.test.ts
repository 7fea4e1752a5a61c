// The package as npm ships it: what `npm pack` puts in the tarball, and what installing that tarball into a
// fresh project brings (no install script, nothing rebuilt, no optional integration), with the CLI, import and
// require working there and the public entry points exporting the API rather than internals.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { minimalPdf } from "../conformance/pdf.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const npm = (args: string[], cwd: string) =>
  spawnSync("npm", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
  });

let scratch: string;
let tarball: string;
let files: string[];
let project: string;
let install: { stdout: string; stderr: string; status: number | null };

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "toolfs-pack-"));
  // The build has run already (npm test builds before vitest); --ignore-scripts keeps pack from rebuilding.
  const packed = npm(["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], root);
  expect(packed.status, packed.stderr).toBe(0);
  const [report] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
  tarball = join(scratch, report.filename);
  files = report.files.map((f) => f.path).sort();
  project = join(scratch, "project");
  execFileSync("mkdir", [project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }));
  install = npm(["install", "--prefer-offline", tarball], project);
}, 240_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("npm pack", () => {
  test("ships the build, the README and the LICENSE, and no sources, tests or fixtures", () => {
    expect(files).toContain("package.json");
    expect(files).toContain("README.md");
    expect(files).toContain("LICENSE");
    for (const target of Object.values(pkg.exports as Record<string, { import?: string; types?: string } | string>)) {
      if (typeof target === "string") continue;
      expect(files).toContain(target.import!.slice(2));
      expect(files).toContain(target.types!.slice(2));
    }
    expect(files).toContain("dist/cli.js");
    const stray = files.filter((f) => !/^(dist\/.+\.(js|d\.ts)|package\.json|README\.md|LICENSE)$/.test(f));
    expect(stray).toEqual([]);
    // The conformance suite's declarations name the fixture trees' types; no fixture data or test ships besides.
    expect(files.some((f) => f.endsWith(".test.js") || (f.includes("fixtures") && !f.endsWith(".d.ts")))).toBe(false);
  });

  test("declares the heavy integrations as optional peers, and no unused dependency", () => {
    const dependencies = Object.keys(pkg.dependencies).sort();
    expect(dependencies).toEqual(["@vscode/ripgrep", "diff", "eventsource-parser", "image-size", "re2js", "zod"]);
    // Each one is imported by the build itself (or a subpath of it: image-size/types/png), not only listed.
    const built = files
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(root, f), "utf8"))
      .join("\n");
    for (const name of dependencies)
      expect(built, name).toMatch(new RegExp(`from ["']${name.replace(/[/.]/g, "\\$&")}(/[^"']+)?["']|import\\(["']${name.replace(/[/.]/g, "\\$&")}["']\\)`));
    const optional = Object.entries(pkg.peerDependenciesMeta as Record<string, { optional: boolean }>).filter(([, meta]) => meta.optional);
    expect(optional.map(([name]) => name).sort()).toEqual([
      "@agentclientprotocol/sdk",
      "@modelcontextprotocol/server",
      "@openai/agents",
      "ai",
      "memfs",
      "unpdf",
    ]);
    for (const name of Object.keys(pkg.peerDependencies)) expect(pkg.devDependencies, name).toHaveProperty(name);
  });
});

describe("installed from the tarball into a fresh project", () => {
  test("installs without install scripts or rebuilds, and without the optional integrations", () => {
    expect(install.status, install.stderr).toBe(0);
    expect(`${install.stdout}\n${install.stderr}`).not.toMatch(/install-scripts|allowScripts|rebuil|gyp/i);
    const installed = readdirSync(join(project, "node_modules"));
    for (const absent of ["memfs", "ai", "@agentclientprotocol", "@modelcontextprotocol", "@openai", "unpdf"]) expect(installed).not.toContain(absent);
  });

  test("the CLI runs a tool; mcp without its SDK says what to install", () => {
    writeFileSync(join(project, "hello.txt"), "hi\n");
    const bin = join(project, "node_modules/.bin/toolfs");
    expect(execFileSync(bin, ["read", '{"path":"hello.txt"}'], { cwd: project, encoding: "utf8" })).toBe("1: hi\n\n(End of file: 1 line.)\n");
    const mcp = spawnSync(bin, ["mcp", "--root", project], { cwd: project, encoding: "utf8", input: "" });
    expect(mcp.status).toBe(2);
    expect(mcp.stderr).toContain("npm i @modelcontextprotocol/server");
  });

  test("read of a PDF without unpdf says what to install", () => {
    writeFileSync(join(project, "doc.pdf"), minimalPdf(["one page"]));
    const bin = join(project, "node_modules/.bin/toolfs");
    const read = spawnSync(bin, ["read", '{"path":"doc.pdf"}'], { cwd: project, encoding: "utf8" });
    const out = `${read.stdout}\n${read.stderr}`;
    expect(out).toContain(
      'Cannot read "doc.pdf": reading PDFs needs the optional package unpdf, which is not installed. Tell the user to install it: npm install unpdf',
    );
    expect(out).not.toMatch(/\n\s+at /);
  });

  test("import and require load the same module; an entry whose peer is missing names the package", () => {
    writeFileSync(
      join(project, "use.mjs"),
      'import * as toolfs from "toolfs";\nimport { createRequire } from "node:module";\n' +
        'const required = createRequire(import.meta.url)("toolfs");\n' +
        "console.log(typeof toolfs.createToolkit, required.createToolkit === toolfs.createToolkit);\n" +
        'await import("toolfs/mcp").catch((e) => console.log(e.code, e.message.includes("@modelcontextprotocol/server")));\n',
    );
    expect(execFileSync(process.execPath, ["use.mjs"], { cwd: project, encoding: "utf8" })).toBe("function true\nERR_MODULE_NOT_FOUND true\n");
  });
});

test("the public entry points export the API, not internals", async () => {
  const index = Object.keys(await import(join(root, "dist/index.js"))).sort();
  expect(index).toEqual(
    [
      "BoundedCollector",
      "CodedError",
      "DEFAULT_BASH_ENV",
      "DEFAULT_LIMITS",
      "FS_ERROR_CODES",
      "FsError",
      "HeadTailCollector",
      "OVERLAY_ERROR_CODES",
      "OverlayError",
      "PATCH_ERROR_CODES",
      "PROCESS_ERROR_CODES",
      "PatchError",
      "ProcessError",
      "SANDBOX_MODES",
      "SEARCH_ERROR_CODES",
      "SearchError",
      "TOOL_ERROR_CODES",
      "TOOL_TRAITS",
      "ToolError",
      "approvalMessage",
      "approvalText",
      "createEngineBackend",
      "createFileSystem",
      "createFsSpillStore",
      "createMemorySpillStore",
      "createOverlayProvider",
      "createOverlaySearchBackend",
      "createOverlayUpper",
      "createProcessRunner",
      "createRipgrepBackend",
      "createToolkit",
      "decodeText",
      "defineTool",
      "encodeUtf8",
      "fromWholeResults",
      "isFsError",
      "isOverlayError",
      "isPatchError",
      "isProcessError",
      "isSearchError",
      "parsePatch",
      "planPatch",
      "resultJsonSchema",
      "searchFiles",
      "searchGrep",
      "spillDirectoryIn",
      "strictToolSchema",
      "structuredResult",
      "withFallback",
    ].sort(),
  );
});
