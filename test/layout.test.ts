// The layout's rules, checked: core and the suite stay runtime-neutral, adapters are reached only by
// their entry points, and package.json, deno.json and the build agree on the entry points.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const isTest = (file: string) => /\.test\.ts$/.test(file);

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

function specifiers(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g)) found.push(m[1]!);
  return found;
}

// Code with comments and string literals blanked, so words in prose and module paths are not mistaken for uses.
function withoutComments(code: string): string {
  return code
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`])\/\/.*$/gm, "$1")
    .replace(/(["'`])(?:\\.|(?!\1)[^\\\n])*\1/g, '""');
}

const builtins = new Set(builtinModules.flatMap((name) => [name, name.split("/")[0]!]));
const runtimeGlobals = /(?<![\w$.])(?:process\s*[.[]|Buffer\b|Deno\b|window\s*\.|document\s*\.|require\s*\()/;

describe("runtime neutrality", () => {
  const neutral = ["core", "conformance", "fixtures"].flatMap(sources).filter((f) => !isTest(f));

  test("core, conformance and fixtures have sources to check", () => {
    expect(neutral.length).toBeGreaterThan(20);
  });

  test.for(neutral)("%s imports nothing runtime-specific", (file) => {
    const code = withoutComments(readFileSync(join(root, file), "utf8"));
    for (const spec of specifiers(code)) {
      expect(spec.startsWith("node:") || builtins.has(spec) || spec.startsWith("npm:") || spec.startsWith("jsr:"), spec).toBe(false);
    }
    expect(code.match(runtimeGlobals)?.[0]).toBeUndefined();
  });

  test("a file that reaches for a runtime is caught by the same checks", () => {
    const bad = 'import { readFile } from "node:fs";\nimport os from "os";\nconst x = process.env.HOME;\n';
    expect(specifiers(bad)).toEqual(["node:fs", "os"]);
    expect(builtins.has("os")).toBe(true);
    expect(withoutComments(bad).match(runtimeGlobals)?.[0]).toBe("process.");
    expect(withoutComments("// process.exit is not called\nconst y = 1;").match(runtimeGlobals)).toBeNull();
    expect(withoutComments('import { x } from "./window.ts";\nconst s = "Deno.exit";').match(runtimeGlobals)).toBeNull();
    expect(withoutComments("const w = globalThis.window; window.alert(1);").match(runtimeGlobals)?.[0]).toBe("window.");
  });
});

describe("adapter boundaries", () => {
  const library = ["core", "conformance", "fixtures"].flatMap(sources);

  test.for(library)("%s does not import an adapter", (file) => {
    const code = readFileSync(join(root, file), "utf8");
    for (const spec of specifiers(code)) expect(spec.includes("adapters/"), spec).toBe(false);
  });

  test("adapters reach core only through its entry point", () => {
    for (const file of sources("adapters").filter((f) => !isTest(f))) {
      for (const spec of specifiers(readFileSync(join(root, file), "utf8"))) {
        if (spec.includes("/core/")) expect(spec, file).toMatch(/\/core\/mod\.ts$/);
      }
    }
  });
});

// The cycles among `files` (relative paths), following every relative import, export-from and dynamic
// import, type-only ones included: a cycle is one room that was split in two, whatever the runtime makes of it.
function importCycles(files: readonly string[], read: (file: string) => string): string[][] {
  const known = new Set(files);
  const edges = new Map(
    files.map((file) => [
      file,
      specifiers(read(file))
        .filter((s) => s.startsWith("."))
        .map((s) => join(file, "..", s))
        .filter((to) => known.has(to)),
    ]),
  );
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    path.push(file);
    for (const to of edges.get(file) ?? []) {
      if (state.get(to) === "open") cycles.push([...path.slice(path.indexOf(to)), to]);
      else if (!state.has(to)) visit(to);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}

describe("import graph", () => {
  test("no import cycle under core/ and adapters/", () => {
    const files = [...sources("core"), ...sources("adapters")];
    expect(importCycles(files, (file) => readFileSync(join(root, file), "utf8")).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  test("the check finds a cycle, type-only and through a re-export included", () => {
    const code: Record<string, string> = {
      "a/x.ts": 'import type { Y } from "./y.ts";',
      "a/y.ts": 'export { z } from "../b/z.ts";',
      "b/z.ts": 'const x = await import("../a/x.ts");',
      "b/w.ts": 'import { z } from "./z.ts";',
    };
    expect(importCycles(Object.keys(code), (file) => code[file]!)).toEqual([["a/x.ts", "a/y.ts", "b/z.ts", "a/x.ts"]]);
  });
});

// Room sizes (issue 19): a source file under core/ or adapters/ holds at most MAX_LINES lines, or says in its
// first comment block why it is one unit, in a sentence that starts "Over 400 lines:". Lines as an editor
// numbers them: `wc -l`'s count, plus a last line left without its newline.
const MAX_LINES = 400;

function lineCount(code: string): number {
  return code.split("\n").length - (code.endsWith("\n") ? 1 : 0);
}

// The text of the comment the file opens with (a run of `//` lines or one block comment), markers dropped.
function headerComment(code: string): string {
  const found = code.match(/^\s*((?:\/\/[^\n]*(?:\n|$))+|\/\*[\s\S]*?\*\/)/);
  if (!found) return "";
  return found[1]!
    .replace(/^\s*(?:\/\/+|\/\*+|\*+\/|\*+)/gm, "")
    .replace(/\*\/$/, "")
    .replace(/\s+/g, " ")
    .trim();
}

function overLong(files: readonly string[], read: (file: string) => string): string[] {
  return files.filter((file) => {
    const code = read(file);
    return lineCount(code) > MAX_LINES && !/(?:^|[.!?] )Over 400 lines: \S/.test(headerComment(code));
  });
}

describe("room sizes", () => {
  test(`every source file under core/ and adapters/ has at most ${MAX_LINES} lines, or says why in its header`, () => {
    const files = [...sources("core"), ...sources("adapters")].filter((f) => !isTest(f));
    expect(files.length).toBeGreaterThan(20);
    expect(overLong(files, (file) => readFileSync(join(root, file), "utf8"))).toEqual([]);
  });

  test("the check catches a long file without the reason, and only that", () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `const x${i} = ${i};\n`).join("");
    const code: Record<string, string> = {
      "short.ts": `// A file.\n${lines(399)}`,
      "long.ts": `// A file.\n${lines(400)}`,
      "unterminated.ts": `// A file.\n${lines(400)}const last = 1;`,
      "reason.ts": `// A file.\n//\n// Over 400 lines: one parser, whose cases belong together.\n${lines(400)}`,
      "jsdoc.ts": `/**\n * A file. Over 400 lines: one table.\n */\n${lines(400)}`,
      "late.ts": `// A file.\n${lines(200)}// Over 400 lines: said too late.\n${lines(200)}`,
      "mid-sentence.ts": `// A file that is not Over 400 lines: no.\n${lines(400)}`,
      "empty-reason.ts": `// Over 400 lines:\n${lines(400)}`,
    };
    expect(lineCount(code["short.ts"]!)).toBe(400);
    expect(lineCount(code["long.ts"]!)).toBe(401);
    expect(overLong(Object.keys(code), (file) => code[file]!)).toEqual(["long.ts", "unterminated.ts", "late.ts", "mid-sentence.ts", "empty-reason.ts"]);
  });
});

describe("entry points", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const deno = JSON.parse(readFileSync(join(root, "deno.json"), "utf8"));
  const npmEntries = Object.entries(pkg.exports as Record<string, unknown>).filter(([k]) => k !== "./package.json");

  test("package.json and deno.json export the same subpaths", () => {
    expect(npmEntries.map(([k]) => k).sort()).toEqual(Object.keys(deno.exports).sort());
    for (const required of [".", "./node", "./deno", "./memory", "./conformance"]) expect(deno.exports).toHaveProperty(required);
  });

  test.for(npmEntries)("the build emits ESM and declarations for %s, with the source's exports", async ([subpath, target]) => {
    const { import: js, types } = target as { import: string; types: string };
    expect(existsSync(join(root, js)), `${js} (run npm run build)`).toBe(true);
    expect(existsSync(join(root, types)), types).toBe(true);
    const built = await import(pathToFileURL(join(root, js)).href);
    const source = await import(pathToFileURL(join(root, deno.exports[subpath])).href);
    expect(Object.keys(built).sort()).toEqual(Object.keys(source).sort());
  });

  test("the runtime-neutral declarations type-check without any runtime's types", () => {
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const check = () => execFileSync(process.execPath, [tsc, "-p", "test/dist-types.tsconfig.json"], { cwd: root, stdio: "pipe" });
    expect(check).not.toThrow();
  });
});

// One naming rule for files (docs/notes/0019): lowercase words joined by hyphens; a file that runs on one
// runtime only says which with a `.node` or `.deno` segment; tests end `.test.ts` (vitest) or `.deno.test.ts`
// (deno test); a tool's configuration keeps the `.config` or `.tsconfig` segment the tool looks for. Fixtures
// keep the names their cases need, and a few files keep the names every reader expects.
const fileName = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.(?:node|deno|config|tsconfig))?(?:\.test)?\.[a-z]+$/;
const exempt = new Set(["README.md", "LICENSE", ".gitignore", ".git-blame-ignore-revs"]);

describe("file names", () => {
  const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((path) => path !== "" && !path.startsWith("fixtures/") && !path.startsWith(".ci/"));

  test("every tracked file outside fixtures follows the rule", () => {
    expect(tracked.length).toBeGreaterThan(100);
    const names = tracked.map((path) => path.split("/").pop()!);
    expect(names.filter((name) => !exempt.has(name) && !fileName.test(name))).toEqual([]);
  });

  test("the rule refuses the shapes it replaced", () => {
    for (const bad of ["main_deno.ts", "conformance_test.ts", "mapError.ts", "Races.ts", "races.bun.ts"]) expect(fileName.test(bad), bad).toBe(false);
    for (const good of ["map-error.ts", "main.deno.ts", "conformance.deno.test.ts", "cli.test.ts", "0019-habits.md"])
      expect(fileName.test(good), good).toBe(true);
  });
});

// A note named in the code or the docs is one that exists: "docs/notes/0015-overlay.md", "note 0015",
// "docs/notes/0015" — a renumbered or renamed note would otherwise leave readers at a dead end.
describe("note references", () => {
  const notes = readdirSync(join(root, "docs/notes"));
  const references = (text: string) => ({
    files: [...text.matchAll(/docs\/notes\/(\d{4}-[a-z0-9-]+\.md)/g)].map((m) => m[1]!),
    numbers: [...text.matchAll(/(?:[Nn]otes? |docs\/notes\/)(\d{4})(?![-\d])/g)].map((m) => m[1]!),
  });

  test("every note a tracked file names exists, by file name or by number", () => {
    const tracked = execFileSync("git", ["ls-files", "*.ts", "*.md", "*.json"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
    const dangling: string[] = [];
    for (const path of tracked) {
      const { files, numbers } = references(readFileSync(join(root, path), "utf8"));
      for (const file of files) if (!notes.includes(file)) dangling.push(`${path}: docs/notes/${file}`);
      for (const number of numbers) if (!notes.some((note) => note.startsWith(`${number}-`))) dangling.push(`${path}: note ${number}`);
    }
    expect(dangling).toEqual([]);
  });

  test("the check reads both forms", () => {
    // Spelled in pieces, so this file names no missing note itself.
    const dir = "docs/notes";
    expect(references(`see ${dir}/0099-nothing.md and note ${"0098"}, ${dir}/0097`)).toEqual({
      files: ["0099-nothing.md"],
      numbers: ["0098", "0097"],
    });
  });
});
