// The build (`npm run build`; `npm ci` runs it as `prepare`): ESM bundles by tsup, then declarations by the
// TypeScript compiler file by file, without a type check (`npm test` type-checks separately; the sources
// declare their exported types, `isolatedDeclarations`, so no inference is needed). One small `.d.ts` per
// entry point re-exports its source's declarations. See docs/notes/0011-build-and-test.md.
//
// `--if-changed` skips the build when dist/ holds exactly what the current sources build to, by a digest of
// both recorded at the end of the last build: `npx toolfs` in this directory installs the package into npx's
// cache and runs `prepare` again, which must neither rebuild dist/ under a running test nor cost a minute.
// `--check` only says whether dist/ is up to date (exit 0) or not (exit 1).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type ts from "typescript";
import { entryNames } from "../tsup.config.ts";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");
const stampFile = join(dist, ".build-stamp");
/** Where the per-file declarations go, under dist/. */
const TYPES = "types";

// What the build reads: the sources of every entry point and their configuration. Tests are not built.
const INPUT_DIRS = ["core", "adapters", "conformance", "fixtures"];
const INPUT_FILES = ["package.json", "deno.json", "tsconfig.json", "tsconfig.node.json", "tsup.config.ts", "scripts/build.ts"];
const isTest = (path: string) => /\.test\.ts$/.test(path);

function files(dir: string, keep: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter(keep)
    .sort();
}

function digest(paths: readonly string[]): string {
  const hash = createHash("sha256");
  for (const path of paths) hash.update(relative(root, path)).update("\0").update(readFileSync(path)).update("\0");
  return hash.digest("hex");
}

const inputsDigest = () =>
  digest([...INPUT_DIRS.flatMap((dir) => files(join(root, dir), (path) => !isTest(path))), ...INPUT_FILES.map((file) => join(root, file))]);
const outputsDigest = () => digest(files(dist, (path) => path !== stampFile));

function upToDate(inputs: string): boolean {
  if (!existsSync(stampFile)) return false;
  const stamp = JSON.parse(readFileSync(stampFile, "utf8")) as { inputs?: unknown; outputs?: unknown };
  return stamp.inputs === inputs && stamp.outputs === outputsDigest();
}

function bundle(): void {
  const tsup = join(root, "node_modules", ".bin", "tsup");
  const result = spawnSync(tsup, [], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`tsup failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
}

// Relative specifiers keep their `.ts` in emitted declarations; `.js` is what every resolver expects there.
const jsSpecifiers = (text: string) => text.replace(/((?:from\s+|import\s*\(\s*)["']\.\.?\/[^"']*?)\.ts(["'])/g, "$1.js$2");

// Each file's declarations on their own (`isolatedDeclarations` makes that exact), for the files the entry
// points reach: no program, no type check, no standard library to load.
async function declarations(): Promise<void> {
  // Loaded only to build: an up-to-date check should not pay for the compiler.
  const ts = (await import("typescript")).default;
  const options: ts.CompilerOptions = {
    declaration: true,
    isolatedDeclarations: true,
    allowImportingTsExtensions: true,
    module: ts.ModuleKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
  };
  const pending = Object.values(entryNames).map((source) => join(root, source));
  const seen = new Set<string>();
  const problems: ts.Diagnostic[] = [];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith("./") && !fileName.startsWith("../")) continue;
      if (!fileName.endsWith(".ts")) throw new Error(`${relative(root, file)} imports ${fileName}: the build emits declarations for .ts files only`);
      pending.push(join(dirname(file), fileName));
    }
    const out = ts.transpileDeclaration(text, { fileName: file, compilerOptions: options, reportDiagnostics: true });
    problems.push(...(out.diagnostics ?? []));
    const target = join(dist, TYPES, relative(root, file).replace(/\.ts$/, ".d.ts"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, jsSpecifiers(out.outputText));
  }
  if (problems.length > 0) fail(ts, problems);
  for (const [name, source] of Object.entries(entryNames)) {
    // Entries may be nested (`conformance/node`): the specifier is relative to the entry's own folder.
    const entry = join(dist, `${name}.d.ts`);
    const declarations = join(dist, TYPES, source.replace(/^\.\//, "").replace(/\.ts$/, ".js"));
    const target = relative(dirname(entry), declarations);
    writeFileSync(entry, `export * from "${target.startsWith(".") ? target : `./${target}`}";\n`);
  }
}

function fail(compiler: typeof ts, diagnostics: readonly ts.Diagnostic[]): never {
  const formatted = compiler.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" });
  throw new Error(`declarations failed:\n${formatted}`);
}

const started = performance.now();
const inputs = inputsDigest();
const fresh = upToDate(inputs);
if (process.argv.includes("--check")) {
  console.log(fresh ? "build: dist/ is up to date with the sources" : "build: dist/ is not what the sources build to; run npm run build");
  process.exit(fresh ? 0 : 1);
}
if (process.argv.includes("--if-changed") && fresh) {
  console.log("build: dist/ is up to date with the sources; nothing to do");
} else {
  // A test that reaches the build (`npx toolfs` runs `prepare`) would empty dist/ under the tests reading it.
  if (process.env.VITEST !== undefined) {
    console.error("build: refusing to build inside a test run; tests use dist/ as `npm test` or `npm ci` built it");
    process.exit(1);
  }
  bundle();
  const t = performance.now();
  await declarations();
  console.log(`build: declarations in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  writeFileSync(stampFile, `${JSON.stringify({ inputs, outputs: outputsDigest() })}\n`);
  console.log(`build: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
