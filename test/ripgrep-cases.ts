// Cases for the real ripgrep run through a runtime's process runner; vitest registers them for Node, `deno test`
// for Deno. Trees are seeded through the conformance probe; FIFOs and the check that no ripgrep survives go
// through bash, run by the runner under test, so this file stays runtime-neutral.
import { assert, assertEquals, type Subject } from "../conformance/mod.ts";
import {
  BoundedCollector,
  createEngineBackend,
  isSearchError,
  type ProcessRunner,
  type SearchErrorCode,
  type WholeSearchBackend,
  withWholeResults,
} from "../core/mod.ts";

type Register = (name: string, fn: () => Promise<void>) => void;

export interface RipgrepCaseOptions {
  /** A fresh subject whose `search` runs ripgrep in `probe.root`. */
  readonly createSubject: () => Promise<Subject>;
  /** A backend whose ripgrep cannot be found or started. */
  readonly missingRipgrep: () => WholeSearchBackend;
  readonly runner: ProcessRunner;
}

async function code(promise: Promise<unknown>, expected: SearchErrorCode, what: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert(isSearchError(error, expected), `${what}: expected ${expected}, got ${String(error)}`);
}

/** Runs bash in `cwd` with `env`; fails the case on anything but exit 0. */
async function bash(runner: ProcessRunner, script: string, cwd: string, env: Record<string, string> = {}): Promise<string> {
  const out = new BoundedCollector({ maxBytes: 1 << 20 });
  const result = await runner.run({ command: "bash", args: ["-c", script], cwd, env, stdout: out });
  assertEquals(result.exitCode, 0, `exit code of ${script}`);
  return out.text();
}

/** Processes (not zombies) whose command line mentions `marker`; the marker travels by environment, so the
 * checking shell and ps do not mention it themselves. */
async function running(runner: ProcessRunner, marker: string, cwd: string): Promise<string[]> {
  const table = await bash(runner, "ps -e -o stat=,args=", cwd, { TOOLFS_MARKER: marker });
  return table.split("\n").filter((line) => line.includes(marker) && !line.trim().startsWith("Z"));
}

const unique = () => `toolfs${Math.random().toString(36).slice(2, 10)}`;

