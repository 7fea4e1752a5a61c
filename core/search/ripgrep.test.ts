// The ripgrep backend's own logic, against a scripted runner: the argv it builds, how it runs ripgrep, how it
// reads --files and --json output, and how exit codes, stops and launch failures become results or codes.
// Real ripgrep runs in test/ripgrep-cases.ts. Over 400 lines: each describe pins one of those seams through
// the same scripted runner, which a split would repeat; the exit table itself is in ripgrep-exit.test.ts.
import { describe, expect, test } from "vitest";
import {
  createRipgrepBackend,
  isSearchError,
  ProcessError,
  type ProcessResult,
  type ProcessRunner,
  type ProcessSpec,
  ripgrepFilesArgs,
  ripgrepGrepArgs,
  SearchError,
} from "../mod.ts";
import { parseFilesOutput, parseGrepJson } from "./ripgrep.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

interface Reply {
  readonly stdout?: string;
  readonly stderr?: string;
  readonly result?: Partial<ProcessResult>;
  readonly error?: unknown;
}

function scripted(reply: Reply, locate: () => Promise<string> | string = () => "/bin/rg", extra: Partial<Parameters<typeof createRipgrepBackend>[0]> = {}) {
  const specs: ProcessSpec[] = [];
  let located = 0;
  const runner: ProcessRunner = {
    async run(spec) {
      specs.push(spec);
      if (reply.error !== undefined) throw reply.error;
      const verdict = reply.stdout === undefined ? undefined : spec.stdout?.write(utf8(reply.stdout), "stdout");
      if (reply.stderr !== undefined) spec.stderr?.write(utf8(reply.stderr), "stderr");
      const stopped: Partial<ProcessResult> = verdict === "stop" ? { exitCode: null, signal: "SIGTERM", stopReason: "output" } : {};
      return { exitCode: 0, signal: null, forced: false, ...stopped, ...reply.result };
    },
  };
  const backend = createRipgrepBackend({
    runner,
    ripgrep: () => {
      located++;
      return locate();
    },
    ...extra,
  });
  return { backend, specs, located: () => located };
}

async function failure(promise: Promise<unknown>): Promise<SearchError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isSearchError(error)) throw new Error(`expected a SearchError, got ${String(error)}`);
  return error;
}

