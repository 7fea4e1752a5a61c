// The search engine's behaviour beyond the differential cases: budgets, path arguments, decoding,
// ripgrep's line-buffer windows, explicit files. Expected values were taken from ripgrep 15.0.0.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Volume } from "memfs";
import { describe, expect, test } from "vitest";
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import { createEngineBackend, type FileSystem, type GrepResult, isSearchError, type SearchErrorCode } from "../core/mod.ts";

type Files = Record<string, string | Uint8Array>;

function engine(files: Files, wrap?: (fs: FileSystem) => FileSystem) {
  const volume = new Volume();
  volume.mkdirSync("/w", { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    volume.mkdirSync(`/w/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
    volume.writeFileSync(`/w/${path}`, content);
  }
  const fs = createMemoryProvider({ volume, cwd: "/w" });
  return createEngineBackend(wrap ? wrap(fs) : fs);
}

async function rejects(work: Promise<unknown>, code: SearchErrorCode): Promise<void> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isSearchError(error, code), String(error)).toBe(true);
}

/** `path: L<n>@<offset>[spans]` per file, as in the research spec. */
function compact(result: GrepResult): string {
  return result.files
    .map(
      (f) =>
        `${f.path}: ${f.lines.map((l) => `L${l.lineNumber}@${l.absoluteOffset}[${l.submatches.map((s) => `${s.start}-${s.end}`).join(",")}]`).join(" ")}${f.binaryOffset === undefined ? "" : ` bin=${f.binaryOffset}`}`,
    )
    .join("; ");
}

function lines(count: number, width: number, prefix = "alpha"): Uint8Array {
  const line = new TextEncoder().encode(`${prefix}${".".repeat(width - prefix.length - 1)}\n`);
  const out = new Uint8Array(line.length * count);
  for (let i = 0; i < count; i++) out.set(line, i * line.length);
  return out;
}

function withNul(bytes: Uint8Array, at: number): Uint8Array {
  const out = bytes.slice();
  out[at] = 0;
  return out;
}

describe("budgets", () => {
  const tree = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`d${i % 5}/f${i}.txt`, "alpha\n"]));

  test("a fired signal fails SEARCH_ABORTED", async () => {
    const controller = new AbortController();
    controller.abort();
    await rejects(engine(tree).files({ cwd: "/w", signal: controller.signal }), "SEARCH_ABORTED");
    await rejects(engine(tree).grep({ cwd: "/w", pattern: "alpha", signal: controller.signal }), "SEARCH_ABORTED");
  });

  test("a signal that fires during the walk stops it with SEARCH_ABORTED", async () => {
    const controller = new AbortController();
    let listed = 0;
    const abortOnThirdListing = (fs: FileSystem): FileSystem =>
      new Proxy(fs, {
        get(target, key) {
          if (key === "listDir") {
            return (dir: Parameters<FileSystem["listDir"]>[0], options: Parameters<FileSystem["listDir"]>[1]) => {
              if (++listed === 3) controller.abort();
              return target.listDir(dir, options);
            };
          }
          const value: unknown = Reflect.get(target, key);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    await rejects(engine(tree, abortOnThirdListing).files({ cwd: "/w", signal: controller.signal }), "SEARCH_ABORTED");
    expect(listed).toBe(3);
  });

  test("an abort scheduled on a timer stops a long search: the engine pauses on a macrotask while it works", async () => {
    // 16 MB through the Pike VM (`\\b{end}` has no re2js program) would take seconds. The engine pauses on a
    // timer at the latest after 8 MiB of work; the abort was scheduled on a timer before that, so it runs
    // first and the search ends with SEARCH_ABORTED. A search that never paused would return its matches.
    const backend = engine({ "big.txt": lines(160_000, 100, "word more words") });
    const controller = new AbortController();
    const search = backend.grep({ cwd: "/w", pattern: "\\w+\\b{end}", signal: controller.signal });
    setTimeout(() => controller.abort(), 0);
    await rejects(search, "SEARCH_ABORTED");
  });

  test("a deadline fails SEARCH_ABORTED", async () => {
    await rejects(engine(tree).files({ cwd: "/w", timeoutMs: 0 }), "SEARCH_ABORTED");
    await rejects(engine(tree).grep({ cwd: "/w", pattern: "alpha", timeoutMs: 0 }), "SEARCH_ABORTED");
  });

  test("a 30 MB line of matches fails SEARCH_RAW_OUTPUT_OVERFLOW in a 128 MiB heap: lines and submatches are charged as they are built", () => {
    // Before, every submatch of the line was built (30 million objects) and only then charged; with no cap
    // set there was no limit at all. The search runs in a child with a small heap, so running out of memory
    // fails the case instead of the test run.
    const root = fileURLToPath(new URL("..", import.meta.url));
    const script = `
      const { Volume } = await import("memfs");
      const { createMemoryProvider } = await import(${JSON.stringify(`${root}adapters/memory/mod.ts`)});
      const { createEngineBackend } = await import(${JSON.stringify(`${root}core/mod.ts`)});
      const volume = new Volume();
      volume.mkdirSync("/w", { recursive: true });
      volume.writeFileSync("/w/x.txt", Buffer.alloc(30_000_000, "x"));
      const backend = createEngineBackend(createMemoryProvider({ volume, cwd: "/w" }));
      for (const request of [{}, { maxOutputBytes: 20_000_000 }, { paths: ["x.txt"] }, { pattern: "x+?" }]) {
        const outcome = await backend.grep({ cwd: "/w", pattern: "x", ...request }).then(() => "ok", (e) => e.code ?? String(e));
        console.log(outcome);
      }`;
    const child = spawnSync(process.execPath, ["--max-old-space-size=128", "--import", "tsx", "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
    });
    expect(child.stderr).toBe("");
    expect(child.stdout.trim().split("\n")).toEqual(Array(4).fill("SEARCH_RAW_OUTPUT_OVERFLOW"));
  });

  test("output beyond the cap fails SEARCH_RAW_OUTPUT_OVERFLOW; within it the search succeeds", async () => {
    await rejects(engine(tree).files({ cwd: "/w", maxOutputBytes: 100 }), "SEARCH_RAW_OUTPUT_OVERFLOW");
    await rejects(engine(tree).grep({ cwd: "/w", pattern: "alpha", maxOutputBytes: 1000 }), "SEARCH_RAW_OUTPUT_OVERFLOW");
    expect((await engine(tree).files({ cwd: "/w", maxOutputBytes: 10_000 })).paths).toHaveLength(50);
  });
});

describe("errors", () => {
  test("a malformed glob is reported before a malformed pattern, as ripgrep does", async () => {
    const error = await engine({})
      .grep({ cwd: "/w", pattern: "(", globs: [{ glob: "[z-a]" }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "SEARCH_INVALID_PATTERN", message: "error parsing glob '[z-a]': invalid range; 'z' > 'a'" });
  });
});

describe("path arguments", () => {
  test("a missing path is a problem; the other paths are still searched", async () => {
    const result = await engine({ "a.txt": "x\n" }).files({ cwd: "/w", paths: ["nope", "a.txt"] });
    expect(result).toEqual({ paths: ["a.txt"], problems: ["nope: No such file or directory (os error 2)"], searchedBy: "engine" });
    const alone = await engine({}).files({ cwd: "/w", paths: ["nope"] });
    expect(alone.problems).toEqual(["nope: IO error for operation on nope: No such file or directory (os error 2)"]);
  });

  test("paths print as given, joined with `/` only when needed", async () => {
    const backend = engine({ "d/x.txt": "x\n" });
    expect((await backend.files({ cwd: "/w", paths: ["d//"] })).paths).toEqual(["d//x.txt"]);
    expect((await backend.files({ cwd: "/w", paths: ["./d"] })).paths).toEqual(["./d/x.txt"]);
    expect((await backend.files({ cwd: "/w", paths: ["/w/d"] })).paths).toEqual(["/w/d/x.txt"]);
    expect((await backend.files({ cwd: "/w", paths: ["d", "d"] })).paths).toEqual(["d/x.txt", "d/x.txt"]);
  });

  test("several roots: a path sort keeps their order, a reversed one sorts all paths as Rust orders them", async () => {
    const names = ["z.txt", "a/c.txt", "m.txt", "d/q.txt", "B.txt", "a-c/x", "a.txt", "d/b.txt"];
    const backend = engine(Object.fromEntries(names.map((n) => [n, "x\n"])));
    const list = async (paths: string[], reverse: boolean) => (await backend.files({ cwd: "/w", paths, sort: { by: "path", reverse } })).paths;
    expect(await list(["a-c", "a"], false)).toEqual(["a-c/x", "a/c.txt"]);
    expect(await list(["./d", "a"], true)).toEqual(["a/c.txt", "./d/q.txt", "./d/b.txt"]);
    expect(await list(["."], true)).toEqual(["./z.txt", "./m.txt", "./d/q.txt", "./d/b.txt", "./a.txt", "./a-c/x", "./a/c.txt", "./B.txt"]);
  });

  test("anchored globs see absolute paths relative to the cwd", async () => {
    const backend = engine({ "src/x.ts": "x\n" });
    expect((await backend.files({ cwd: "/w", paths: ["/w/src"], globs: [{ glob: "src/*.ts" }] })).paths).toEqual(["/w/src/x.ts"]);
  });

  test("a file named as a path is searched whole, NUL bytes and all", async () => {
    const backend = engine({ "bin.txt": new TextEncoder().encode("bin alpha\u0000\nalpha two\n") });
    expect(compact(await backend.grep({ cwd: "/w", pattern: "alpha", paths: ["bin.txt"] }))).toBe("bin.txt: L1@0[4-9] L2@11[0-5] bin=9");
    expect(compact(await backend.grep({ cwd: "/w", pattern: "alpha" }))).toBe("");
  });
});

describe("decoding", () => {
  test("a UTF-16BE byte-order mark is transcoded like a UTF-16LE one", async () => {
    const text = "first line\nsecond alpha é\n";
    const be = new Uint8Array(2 + text.length * 2);
    be.set([0xfe, 0xff]);
    for (let i = 0; i < text.length; i++) be.set([text.charCodeAt(i) >> 8, text.charCodeAt(i) & 0xff], 2 + 2 * i);
    const result = await engine({ "u16be.txt": be }).grep({ cwd: "/w", pattern: "é" });
    expect(compact(result)).toBe("u16be.txt: L2@11[13-15]");
    expect(result.files[0]?.lines[0]?.line).toEqual({ text: "second alpha é\n" });
  });

  test("a lone surrogate becomes U+FFFD", async () => {
    const le = Uint8Array.of(0xff, 0xfe, 0x61, 0x00, 0x00, 0xd8, 0x62, 0x00, 0x0a, 0x00);
    const result = await engine({ "s.txt": le }).grep({ cwd: "/w", pattern: "a.b" });
    expect(result.files[0]?.lines[0]?.line).toEqual({ text: "a\ufffdb\n" });
  });
});

describe("ripgrep's line buffer (rule R-B1)", () => {
  test("a NUL in the first 64 KiB hides the whole file", async () => {
    const result = await engine({ "f.txt": withNul(lines(2000, 100), 65_520) }).grep({ cwd: "/w", pattern: "alpha" });
    expect(result.files).toEqual([]);
  });

  test("a later NUL stops at the fill that read it", async () => {
    const result = await engine({ "f.txt": withNul(lines(2000, 100), 131_036) }).grep({ cwd: "/w", pattern: "alpha" });
    expect(result.files[0]?.lines).toHaveLength(1310);
    expect(result.files[0]?.binaryOffset).toBe(131_036);
  });

  test("a fill without a newline triples the buffer, which stays that size", async () => {
    const long = new TextEncoder().encode(`alpha${"x".repeat(100_000)}\n`);
    const file = new Uint8Array(long.length + 200_000);
    file.set(long);
    file.set(lines(2000, 100), long.length);
    file[long.length + 150_000] = 0;
    const result = await engine({ "f.txt": file }).grep({ cwd: "/w", pattern: "alpha" });
    // The buffer grows from 64 KiB to 192 KiB: the second fill ends at byte 196,608.
    expect(result.files[0]?.lines).toHaveLength(967);
  });

  test("`\\A` also matches where a buffer starts: each refill, and an unterminated last line", async () => {
    const tail = new TextEncoder().encode("alpha tail");
    const file = new Uint8Array(200_000 + tail.length);
    file.set(lines(2000, 100));
    file.set(tail, 200_000);
    const result = await engine({ "f.txt": file }).grep({ cwd: "/w", pattern: "\\Aalpha" });
    const withSubmatch = result.files[0]?.lines.filter((l) => l.submatches.length > 0).map((l) => l.lineNumber);
    expect(withSubmatch).toEqual([1, 656, 1311, 1966, 2001]);
    expect(result.files[0]?.lines).toHaveLength(2001);
  });
});

describe("reading ahead", () => {
  // Reads held until eight are waiting (then let go, the last first) or, when fewer come, until a timer: the
  // order in which they finish is the test's, and what is counted (reads and bytes at once) cannot depend on
  // the machine, since the engine starts a read only when its allowance lets it.
  function gated(fs: FileSystem, files: Files) {
    const seen = { inFlight: 0, most: 0, bytes: 0, mostBytes: 0 };
    const held: (() => void)[] = [];
    const release = () => {
      while (held.length > 0) held.pop()!();
    };
    const readBytes: FileSystem["readBytes"] = async (target, options) => {
      const content = files[target.key.slice("/w/".length)]!;
      const size = typeof content === "string" ? new TextEncoder().encode(content).length : content.length;
      seen.inFlight++;
      seen.bytes += size;
      seen.most = Math.max(seen.most, seen.inFlight);
      seen.mostBytes = Math.max(seen.mostBytes, seen.bytes);
      await new Promise<void>((resolve) => {
        held.push(resolve);
        if (held.length === 8) release();
        else setTimeout(release, 0);
      });
      seen.inFlight--;
      seen.bytes -= size;
      return fs.readBytes(target, options);
    };
    const wrapped = new Proxy(fs, {
      get(target, key) {
        if (key === "readBytes") return readBytes;
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return { wrapped, seen };
  }

  test("several files are read ahead, yet matches come in walk order", async () => {
    const files: Files = {};
    for (let i = 0; i < 40; i++) files[`d/f${String(i).padStart(2, "0")}.txt`] = `needle ${i}\n`;
    let probe: ReturnType<typeof gated> | undefined;
    const search = engine(files, (fs) => (probe = gated(fs, files)).wrapped);
    const result = await search.grep({ cwd: "/w", pattern: "needle" });
    expect(result.files.map((f) => f.path)).toEqual(Object.keys(files).sort());
    // Eight when nothing pauses the walk; a pause of the engine's (it yields every 25 ms of work) lets the
    // held reads go sooner, so only the bounds are certain.
    expect(probe!.seen.most).toBeGreaterThan(1);
    expect(probe!.seen.most).toBeLessThanOrEqual(8);
  });

  test("what is read ahead stays within its byte allowance; a larger file is read alone", async () => {
    const big = new Uint8Array(20 * 1024 * 1024).fill(0x61);
    const files: Files = { "a/1.txt": big, "a/2.txt": big, "a/3.txt": "needle\n", "a/4.txt": big };
    let probe: ReturnType<typeof gated> | undefined;
    const search = engine(files, (fs) => (probe = gated(fs, files)).wrapped);
    const result = await search.grep({ cwd: "/w", pattern: "needle" });
    expect(result.files.map((f) => f.path)).toEqual(["a/3.txt"]);
    expect(probe!.seen.mostBytes).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(probe!.seen.mostBytes).toBeGreaterThanOrEqual(20 * 1024 * 1024);
  });
});