export function registerRipgrepCases(test: Register, prefix: string, options: RipgrepCaseOptions): void {
  const name = (text: string) => `${prefix} ripgrep backend: ${text}`;
  const withSubject = (text: string, fn: (subject: Subject, search: WholeSearchBackend) => Promise<void>) =>
    test(name(text), async () => {
      const subject = await options.createSubject();
      try {
        assert(subject.search !== undefined, "the subject has a search backend");
        await fn(subject, withWholeResults(subject.search));
      } finally {
        await subject.dispose();
      }
    });

  withSubject("flag-like, quoted and shell-like values stay plain patterns, globs and paths", async ({ probe }, search) => {
    const cwd = probe.root;
    await probe.writeFile("--pre=sh", "uses --pre=sh here\n");
    await probe.writeFile("-e", "a line with -e and --files\n");
    await probe.writeFile("-", "quote ' and \" both\n");
    await probe.writeFile("plain.txt", "nothing\n");
    const matched = async (pattern: string, extra: object = {}) => (await search.grep({ cwd, pattern, ...extra })).files.map((file) => file.path).sort();
    assertEquals(await matched("--pre=sh"), ["--pre=sh"], "pattern --pre=sh");
    assertEquals(await matched("-e"), ["-e"], "pattern -e");
    assertEquals(await matched("--files"), ["-e"], "pattern --files");
    assertEquals(await matched(`'.*"`), ["-"], "pattern with quotes");
    assertEquals(await matched("e", { paths: ["-", "--pre=sh"] }), ["-", "--pre=sh"], "paths - and --pre=sh");
    assertEquals(await matched("-"), ["--pre=sh", "-e"].sort(), "pattern -");
    assertEquals(await matched("e", { globs: [{ glob: "--pre=sh" }] }), ["--pre=sh"], "glob --pre=sh");
    assertEquals((await search.files({ cwd, globs: [{ glob: "-e" }] })).paths, ["-e"], "files glob -e");
    assertEquals(await matched("$(touch pwned)"), [], "pattern with a command substitution");
    assertEquals(await matched("`touch pwned`"), [], "pattern with backticks");
    assertEquals(await probe.list("."), ["-", "--pre=sh", "-e", "plain.txt"].sort(), "files in the tree");
    await code(search.grep({ cwd, pattern: "a\nb" }), "SEARCH_INVALID_PATTERN", "a newline");
    await code(search.grep({ cwd, pattern: "a\0b" }), "SEARCH_INVALID_PATTERN", "a NUL byte");
    await code(search.files({ cwd, globs: [{ glob: "a\0" }] }), "SEARCH_INVALID_PATTERN", "a NUL byte in a glob");
    await code(search.grep({ cwd, pattern: "(" }), "SEARCH_INVALID_PATTERN", "an unclosed group");
    await code(search.files({ cwd, globs: [{ glob: "[z-a]" }] }), "SEARCH_INVALID_PATTERN", "an invalid glob");
  });

  withSubject("pathological globs: ripgrep's limits are refused up front with the engine's message; the rest agree", async ({ probe, provider }, search) => {
    const cwd = probe.root;
    const engine = createEngineBackend(provider);
    await probe.writeFile("a".repeat(40), "x\n");
    await probe.writeFile("b.txt", "x\n");
    const failure = async (work: Promise<unknown>) =>
      work.then(
        () => "succeeded",
        (e: unknown) => (isSearchError(e) ? `${e.code}: ${e.message}` : String(e)),
      );
    for (const glob of [`${"{".repeat(2000)}a${"}".repeat(2000)}`, `${"{".repeat(250)}a${"}".repeat(250)}`, "*".repeat(200_000), "?".repeat(70_000)]) {
      const rg = await failure(search.files({ cwd, globs: [{ glob }] }));
      assert(rg.startsWith("SEARCH_INVALID_PATTERN: "), `ripgrep backend, glob of ${glob.length}: ${rg.slice(0, 200)}`);
      assertEquals(rg, await failure(engine.files({ cwd, globs: [{ glob }] })), `same refusal for a glob of ${glob.length}`);
      assertEquals(await failure(search.grep({ cwd, pattern: "x", globs: [{ glob }] })), rg, "grep include");
    }
    for (const glob of ["*".repeat(10_000), `${"{".repeat(248)}b.txt${"}".repeat(248)}`, `${"*a".repeat(10)}*c`, `${"*a".repeat(10)}*`]) {
      const listed = (await search.files({ cwd, globs: [{ glob }] })).paths;
      assertEquals([...(await engine.files({ cwd, globs: [{ glob }] })).paths].sort(), [...listed].sort(), `same paths for a glob of ${glob.length}`);
    }
  });

  withSubject("with no path, ripgrep walks its cwd rather than reading stdin", async ({ probe }, search) => {
    await probe.writeFile("d/a.txt", "alpha\n");
    const result = await search.grep({ cwd: probe.root, pattern: "alpha" });
    assertEquals(
      result.files.map((file) => file.path),
      ["d/a.txt"],
      "files",
    );
  });

  withSubject("a missing path beside an existing one gives the results and a problem", async ({ probe }, search) => {
    await probe.writeFile("a.txt", "alpha\n");
    const grep = await search.grep({ cwd: probe.root, pattern: "alpha", paths: ["nope", "a.txt"] });
    assertEquals(
      grep.files.map((file) => file.path),
      ["a.txt"],
      "grep files",
    );
    assertEquals(grep.problems, ["nope: No such file or directory (os error 2)"], "grep problems");
    const files = await search.files({ cwd: probe.root, paths: ["a.txt", "nope"] });
    assertEquals(files, { paths: ["a.txt"], problems: ["nope: No such file or directory (os error 2)"], searchedBy: "ripgrep" }, "files");
    await code(search.grep({ cwd: probe.root, pattern: "alpha", paths: ["nope"] }), "SEARCH_FAILED", "only a missing path");
  });

  withSubject("JSON output: a line that is not UTF-8 comes as bytes, and a NUL past the first window sets binaryOffset", async ({ probe }, search) => {
    await probe.writeFile("n.txt", new Uint8Array([...new TextEncoder().encode("bad "), 0xff, 0xfe, ...new TextEncoder().encode(" alpha\n")]));
    const lines = Array.from({ length: 700 }, (_, i) => `${`${i === 0 ? "alpha" : "line"} ${String(i).padStart(5, "0")}`.padEnd(99, ".")}\n`).join("");
    await probe.writeFile("late.txt", `${lines.slice(0, 70_000)}\0${lines.slice(70_000)}`);
    const invalid = await search.grep({ cwd: probe.root, pattern: "alpha", globs: [{ glob: "n.txt" }] });
    const line = invalid.files[0]?.lines[0];
    assert(line !== undefined && "bytes" in line.line, "the line is bytes");
    assertEquals([...line.line.bytes], [98, 97, 100, 32, 255, 254, 32, 97, 108, 112, 104, 97, 10], "line bytes");
    assertEquals(line.submatches, [{ match: { text: "alpha" }, start: 7, end: 12 }], "submatches");
    const binary = await search.grep({ cwd: probe.root, pattern: "alpha", globs: [{ glob: "late.txt" }] });
    assertEquals(binary.files[0]?.binaryOffset, 70_000, "binary offset");
    assertEquals(binary.files[0]?.lines.length, 1, "lines before the NUL's window");
  });

  withSubject("a 40 MB line of matches stops ripgrep at its memory limit, with a message that says so", async ({ probe }, search) => {
    // Unlimited, ripgrep builds the whole JSON message of the line first: about 4 GiB for one 50 MB line of
    // matches. Under the 512 MiB address-space limit the allocation fails and ripgrep aborts at once.
    const marker = unique();
    await probe.writeFile(`${marker}.txt`, `${"x".repeat(40_000_000)}\n`);
    const error = await search.grep({ cwd: probe.root, pattern: "x" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert(isSearchError(error, "SEARCH_FAILED"), `expected SEARCH_FAILED, got ${String(error)}`);
    assert(error.message.startsWith("The search was stopped: ripgrep needed more than 512 MiB of memory."), error.message);
    assertEquals(await running(options.runner, marker, probe.root), [], "ripgrep processes left");
    // A file that fits is searched as before, a long line included.
    await probe.writeFile(`${marker}.txt`, `${"a".repeat(5_000_000)}x\n`);
    const found = await search.grep({ cwd: probe.root, pattern: "x$" });
    assertEquals(
      found.files.map((f) => f.lines[0]?.submatches[0]?.start),
      [5_000_000],
      "the match on a 5 MB line",
    );
  });

  withSubject("raw output over the budget fails SEARCH_RAW_OUTPUT_OVERFLOW and leaves no ripgrep running", async ({ probe }, search) => {
    const marker = unique();
    await probe.writeFile("big.txt", `${marker}\n`.repeat(20_000));
    await code(search.grep({ cwd: probe.root, pattern: marker, maxOutputBytes: 4096 }), "SEARCH_RAW_OUTPUT_OVERFLOW", "overflow");
    assertEquals(await running(options.runner, marker, probe.root), [], "ripgrep processes left");
  });

  withSubject("a search stuck on a FIFO is stopped by its timeout, and by an abort, leaving no ripgrep running", async ({ probe }, search) => {
    const fifo = unique();
    await bash(options.runner, 'mkfifo "$TOOLFS_FIFO"', probe.root, { TOOLFS_FIFO: fifo });
    // A FIFO named on the command line is opened, which blocks until a writer comes: none will.
    await code(search.grep({ cwd: probe.root, pattern: "x", paths: [fifo], timeoutMs: 300 }), "SEARCH_ABORTED", "timeout");
    assertEquals(await running(options.runner, fifo, probe.root), [], "ripgrep processes left after the timeout");
    const controller = new AbortController();
    const abort = setTimeout(() => controller.abort(), 300);
    await code(search.grep({ cwd: probe.root, pattern: "x", paths: [fifo], signal: controller.signal }), "SEARCH_ABORTED", "abort");
    clearTimeout(abort);
    assertEquals(await running(options.runner, fifo, probe.root), [], "ripgrep processes left after the abort");
  });

  test(name("a ripgrep that cannot be found fails SEARCH_FAILED"), async () => {
    const search = options.missingRipgrep();
    await code(search.files({ cwd: "/" }), "SEARCH_FAILED", "files");
    await code(search.grep({ cwd: "/", pattern: "x" }), "SEARCH_FAILED", "grep");
  });
}