describe("argv", () => {
  test("files: the contract's flags in order, every value in its = form, paths after --", () => {
    expect(
      ripgrepFilesArgs({
        cwd: "/w",
        noIgnore: true,
        hidden: true,
        sort: { by: "modified" },
        follow: true,
        globs: [{ glob: "*.ts" }, { glob: "!.git", caseInsensitive: true }],
        paths: ["src", "-e"],
      }),
    ).toEqual(["--no-config", "--files", "--no-ignore", "--hidden", "--sort=modified", "-L", "--glob=*.ts", "--iglob=!.git", "--", "src", "-e"]);
    expect(ripgrepFilesArgs({ cwd: "/w", sort: { by: "path", reverse: true } })).toEqual([
      "--no-config",
      "--files",
      "--no-ignore-global",
      "--sortr=path",
      "--",
    ]);
  });

  test("grep: JSON output, no global excludes, the pattern as --regexp=, never a sort", () => {
    expect(ripgrepGrepArgs({ cwd: "/w", pattern: "-e", globs: [{ glob: "--pre=sh" }], paths: ["-"] })).toEqual([
      "--no-config",
      "--json",
      "--no-ignore-global",
      "--glob=--pre=sh",
      "--regexp=-e",
      "--",
      "./-",
    ]);
    expect(ripgrepGrepArgs({ cwd: "/w", pattern: "", noIgnore: true, hidden: true, follow: true })).toEqual([
      "--no-config",
      "--json",
      "--no-ignore-global",
      "--no-ignore",
      "--hidden",
      "-L",
      "--regexp=",
      "--",
    ]);
  });

  test("grep: -i, types and context as ripgrep's long flags; an unknown type is refused before ripgrep runs", () => {
    expect(ripgrepGrepArgs({ cwd: "/w", pattern: "a", caseInsensitive: true, types: ["ts", "js"], context: { before: 2, after: 0 } })).toEqual([
      "--no-config",
      "--json",
      "--no-ignore-global",
      "--ignore-case",
      "--before-context=2",
      "--type=ts",
      "--type=js",
      "--regexp=a",
      "--",
    ]);
    expect(ripgrepGrepArgs({ cwd: "/w", pattern: "a", context: { after: 3 } })).toContain("--after-context=3");
    expect(() => ripgrepGrepArgs({ cwd: "/w", pattern: "a", types: ["nope"] })).toThrow("unrecognized file type: nope");
  });

  test("the path - names a file, not stdin, and is reported as it was asked for", async () => {
    const { backend, specs } = scripted({ stdout: "./-\n./-/x\nb\n" });
    expect((await backend.files({ cwd: "/w", paths: ["-", "b"] })).paths).toEqual(["-", "-/x", "b"]);
    expect(specs[0]?.args?.slice(-3)).toEqual(["--", "./-", "b"]);
    expect((await backend.files({ cwd: "/w", paths: ["-", "./-"] })).paths).toEqual(["./-", "./-/x", "b"]);
  });

  test("a NUL in a pattern reaches ripgrep as \\x00, which it refuses with the engine's message", async () => {
    const stderr = 'rg: pattern contains "\\0" but it is impossible to match\n\nConsider enabling text mode with the --text flag (or -a for short).\n';
    const { backend, specs } = scripted({ stderr, result: { exitCode: 2 } });
    const error = await failure(backend.grep({ cwd: "/w", pattern: "a\0b\\\\\0[\0c]" }));
    expect(specs[0]?.args).toContain("--regexp=a\\x00b\\\\\\x00[\\x00c]");
    expect(error.code).toBe("SEARCH_INVALID_PATTERN");
    expect(error.message).toMatch(/^pattern contains "\\0" but it is impossible to match: binary detection stops at a NUL byte/);
  });

  test("a NUL byte, which no argv can carry, is a coded error and nothing runs", async () => {
    const { backend, specs } = scripted({});
    expect((await failure(backend.grep({ cwd: "/w", pattern: "a\\\0b" }))).code).toBe("SEARCH_INVALID_PATTERN");
    expect((await failure(backend.files({ cwd: "/w", globs: [{ glob: "*\0" }] }))).code).toBe("SEARCH_INVALID_PATTERN");
    expect((await failure(backend.files({ cwd: "/w", paths: ["a\0"] }))).code).toBe("SEARCH_FAILED");
    expect(specs).toEqual([]);
  });
});

