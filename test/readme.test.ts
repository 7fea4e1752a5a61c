// The README's promises, run: the usage example works as printed, and the one-line node:test binding of the
// conformance suite registers and passes cases.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { createNodeProcessRunner } from "../adapters/node/mod.ts";
import { detectBubblewrap } from "../core/mod.ts";
import { outsideTemp } from "./outside.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(root, "README.md"), "utf8");
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
const libraryBlock = blocks.find((b) => b.includes("createToolkit, decodeText"))!;
const bindingBlock = blocks.find((b) => b.includes("runConformance"))!;
const overlayBlock = blocks.find((b) => b.includes("createOverlayProvider"))!;
const wrapperBlock = blocks.find((b) => b.includes("createMemorySubject"))!;

function runModule(source: string, name: string): string {
  // Inside the repository so `toolfs/...` resolves to this package (self-reference through its exports).
  const dir = join(root, ".tmp");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, source);
  try {
    return execFileSync(process.execPath, ["--import", "tsx", file], { cwd: root, encoding: "utf8", stdio: "pipe" });
  } finally {
    rmSync(file, { force: true });
  }
}

test("the README's usage example runs as printed", () => {
  const workspace = mkdtempSync(join(tmpdir(), "toolfs-readme-"));
  try {
    writeFileSync(join(workspace, "notes.txt"), "first line\n");
    const example = libraryBlock.replace("/path/to/workspace", workspace);
    const output = runModule(example, "readme-example.ts");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("first line\none more line\n");
    expect(output).toContain("[ 'read', 'write', 'edit' ] 1: first line\n2: one more line\n\n(End of file: 2 lines.)");
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

test("the README's overlay example runs as printed: the patch, then the commit", () => {
  const workspace = mkdtempSync(join(tmpdir(), "toolfs-readme-"));
  try {
    writeFileSync(join(workspace, "notes.txt"), "first line\n");
    const output = runModule(overlayBlock.replace("/path/to/workspace", workspace), "readme-overlay.ts");
    expect(output).toContain(
      "[ 'modified notes.txt' ] diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,1 @@\n-first line\n+second line\n",
    );
    expect(output).toContain("true [ 'notes.txt' ] []");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("second line\n");
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

test("the README's overlay commands print the patch and leave README.md, or commit it, run on this README", () => {
  const lines = [...readme.matchAll(/^npx (toolfs read .+ --backend overlay(?: --commit)?)(?:\s+#.*)?$/gm)].map((m) => m[1]!);
  expect(lines).toHaveLength(2);
  const workspace = mkdtempSync(join(tmpdir(), "toolfs-readme-"));
  try {
    // The commands are run in a clone, on its README: this one, copied, so that --commit leaves the clone alone.
    writeFileSync(join(workspace, "README.md"), readme);
    const run = (line: string) => {
      const args = line
        .slice("toolfs ".length)
        .match(/'[^']*'|\S+/g)!
        .map((a) => a.replace(/^'|'$/g, ""));
      return execFileSync(process.execPath, [join(root, "dist/cli.js"), ...args], { cwd: workspace, encoding: "utf8" });
    };
    expect(run(lines[0]!)).toContain("-# toolfs\n+# toolfs!\n");
    expect(readFileSync(join(workspace, "README.md"), "utf8")).toBe(readme);
    expect(run(lines[1]!)).toContain("Committed 1 file: README.md");
    expect(readFileSync(join(workspace, "README.md"), "utf8")).toBe(readme.replace(/^# toolfs\n/, "# toolfs!\n"));
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

test("the README's first command runs the CLI on this directory", () => {
  const command = /^npm ci && npx (toolfs .+?)\s+#/m.exec(readme)?.[1];
  expect(command).toBeDefined();
  const args = command!
    .slice("toolfs ".length)
    .match(/'[^']*'|\S+/g)!
    .map((a) => a.replace(/^'|'$/g, ""));
  const output = execFileSync(process.execPath, [join(root, "dist/cli.js"), ...args], { cwd: root, encoding: "utf8" });
  expect(output).toMatch(/^1: # toolfs\n/);
  expect(output).toContain("Continue with offset=13.");
});

test("the README's apply_patch, delete and move lines run as printed", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolfs-readme-patch-"));
  try {
    mkdirSync(join(dir, "src"));
    mkdirSync(join(dir, "docs"));
    writeFileSync(join(dir, "src/app.ts"), "retries = 3\n");
    writeFileSync(join(dir, "old.ts"), "old\n");
    writeFileSync(join(dir, "docs/a.md"), "a\n");
    for (const tool of ["apply_patch", "delete"]) {
      const line = new RegExp(`^npx (toolfs .+ ${tool} '.+?')\\s+#`, "m").exec(readme)?.[1];
      expect(line, tool).toBeDefined();
      const args = line!
        .slice("toolfs ".length)
        .match(/'[^']*'|\S+/g)!
        .map((a) => a.replace(/^'|'$/g, ""));
      execFileSync(process.execPath, [join(root, "dist/cli.js"), "--root", dir, ...args], { encoding: "utf8" });
    }
    expect(readFileSync(join(dir, "src/main.ts"), "utf8")).toBe("retries = 5\n");
    expect(existsSync(join(dir, "src/app.ts")) || existsSync(join(dir, "old.ts")) || existsSync(join(dir, "docs"))).toBe(false);
    expect(readFileSync(join(dir, "guide/a.md"), "utf8")).toBe("a\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the README's sandboxed bash line lists the workspace and reports both writes refused, where bubblewrap works", async (context) => {
  const line = /^npx (toolfs bash '.+?' --sandbox workspace-write)\s+#/m.exec(readme)?.[1];
  expect(line).toBeDefined();
  const confinement = await detectBubblewrap(createNodeProcessRunner());
  if (!confinement.available) return context.skip(confinement.reason);
  // A home outside the temp directories, which workspace-write leaves writable (a CI home may be in one).
  const home = outsideTemp("toolfs-readme-home-");
  if (!("path" in home)) return context.skip(home.reason);
  const outside = ["/etc/x", join(home.path, "y")];
  // Were confinement broken, the command would create these: they must not exist before, and never after.
  expect(outside.filter((path) => existsSync(path))).toEqual([]);
  const workspace = mkdtempSync(join(tmpdir(), "toolfs-readme-"));
  try {
    writeFileSync(join(workspace, "listed.txt"), "x\n");
    const args = line!
      .slice("toolfs ".length)
      .match(/'[^']*'|\S+/g)!
      .map((a) => a.replace(/^'|'$/g, ""));
    const env = { ...process.env, HOME: home.path };
    const output = execFileSync(process.execPath, [join(root, "dist/cli.js"), ...args, "--root", workspace], { encoding: "utf8", env });
    expect(output).toContain("touch: cannot touch '/etc/x': Read-only file system");
    expect(output).toContain(`${join(home.path, "y")}: Read-only file system`);
    expect(output).toContain("listed.txt\n[exit code: 0]");
  } finally {
    for (const path of outside) rmSync(path, { force: true });
    home.dispose();
    rmSync(workspace, { recursive: true, force: true });
  }
});

test("the README's node:test binding runs the suite", () => {
  const binding = bindingBlock.split("\n").find((line) => line.includes('from "node:test"'))!;
  const call = bindingBlock.split("\n").find((_line, i, all) => i > 0 && all[i - 1] === binding)!;
  const source = [
    'import { runConformance } from "toolfs/conformance";',
    binding,
    'import { createMemorySubject } from "../adapters/memory/subject.ts";',
    "const createMySubject = () => createMemorySubject();",
    call,
  ].join("\n");
  const output = runModule(source.replace("createMySubject);", 'createMySubject, { groups: ["resolve"] });'), "readme-binding.ts");
  expect(output).toMatch(/# pass 1\d\b/);
  expect(output).toMatch(/# fail 0\b/);
}, 180_000);

test("the README's wrapper certification runs as printed, through the package's exports", () => {
  const source = wrapperBlock.replace("cwd }))));", 'cwd }))), { groups: ["resolve"] });');
  expect(source).not.toBe(wrapperBlock);
  const output = runModule(source, "readme-wrapper.ts");
  expect(output).toMatch(/# pass 1\d\b/);
  expect(output).toMatch(/# fail 0\b/);
}, 180_000);

test("handed createMemorySubject(wrap) itself, the suite names the mistake with a code", () => {
  const mistaken = wrapperBlock.replace("() => createMemorySubject(", "createMemorySubject(");
  expect(mistaken).not.toBe(wrapperBlock);
  let stderr = "";
  try {
    runModule(mistaken, "readme-wrapper-mistake.ts");
  } catch (error) {
    stderr = String((error as { stderr?: unknown }).stderr);
  }
  expect(stderr).toContain("ConformanceError: The conformance suite's createSubject must be a function; it was handed a Promise");
  expect(stderr).toContain("code: 'CONFORMANCE_NOT_A_FACTORY'");
}, 180_000);

// Whether an engines range admits `version`: the forms the lockfile holds (>=, <, ^, ~, bare or .x majors, ||);
// any other form throws, to be judged by hand.
function admits(range: string, version: readonly number[]): boolean {
  const cmp = (v: readonly number[]) => version.map((n, i) => n - (v[i] ?? 0)).find((d) => d !== 0) ?? 0;
  const parse = (text: string) =>
    text
      .split(".")
      .filter((part) => part !== "x")
      .map(Number);
  return range.split("||").some((alternative) =>
    alternative
      .replace(/([<>=^~]+)\s+/g, "$1")
      .trim()
      .split(/\s+/)
      .every((token) => {
        const [, op = "", text = ""] = /^([<>=^~]*)(\d[\d.x]*)$/.exec(token) ?? [];
        if (text === "") throw new Error(`engines range not understood: ${range}`);
        const v = parse(text);
        if (op === ">=") return cmp(v) >= 0;
        if (op === ">") return cmp(v) > 0;
        if (op === "<") return cmp(v) < 0;
        if (op === "<=") return cmp(v) <= 0;
        if (op === "^") return cmp(v) >= 0 && version[0] === v[0];
        if (op === "~") return cmp(v) >= 0 && version[0] === v[0] && version[1] === (v[1] ?? version[1]);
        if (op === "" || op === "=") return v.every((n, i) => version[i] === n);
        throw new Error(`engines range not understood: ${range}`);
      }),
  );
}

test("every package of the lockfile that declares more than Node 20 comes from one the README says needs Node 22", () => {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<
      string,
      {
        version?: string;
        engines?: { node?: string };
        dependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      }
    >;
  };
  const name = (key: string) => key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
  const direct = Object.keys({ ...lock.packages[""]!.dependencies, ...(lock.packages[""] as { devDependencies?: object }).devDependencies });
  // Where `from` (a lockfile key) finds `pkg`: its own node_modules, then each enclosing one, as Node looks.
  const resolve = (from: string, pkg: string): string | undefined => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
      const key = `${dir === "" ? "" : `${dir}/`}node_modules/${pkg}`;
      if (key in lock.packages) return key;
      if (dir === "") return undefined;
    }
  };
  // The direct dependencies a lockfile entry is reached from, through its dependents.
  const roots = (target: string, seen = new Set<string>()): string[] => {
    if (target === `node_modules/${name(target)}` && direct.includes(name(target))) return [name(target)];
    if (seen.has(target)) return [];
    seen.add(target);
    return Object.entries(lock.packages)
      .filter(
        ([key, entry]) =>
          key !== "" &&
          Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies }).some((pkg) => resolve(key, pkg) === target),
      )
      .flatMap(([key]) => roots(key, seen));
  };
  const needs22 = new Set<string>();
  for (const [key, entry] of Object.entries(lock.packages)) {
    const range = entry.engines?.node;
    if (key === "" || range === undefined) continue;
    if (!admits(range, [20, 19, 0])) for (const root of roots(key)) needs22.add(root);
  }
  expect([...needs22].sort()).toEqual(["@modelcontextprotocol/inspector", "@openai/agents", "acpx", "ai", "unpdf"]);
  const said = /Node 22 is what these declare:([\s\S]*?)\n\n/.exec(readme)?.[1];
  expect(said).toBeDefined();
  for (const phrase of ["`ai` 7", "OpenAI Agents SDK", "unpdf", "acpx", "MCP Inspector"]) expect(said).toContain(phrase);
});