describe("running ripgrep", () => {
  test("runs the located binary in the request's cwd, without a host config, with the request's limits", async () => {
    const { backend, specs } = scripted({ stdout: "a.txt\n" });
    const signal = new AbortController().signal;
    await backend.files({ cwd: "/work/root", signal });
    await backend.files({ cwd: "/work/root", timeoutMs: 5 });
    expect(specs[0]).toMatchObject({ command: "/bin/rg", cwd: "/work/root", env: { RIPGREP_CONFIG_PATH: undefined }, signal, timeoutMs: 30_000 });
    expect(Object.keys(specs[0]?.env ?? {})).toEqual(["RIPGREP_CONFIG_PATH"]);
    expect(specs[1]?.timeoutMs).toBe(5);
  });

  test("a ripgrep that cannot be located fails every search SEARCH_FAILED with the reason, looked up once", async () => {
    const { backend, specs, located } = scripted({}, () => {
      throw new Error("Could not find @vscode/ripgrep-linux-x64.");
    });
    for (let i = 0; i < 2; i++) {
      const error = await failure(backend.grep({ cwd: "/w", pattern: "x" }));
      expect(error.code).toBe("SEARCH_FAILED");
      expect(error.message).toContain("Could not find @vscode/ripgrep-linux-x64.");
    }
    expect(located()).toBe(1);
    expect(specs).toEqual([]);
  });

  test("a locator that says why with a SearchError is passed on as it is, without the advice to reinstall", async () => {
    const own = new SearchError("SEARCH_FAILED", "Search is unavailable: grant --allow-env=npm_config_arch", { details: { unavailable: true } });
    const { backend } = scripted({}, () => {
      throw own;
    });
    expect(await failure(backend.files({ cwd: "/w" }))).toBe(own);
  });

  test("a path that starts with U+FEFF keeps it, also as the first line of the output", async () => {
    const { backend } = scripted({ stdout: "\uFEFFfirst.txt\n\uFEFFsecond.txt\n" });
    expect((await backend.files({ cwd: "/w" })).paths).toEqual(["\uFEFFfirst.txt", "\uFEFFsecond.txt"]);
  });

  test("a ripgrep that cannot be started fails SEARCH_FAILED with the runner's error as the cause", async () => {
    const cause = new ProcessError("PROCESS_NOT_FOUND", "no such program");
    const error = await failure(scripted({ error: cause }).backend.files({ cwd: "/w" }));
    expect(error.code).toBe("SEARCH_FAILED");
    expect(error.cause).toBe(cause);
  });

  test("a timeout, an abort, or a signal that fired first is SEARCH_ABORTED", async () => {
    const timedOut = await failure(scripted({ result: { exitCode: null, signal: "SIGTERM", stopReason: "timeout" } }).backend.files({ cwd: "/w" }));
    expect(timedOut.code).toBe("SEARCH_ABORTED");
    expect(timedOut.details).toEqual({ timeoutMs: 30_000 });
    const aborted = await failure(scripted({ result: { exitCode: null, signal: "SIGTERM", stopReason: "abort" } }).backend.files({ cwd: "/w" }));
    expect(aborted.code).toBe("SEARCH_ABORTED");
    const early = scripted({});
    expect((await failure(early.backend.files({ cwd: "/w", signal: AbortSignal.abort() }))).code).toBe("SEARCH_ABORTED");
    expect(early.located()).toBe(0);
  });

  test("raw output past the budget stops ripgrep and fails SEARCH_RAW_OUTPUT_OVERFLOW", async () => {
    const { backend } = scripted({ stdout: "0123456789a" });
    const error = await failure(backend.files({ cwd: "/w", maxOutputBytes: 10 }));
    expect(error.code).toBe("SEARCH_RAW_OUTPUT_OVERFLOW");
    expect(error.message).toContain("narrower path");
    expect((await backend.files({ cwd: "/w", maxOutputBytes: 11 })).paths).toEqual(["0123456789a"]);
  });

  test("ripgrep ended by a signal it was not sent by us fails SEARCH_FAILED naming it", async () => {
    const error = await failure(scripted({ result: { exitCode: null, signal: "SIGSEGV" } }).backend.files({ cwd: "/w" }));
    expect(error.code).toBe("SEARCH_FAILED");
    expect(error.message).toContain("SIGSEGV");
  });

  test("limits that are not positive whole numbers are refused", async () => {
    expect((await failure(scripted({}).backend.files({ cwd: "/w", maxOutputBytes: 0 }))).code).toBe("SEARCH_FAILED");
    const unused: ProcessRunner = { run: () => Promise.reject(new Error("not run")) };
    expect(() => createRipgrepBackend({ runner: unused, ripgrep: () => "rg", timeoutMs: -1 })).toThrow(/timeoutMs/);
  });
});

describe("exit codes", () => {
  test("1 is an empty result, not an error", async () => {
    expect(await scripted({ result: { exitCode: 1 } }).backend.files({ cwd: "/w" })).toEqual({ paths: [], problems: [], searchedBy: "ripgrep" });
    const summary = '{"type":"summary","data":{"stats":{"searches":3}}}\n';
    expect(await scripted({ stdout: summary, result: { exitCode: 1 } }).backend.grep({ cwd: "/w", pattern: "x" })).toEqual({
      files: [],
      problems: [],
      searchedBy: "ripgrep",
    });
  });

  test("2 after a search ran is a partial result listing ripgrep's complaints", async () => {
    const stderr = "rg: nope: No such file or directory (os error 2)\nrg: ./locked: Permission denied (os error 13)\n";
    const files = await scripted({ stdout: "a.txt\n", stderr, result: { exitCode: 2 } }).backend.files({ cwd: "/w", paths: ["nope", "."] });
    expect(files).toEqual({
      paths: ["a.txt"],
      problems: ["nope: No such file or directory (os error 2)", "./locked: Permission denied (os error 13)"],
      searchedBy: "ripgrep",
    });
    // Nothing matched, but ripgrep did search a file: still a result.
    const summary = '{"type":"summary","data":{"stats":{"searches":1}}}\n';
    const grep = await scripted({ stdout: summary, stderr, result: { exitCode: 2 } }).backend.grep({ cwd: "/w", pattern: "x" });
    expect(grep).toEqual({ files: [], problems: files.problems, searchedBy: "ripgrep" });
  });

  test("complaints beyond the stderr budget are summarised, not dropped silently", async () => {
    const stderr = Array.from({ length: 5000 }, (_, i) => `rg: f${i}: Permission denied (os error 13)\n`).join("");
    const { problems } = await scripted({ stdout: "a.txt\n", stderr, result: { exitCode: 2 } }).backend.files({ cwd: "/w" });
    expect(problems.length).toBeLessThan(5000);
    expect(problems.at(-1)).toMatch(/^\(more problems were reported; \d+ bytes of them were left out\)$/);
  });

  test("2 with nothing searched is SEARCH_INVALID_PATTERN for a rejected regex or glob", async () => {
    const cases = [
      "rg: regex parse error:\n    (?:()\n    ^\nerror: unclosed group\n",
      "rg: error parsing glob '[z-a]': invalid range; 'z' > 'a'\n",
      'rg: the literal "\\n" is not allowed in a regex\n',
    ];
    for (const stderr of cases) {
      const error = await failure(scripted({ stderr, result: { exitCode: 2 } }).backend.grep({ cwd: "/w", pattern: "(" }));
      expect(error.code, stderr).toBe("SEARCH_INVALID_PATTERN");
      expect(error.message).toContain(stderr.split("\n")[0]);
    }
  });

  test("2 with nothing searched is otherwise SEARCH_FAILED quoting a bounded excerpt", async () => {
    const summary = '{"type":"summary","data":{"stats":{"searches":0}}}\n';
    const stderr = `rg: nope: IO error for operation on nope: No such file or directory (os error 2)\n${"x".repeat(10_000)}\n`;
    const error = await failure(scripted({ stdout: summary, stderr, result: { exitCode: 2 } }).backend.grep({ cwd: "/w", pattern: "x", paths: ["nope"] }));
    expect(error.code).toBe("SEARCH_FAILED");
    expect(error.message).toContain("rg: nope: IO error");
    expect(error.message.length).toBeLessThan(2500);
  });

  test("another exit code is SEARCH_FAILED", async () => {
    expect((await failure(scripted({ result: { exitCode: 101 } }).backend.files({ cwd: "/w" }))).code).toBe("SEARCH_FAILED");
  });
});

describe("output parsing", () => {
  test("--files output is one path a line, kept as printed", () => {
    expect(parseFilesOutput("a.txt\nsp ace.txt\nback\\slash.txt\n")).toEqual(["a.txt", "sp ace.txt", "back\\slash.txt"]);
    expect(parseFilesOutput("")).toEqual([]);
  });

  const json = (...messages: object[]) => `${messages.map((m) => JSON.stringify(m)).join("\n")}\n`;
  const match = (path: object, lines: object, lineNumber: number, submatches: object[]) => ({
    type: "match",
    data: { path, lines, line_number: lineNumber, absolute_offset: 0, submatches },
  });

  test("text and base64 bytes become SearchData; binary_offset is kept; an end without matches adds no file; context lines are marked", () => {
    const parsed = parseGrepJson(
      json(
        { type: "begin", data: { path: { text: "n.txt" } } },
        match({ text: "n.txt" }, { bytes: "YmFkIP/+IGFscGhhCg==" }, 1, [{ match: { text: "alpha" }, start: 7, end: 12 }]),
        { type: "end", data: { path: { text: "n.txt" }, binary_offset: null } },
        { type: "begin", data: { path: { bytes: "bv9hbWUudHh0" } } },
        match({ bytes: "bv9hbWUudHh0" }, { text: "alpha\n" }, 3, [{ match: { text: "alpha" }, start: 0, end: 5 }]),
        { type: "context", data: { path: { bytes: "bv9hbWUudHh0" }, lines: { text: "x\n" }, line_number: 4, absolute_offset: 6, submatches: [] } },
        { type: "end", data: { path: { bytes: "bv9hbWUudHh0" }, binary_offset: 70000 } },
        { type: "begin", data: { path: { text: "quiet.bin" } } },
        { type: "end", data: { path: { text: "quiet.bin" }, binary_offset: 12 } },
        { type: "summary", data: { stats: { searches: 7 } } },
      ),
    );
    expect(parsed.searches).toBe(7);
    expect(parsed.files).toEqual([
      {
        path: "n.txt",
        lines: [
          {
            line: { bytes: new Uint8Array([98, 97, 100, 32, 255, 254, 32, 97, 108, 112, 104, 97, 10]) },
            lineNumber: 1,
            absoluteOffset: 0,
            submatches: [{ match: { text: "alpha" }, start: 7, end: 12 }],
          },
        ],
      },
      {
        path: "n\uFFFDame.txt",
        lines: [
          { line: { text: "alpha\n" }, lineNumber: 3, absoluteOffset: 0, submatches: [{ match: { text: "alpha" }, start: 0, end: 5 }] },
          { line: { text: "x\n" }, lineNumber: 4, absoluteOffset: 6, submatches: [], context: true },
        ],
        binaryOffset: 70000,
      },
    ]);
    expect("binaryOffset" in parsed.files[0]!).toBe(false);
  });

  test("output that is not ripgrep's JSON fails SEARCH_FAILED", () => {
    for (const bad of ["not json\n", json(match({ text: "a" }, { neither: 1 }, 1, [])), json(match({ text: "a" }, { text: "x" }, Number.NaN, []))]) {
      let error: unknown;
      try {
        parseGrepJson(bad);
      } catch (e) {
        error = e;
      }
      expect(isSearchError(error, "SEARCH_FAILED"), bad).toBe(true);
    }
  });
});

describe("the memory limit", () => {
  const limited = (reply: Reply) => scripted(reply, undefined, { memoryLimit: { shell: "/bin/sh", bytes: 512 * 1024 * 1024 } });

  test("ripgrep starts through the shell, which sets the limit in KiB and then becomes ripgrep", async () => {
    const { backend, specs } = limited({ stdout: "a.txt\n" });
    expect((await backend.files({ cwd: "/w" })).paths).toEqual(["a.txt"]);
    expect(specs[0]?.command).toBe("/bin/sh");
    expect(specs[0]?.args?.slice(0, 5)).toEqual(["-c", 'ulimit -v "$1" || exit 125; shift; exec "$@"', "toolfs-ripgrep", "524288", "/bin/rg"]);
    expect(specs[0]?.args?.slice(5)).toEqual(["--no-config", "--files", "--no-ignore-global", "--"]);
  });

  test("an allocation failure fails SEARCH_FAILED saying ripgrep needed more than the limit", async () => {
    const { backend } = limited({ stderr: "memory allocation of 268435456 bytes failed\n", result: { exitCode: null, signal: "SIGABRT" } });
    const error = await failure(backend.grep({ cwd: "/w", pattern: "x" }));
    expect(error.code).toBe("SEARCH_FAILED");
    expect(error.message).toMatch(/^The search was stopped: ripgrep needed more than 512 MiB of memory\./);
    expect(error.details).toMatchObject({ memoryLimitBytes: 512 * 1024 * 1024 });
  });

  test("the shell's own failures: the limit cannot be set (125), ripgrep cannot be run (126, 127)", async () => {
    const cannotLimit = await failure(limited({ stderr: "ulimit: error\n", result: { exitCode: 125 } }).backend.files({ cwd: "/w" }));
    expect(cannotLimit.message).toMatch(/^Search failed: ripgrep's memory limit could not be set by \/bin\/sh\./);
    for (const exitCode of [126, 127]) {
      const missing = await failure(limited({ stderr: "sh: 1: exec: /bin/rg: not found\n", result: { exitCode } }).backend.grep({ cwd: "/w", pattern: "x" }));
      expect(missing.message).toMatch(/^Search failed: ripgrep could not be started\./);
    }
  });

  test("without a limit ripgrep starts directly", async () => {
    const { backend, specs } = scripted({ stdout: "" });
    await backend.files({ cwd: "/w" });
    expect(specs[0]?.command).toBe("/bin/rg");
  });
});

describe("streaming", () => {
  // A runner that hands ripgrep's output over in the given chunks, honouring the sink's answers as the real
  // runner does: a promise is awaited, "stop" ends the process.
  function chunked(chunks: readonly string[], result: Partial<ProcessResult> = {}) {
    const answers: unknown[] = [];
    const runner: ProcessRunner = {
      async run(spec) {
        for (const chunk of chunks) {
          const answer = spec.stdout?.write(utf8(chunk), "stdout");
          answers.push(answer instanceof Promise ? "promise" : answer);
          const verdict = await answer;
          if (verdict === "stop") return { exitCode: null, signal: "SIGTERM", stopReason: "output", forced: false };
        }
        return { exitCode: 0, signal: null, forced: false, ...result };
      },
    };
    return { backend: createRipgrepBackend({ runner, ripgrep: "/bin/rg", maxOutputBytes: 10 }), answers };
  }

  test("paths reach the sink as ripgrep prints them, with no output budget unless the request sets one", async () => {
    const { backend } = chunked(["a.txt\nsrc/b", ".ts\n./-\n", "last"]);
    const paths: string[] = [];
    const outcome = await backend.streamFiles!({ cwd: "/w", paths: ["-"] }, { push: (path) => void paths.push(path) });
    expect([outcome, paths]).toEqual([{ problems: [], stopped: false, searchedBy: "ripgrep" }, ["a.txt", "src/b.ts", "-", "last"]]);
    // The whole result holds everything, so the backend's default budget (10 bytes here) applies to it.
    expect((await failure(chunked(["a.txt\nsrc/b.ts\n"]).backend.files({ cwd: "/w" }))).code).toBe("SEARCH_RAW_OUTPUT_OVERFLOW");
    const capped = chunked(["a.txt\nsrc/b.ts\n"]).backend.streamFiles!({ cwd: "/w", maxOutputBytes: 8 }, { push: () => undefined });
    expect((await failure(capped)).code).toBe("SEARCH_RAW_OUTPUT_OVERFLOW");
  });

  test("a sink's stop ends ripgrep: nothing more is delivered, and the stopped run is a result, not a failure", async () => {
    const { backend, answers } = chunked(["a\nb\nc\n", "d\n"]);
    const paths: string[] = [];
    const outcome = await backend.streamFiles!({ cwd: "/w" }, { push: (path) => (paths.push(path) === 2 ? "stop" : undefined) });
    expect([outcome, paths, answers]).toEqual([{ problems: [], stopped: true, searchedBy: "ripgrep" }, ["a", "b"], ["stop"]]);
  });

  test("a sink that is behind holds ripgrep back: its ready promise is what the output sink answers", async () => {
    const { backend, answers } = chunked(["a\n", "b\n"]);
    let waits = 0;
    const ready = () => (waits++ === 0 ? Promise.resolve() : undefined);
    await backend.streamFiles!({ cwd: "/w" }, { push: () => undefined, ready });
    expect(answers).toEqual(["promise", undefined]);
  });

  test("grep streams each matching line and then its file's end; a stop can come mid-file", async () => {
    const json = (...messages: object[]) => `${messages.map((m) => JSON.stringify(m)).join("\n")}\n`;
    const line = (path: string, n: number) => ({
      type: "match",
      data: { path: { text: path }, lines: { text: `hit ${n}\n` }, line_number: n, absolute_offset: 0, submatches: [] },
    });
    const output = json(
      { type: "begin", data: { path: { text: "a" } } },
      line("a", 1),
      line("a", 2),
      { type: "end", data: { path: { text: "a" }, binary_offset: 9 } },
      { type: "begin", data: { path: { text: "b" } } },
      line("b", 3),
      line("b", 4),
      { type: "end", data: { path: { text: "b" }, binary_offset: null } },
    );
    const events: string[] = [];
    const all = await chunked([output.slice(0, 100), output.slice(100)]).backend.streamGrep!(
      { cwd: "/w", pattern: "hit" },
      { push: (e) => void events.push(e.type === "line" ? `${e.path}:${e.line.lineNumber}` : `end ${e.path} ${e.binaryOffset}`) },
    );
    expect([all.stopped, events]).toEqual([false, ["a:1", "a:2", "end a 9", "b:3", "b:4", "end b undefined"]]);
    const few: string[] = [];
    const stopped = await chunked([output]).backend.streamGrep!(
      { cwd: "/w", pattern: "hit" },
      { push: (e) => (e.type === "line" && few.push(`${e.path}:${e.line.lineNumber}`) === 3 ? "stop" : undefined) },
    );
    expect([stopped.stopped, few]).toEqual([true, ["a:1", "a:2", "b:3"]]);
  });
});
