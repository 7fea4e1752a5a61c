// The runtime-neutral half of the process seam: collectors, the /proc and ps readers, and the runner's
// escalation and validation against a scripted driver (real processes are tested per adapter).
import { describe, expect, test, vi } from "vitest";
import {
  BoundedCollector,
  createProcessRunner,
  HeadTailCollector,
  isProcessError,
  type KillSignal,
  liveTree,
  parseProcStat,
  parsePsTable,
  type ProcEntry,
  ProcessError,
  type ProcessExit,
  processTree,
  type SignalTargets,
  type SpawnedProcess,
  type SpawnRequest,
} from "../mod.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("BoundedCollector", () => {
  test("keeps the first maxBytes across chunks and counts the rest", () => {
    const collector = new BoundedCollector({ maxBytes: 5 });
    expect(collector.write(utf8("abc"))).toBeUndefined();
    expect(collector.write(utf8("defg"))).toBeUndefined();
    expect(decode(collector.bytes())).toBe("abcde");
    expect(collector.totalBytes).toBe(7);
    expect(collector.overflowed).toBe(true);
  });

  test("asks to stop only when output exceeds the budget, not when it fills it exactly", () => {
    const collector = new BoundedCollector({ maxBytes: 4, stopOnOverflow: true });
    expect(collector.write(utf8("abcd"))).toBeUndefined();
    expect(collector.overflowed).toBe(false);
    expect(collector.write(utf8("e"))).toBe("stop");
    expect(collector.text()).toBe("abcd");
  });

  test("keeps its own copy of what it stores", () => {
    const collector = new BoundedCollector({ maxBytes: 10 });
    const chunk = utf8("abc");
    collector.write(chunk);
    chunk[0] = 0x7a;
    expect(collector.text()).toBe("abc");
  });

  test("refuses a budget that is not a whole number of bytes", () => {
    expect(() => new BoundedCollector({ maxBytes: -1 })).toThrow(RangeError);
    expect(() => new BoundedCollector({ maxBytes: 1.5 })).toThrow(RangeError);
  });
});

describe("HeadTailCollector", () => {
  test("keeps the head and the tail and counts the bytes between them", () => {
    const collector = new HeadTailCollector({ headBytes: 3, tailBytes: 4 });
    for (const part of ["ab", "cdef", "ghij", "k", "lm"]) collector.write(utf8(part));
    expect(decode(collector.head())).toBe("abc");
    expect(decode(collector.tail())).toBe("jklm");
    expect(collector.totalBytes).toBe(13);
    expect(collector.omittedBytes).toBe(6);
    expect(collector.text((n) => `<${n}>`)).toBe("abc<6>jklm");
  });

  test("a U+FEFF at the start of the output or of the kept tail is kept", () => {
    const whole = new HeadTailCollector({ headBytes: 8, tailBytes: 8 });
    whole.write(utf8("\uFEFFbom"));
    expect(whole.text()).toBe("\uFEFFbom");
    const cut = new HeadTailCollector({ headBytes: 4, tailBytes: 4 });
    cut.write(utf8("\uFEFFa-middle-\uFEFFz"));
    expect(cut.text((n) => `<${n}>`)).toBe("\uFEFFa<8>\uFEFFz");
    const bounded = new BoundedCollector({ maxBytes: 16 });
    bounded.write(utf8("\uFEFFx"));
    expect(bounded.text()).toBe("\uFEFFx");
  });

  test("output within the budget comes back whole, without a marker", () => {
    const collector = new HeadTailCollector({ headBytes: 3, tailBytes: 4 });
    collector.write(utf8("abcd"));
    collector.write(utf8("efg"));
    expect(collector.omittedBytes).toBe(0);
    expect(collector.text((n) => `<${n}>`)).toBe("abcdefg");
  });

  test("a cut never splits a character; the partial bytes count as omitted", () => {
    const collector = new HeadTailCollector({ headBytes: 2, tailBytes: 2 });
    // "é" is two bytes, "€" three: the head ends inside "é", the tail starts inside "€".
    collector.write(utf8("aé-x-€"));
    expect(collector.totalBytes).toBe(9);
    expect(collector.text((n) => `<${n}>`)).toBe("a<8>");
    const exact = new HeadTailCollector({ headBytes: 3, tailBytes: 3 });
    exact.write(utf8("aé-x-€"));
    expect(exact.text((n) => `<${n}>`)).toBe("aé<3>€");
  });

  test("with wholeLines, the marker is a line and split lines are left out and counted, unless that costs over half a part", () => {
    const text = "one\ntwo\nthree\nfour\nfive\nsix\n";
    const cut = (headBytes: number, tailBytes: number, input = text, chunk = input.length) => {
      const collector = new HeadTailCollector({ headBytes, tailBytes });
      for (let i = 0; i < input.length; i += chunk) collector.write(utf8(input.slice(i, i + chunk)));
      return collector.text((n) => `<${n}>`, { wholeLines: true });
    };
    // Cuts on line breaks keep every kept line, whether the tail arrived in one chunk or byte by byte.
    expect(cut(8, 9)).toBe("one\ntwo\n<11>\nfive\nsix\n");
    expect(cut(8, 9, text, 1)).toBe("one\ntwo\n<11>\nfive\nsix\n");
    // "th" and "ive" are fragments of split lines.
    expect(cut(10, 8)).toBe("one\ntwo\n<16>\nsix\n");
    expect(cut(10, 8, text, 3)).toBe("one\ntwo\n<16>\nsix\n");
    // Dropping "bcde" or "jklm" would cost more than half of a part, so they stay.
    expect(cut(6, 6, "a\nbcdefghijklm\nn")).toBe("a\nbcde\n<4>\njklm\nn");
  });

  test("a tail budget of zero keeps only the head", () => {
    const collector = new HeadTailCollector({ headBytes: 2, tailBytes: 0 });
    collector.write(utf8("abcdef"));
    expect(collector.text((n) => `<${n}>`)).toBe("ab<4>");
  });

  test("many small chunks keep exactly the last tailBytes", () => {
    const collector = new HeadTailCollector({ headBytes: 0, tailBytes: 5 });
    for (let i = 0; i < 1000; i++) collector.write(utf8(String(i % 10)));
    expect(decode(collector.tail())).toBe("56789");
    expect(collector.omittedBytes).toBe(995);
  });
});

describe("process tables", () => {
  test("a /proc stat line is read past a command name with spaces and parentheses", () => {
    expect(parseProcStat("4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 0 0")).toEqual({
      pid: 4242,
      ppid: 1,
      pgrp: 4242,
      session: 4242,
      state: "S",
    });
    expect(parseProcStat("garbage")).toBeUndefined();
  });

  test("ps output is read into the same entries; anything else is not a table", () => {
    expect(parsePsTable("  10     1    10    10 Ss\n  11    10    10    10 Z+\n")).toEqual([
      { pid: 10, ppid: 1, pgrp: 10, session: 10, state: "S" },
      { pid: 11, ppid: 10, pgrp: 10, session: 10, state: "Z" },
    ]);
    expect(parsePsTable("error: unsupported option\n")).toBeUndefined();
    expect(parsePsTable("")).toBeUndefined();
  });

  const table: ProcEntry[] = [
    { pid: 1, ppid: 0, pgrp: 1, session: 1, state: "S" },
    { pid: 100, ppid: 1, pgrp: 100, session: 100, state: "S" }, // the root, a session leader
    { pid: 101, ppid: 100, pgrp: 100, session: 100, state: "S" }, // its child
    { pid: 102, ppid: 1, pgrp: 100, session: 100, state: "S" }, // an orphaned grandchild
    { pid: 103, ppid: 1, pgrp: 103, session: 100, state: "S" }, // a job-control group of the session
    { pid: 104, ppid: 1, pgrp: 100, session: 100, state: "Z" }, // an unreaped zombie
    { pid: 105, ppid: 101, pgrp: 105, session: 105, state: "S" }, // a descendant with a session of its own
    { pid: 200, ppid: 1, pgrp: 200, session: 200, state: "S" }, // unrelated
  ];

  test("a session leader's tree is its session plus its descendants, zombies left out", () => {
    expect(
      liveTree(table, 100, true)
        .map((entry) => entry.pid)
        .sort(),
    ).toEqual([100, 101, 102, 103, 105]);
  });

  test("without a session of its own, the tree is what descends from the root by parentage", () => {
    expect(
      liveTree(table, 100, false)
        .map((entry) => entry.pid)
        .sort(),
    ).toEqual([100, 101, 105]);
  });

  function host(entries: readonly ProcEntry[] | undefined, leadsGroup: boolean) {
    const sent: { signal: KillSignal; targets: SignalTargets }[] = [];
    const tree = processTree({
      root: 100,
      leadsGroup,
      table: async () => entries,
      send: async (signal, targets) => {
        sent.push({ signal, targets });
      },
      fallbackAlive: async () => true,
    });
    return { tree, sent };
  }

  test("signals go to the root's group at once, and singly to members outside it", async () => {
    const { tree, sent } = host(table, true);
    await tree.signal("SIGTERM");
    expect(sent).toEqual([{ signal: "SIGTERM", targets: { groups: [100], pids: [103, 105] } }]);
  });

  test("a root without its own group is signalled process by process", async () => {
    const { tree, sent } = host(table, false);
    await tree.signal("SIGKILL");
    expect(sent[0]?.targets.groups).toEqual([]);
    expect([...(sent[0]?.targets.pids ?? [])].sort()).toEqual([100, 101, 105]);
  });

  test("without a table, the group (or the root) is still signalled and liveness falls back", async () => {
    const grouped = host(undefined, true);
    await grouped.tree.signal("SIGTERM");
    expect(grouped.sent[0]?.targets).toEqual({ groups: [100], pids: [] });
    expect(await grouped.tree.alive()).toBe(true);
    const single = host(undefined, false);
    await single.tree.signal("SIGTERM");
    expect(single.sent[0]?.targets).toEqual({ groups: [], pids: [100] });
  });

  test("a tree of zombies is not alive", async () => {
    const zombies = table.map((entry) => (entry.session === 100 || entry.ppid === 101 ? { ...entry, state: "Z" } : entry));
    expect(await host(zombies, true).tree.alive()).toBe(false);
  });
});

/** A scripted process: how its leader and one optional leftover descendant respond to signals. */
interface Script {
  readonly stdout?: readonly string[];
  /** The leader exits by itself with this code after writing; without it, it runs until signalled. */
  readonly exitCode?: number;
  readonly leaderIgnoresTerm?: boolean;
  /** A descendant still running after the leader exits. */
  readonly leftover?: { readonly ignoresTerm: boolean };
  /** A descendant outside the tree that keeps the pipes open. */
  readonly pipeHeld?: boolean;
}

class ScriptedProcess implements SpawnedProcess {
  readonly pid = 4242;
  readonly signals: KillSignal[] = [];
  released = false;
  readonly exit: Promise<ProcessExit>;
  readonly stdout: AsyncIterable<Uint8Array>;
  readonly stderr: AsyncIterable<Uint8Array> = (async function* () {})();
  #leader = true;
  #leftover: boolean;
  #finish!: (exit: ProcessExit) => void;
  #closed!: () => void;
  readonly #script: Script;

  constructor(script: Script) {
    this.#script = script;
    this.#leftover = script.leftover !== undefined;
    this.exit = new Promise((resolve) => (this.#finish = resolve));
    const closed = new Promise<void>((resolve) => (this.#closed = resolve));
    const self = this;
    this.stdout = (async function* () {
      for (const chunk of script.stdout ?? []) yield utf8(chunk);
      if (script.exitCode !== undefined) self.#end({ exitCode: script.exitCode, signal: null });
      await closed;
    })();
  }

  #end(exit: ProcessExit): void {
    if (!this.#leader) return;
    this.#leader = false;
    this.#finish(exit);
    if (!this.#leftover && !this.#script.pipeHeld) this.#closed();
  }

  async signal(signal: KillSignal): Promise<void> {
    this.signals.push(signal);
    if (signal === "SIGKILL" || !this.#script.leaderIgnoresTerm) this.#end({ exitCode: null, signal });
    if (this.#leftover && (signal === "SIGKILL" || !this.#script.leftover?.ignoresTerm)) {
      this.#leftover = false;
      if (!this.#script.pipeHeld) this.#closed();
    }
  }

  async alive(): Promise<boolean> {
    return this.#leader || this.#leftover;
  }

  release(): void {
    this.released = true;
    this.#closed();
  }
}

function scripted(script: Script, delay?: Promise<void>) {
  const process = new ScriptedProcess(script);
  const spawned: SpawnRequest[] = [];
  const runner = createProcessRunner({
    async spawn(request) {
      spawned.push(request);
      await delay;
      return process;
    },
  });
  return { runner, process, spawned };
}

describe("the runner", () => {
  test("a process that ignores SIGTERM gets SIGKILL once the grace is over", async () => {
    const { runner, process } = scripted({ leaderIgnoresTerm: true });
    const result = await runner.run({ command: "x", timeoutMs: 1, graceMs: 5 });
    expect(result).toEqual({ exitCode: null, signal: "SIGKILL", stopReason: "timeout", forced: true });
    expect(process.signals).toEqual(["SIGTERM", "SIGKILL"]);
  });

  test("a process that obeys SIGTERM is not killed", async () => {
    const { runner, process } = scripted({});
    const result = await runner.run({ command: "x", timeoutMs: 1, graceMs: 60_000 });
    expect(result).toEqual({ exitCode: null, signal: "SIGTERM", stopReason: "timeout", forced: false });
    expect(process.signals).toEqual(["SIGTERM"]);
  });

  test("descendants still running after a normal exit are terminated, then killed after the grace", async () => {
    const { runner, process } = scripted({ exitCode: 0, leftover: { ignoresTerm: true } });
    const result = await runner.run({ command: "x", graceMs: 5 });
    expect(result).toEqual({ exitCode: 0, signal: null, forced: true });
    expect(process.signals).toEqual(["SIGTERM", "SIGKILL"]);
  });

  test("descendants that obey SIGTERM end without a kill, and the result is the program's own", async () => {
    const { runner, process } = scripted({ exitCode: 3, leftover: { ignoresTerm: false } });
    expect(await runner.run({ command: "x", graceMs: 60_000 })).toEqual({ exitCode: 3, signal: null, forced: false });
    expect(process.signals).toEqual(["SIGTERM"]);
  });

  test("a sink's stop ends the process and nothing more is delivered to it", async () => {
    const { runner, process } = scripted({ stdout: ["a", "b", "c"] });
    const seen: string[] = [];
    const result = await runner.run({
      command: "x",
      stdout: {
        write(chunk) {
          seen.push(decode(chunk));
          return "stop";
        },
      },
    });
    expect(result.stopReason).toBe("output");
    expect(seen).toEqual(["a"]);
    expect(process.signals).toEqual(["SIGTERM"]);
  });

  test("a sink that throws stops the process, and its error is what the run rejects with", async () => {
    const { runner, process } = scripted({ stdout: ["a"] });
    const boom = new Error("sink failed");
    const run = runner.run({
      command: "x",
      stdout: {
        write() {
          throw boom;
        },
      },
    });
    await expect(run).rejects.toBe(boom);
    expect(process.signals).toEqual(["SIGTERM"]);
  });

  test("the first stop reason wins", async () => {
    const controller = new AbortController();
    const { runner } = scripted({ stdout: ["a"] });
    const result = await runner.run({
      command: "x",
      signal: controller.signal,
      stdout: {
        write() {
          controller.abort();
          return "stop";
        },
      },
    });
    expect(result.stopReason).toBe("abort");
  });

  test("an abort after the run has finished does nothing", async () => {
    const controller = new AbortController();
    const { runner, process } = scripted({ exitCode: 0 });
    const result = await runner.run({ command: "x", signal: controller.signal });
    controller.abort();
    expect(result).toEqual({ exitCode: 0, signal: null, forced: false });
    expect(process.signals).toEqual([]);
  });

  test("a signal that has already fired starts nothing", async () => {
    const { runner, spawned } = scripted({ exitCode: 0 });
    const result = await runner.run({ command: "x", signal: AbortSignal.abort() });
    expect(result).toEqual({ exitCode: null, signal: null, stopReason: "abort", forced: false });
    expect(spawned).toEqual([]);
  });

  test("an abort while the process is starting stops it as soon as it has started", async () => {
    const controller = new AbortController();
    let started!: () => void;
    const { runner, process } = scripted({}, new Promise<void>((resolve) => (started = resolve)));
    const run = runner.run({ command: "x", signal: controller.signal });
    controller.abort();
    started();
    expect((await run).stopReason).toBe("abort");
    expect(process.signals).toEqual(["SIGTERM"]);
  });

  test("a pipe held open by a process outside the tree is closed instead of waited for", async () => {
    const { runner, process } = scripted({ exitCode: 0, pipeHeld: true });
    expect(await runner.run({ command: "x" })).toEqual({ exitCode: 0, signal: null, forced: false });
    expect(process.released).toBe(true);
  });

  test("arguments no program can receive are refused before anything starts", async () => {
    const { runner, spawned } = scripted({ exitCode: 0 });
    const bad = [
      { command: "" },
      { command: "a\0b" },
      { command: "x", args: ["ok", "a\0b"] },
      { command: "x", cwd: "" },
      { command: "x", cwd: "/tmp\0" },
      { command: "x", env: { "A=B": "1" } },
      { command: "x", env: { A: "1\0" } },
      { command: "x", timeoutMs: 0 },
      { command: "x", timeoutMs: Number.NaN },
      { command: "x", timeoutMs: 2 ** 31 },
      { command: "x", graceMs: -1 },
      { command: "x", inheritEnv: ["A=B"] },
      { command: "x", inheritEnv: ["*A"] },
      { command: "x", inheritEnv: [""] },
      { command: "a=b", inheritEnv: ["PATH"] },
    ];
    for (const spec of bad) {
      const error = await runner.run(spec).catch((e: unknown) => e);
      expect(isProcessError(error, "PROCESS_INVALID_ARGUMENT"), JSON.stringify(spec)).toBe(true);
    }
    expect(spawned).toEqual([]);
  });

  test("the driver sees the validated request, with unset variables kept as removals", async () => {
    const { runner, spawned } = scripted({ exitCode: 0 });
    await runner.run({ command: "x", args: ["-e", "--pre=sh"], cwd: "/w", env: { A: "1", B: undefined } });
    expect(spawned).toEqual([{ command: "x", args: ["-e", "--pre=sh"], cwd: "/w", env: { A: "1", B: undefined } }]);
  });

  test("inheritEnv runs the program through a bash filter that keeps only the named variables and those set", async () => {
    const { runner, spawned } = scripted({ exitCode: 0 });
    await runner.run({ command: "x", args: ["y"], env: { A: "1", B: undefined }, inheritEnv: ["PATH", "LC_*", "a[b"] });
    const [request] = spawned;
    expect([request!.command, request!.args[0], ...request!.args.slice(2)]).toEqual(["bash", "-c", "toolfs-env", "4", "PATH", "LC_*", "a\\[b", "A", "x", "y"]);
    expect(request!.env).toEqual({ A: "1", B: undefined });
  });

  test("a driver failure that is not a ProcessError becomes PROCESS_SPAWN_FAILED", async () => {
    const cause = new Error("no handles left");
    const runner = createProcessRunner({
      spawn: async () => {
        throw cause;
      },
    });
    const error = await runner.run({ command: "x" }).catch((e: unknown) => e);
    expect(isProcessError(error, "PROCESS_SPAWN_FAILED")).toBe(true);
    expect((error as ProcessError).cause).toBe(cause);
  });

  test("a launcher's report that the program never started rejects the run", async () => {
    const process = new ScriptedProcess({ exitCode: 127 });
    const failure = new ProcessError("PROCESS_NOT_FOUND", "no such program");
    const runner = createProcessRunner({ spawn: async () => Object.assign(process, { exit: Promise.reject(failure) }) });
    await expect(runner.run({ command: "x" })).rejects.toBe(failure);
  });

  test("a sink's promise holds its stream back until it settles", async () => {
    const { runner } = scripted({ stdout: ["a", "b", "c"], exitCode: 0 });
    const events: string[] = [];
    let settle!: () => void;
    const run = runner.run({
      command: "x",
      stdout: {
        write(chunk) {
          const text = decode(chunk);
          events.push(`write ${text}`);
          if (text !== "a") return;
          return new Promise<void>((resolve) => {
            settle = () => {
              events.push("settled a");
              resolve();
            };
          });
        },
      },
    });
    await until(() => events.length > 0);
    // Give the pump every chance to read on: nothing more may arrive before the promise settles.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(events).toEqual(["write a"]);
    settle();
    expect(await run).toEqual({ exitCode: 0, signal: null, forced: false });
    expect(events).toEqual(["write a", "settled a", "write b", "write c"]);
  });

  test("output a slow sink has not taken yet when the process exits is still delivered, however long it takes", async () => {
    vi.useFakeTimers();
    try {
      let released = false;
      const child: SpawnedProcess = {
        pid: 7,
        exit: Promise.resolve({ exitCode: 0, signal: null }),
        // The pipe still holds three chunks when the program has exited; closing it loses what is left.
        stdout: (async function* () {
          for (const part of ["a", "b", "c"]) {
            if (released) return;
            yield utf8(part);
          }
        })(),
        stderr: (async function* () {})(),
        signal: async () => undefined,
        alive: async () => false,
        release: () => {
          released = true;
        },
      };
      const runner = createProcessRunner({ spawn: async () => child });
      const seen: string[] = [];
      let settle!: () => void;
      const run = runner.run({
        command: "x",
        stdout: {
          write(chunk) {
            seen.push(decode(chunk));
            if (seen.length > 1) return;
            return new Promise<void>((resolve) => (settle = resolve));
          },
        },
      });
      await vi.advanceTimersByTimeAsync(10_000);
      expect(seen).toEqual(["a"]);
      settle();
      await run;
      expect([seen, released]).toEqual([["a", "b", "c"], false]);
    } finally {
      vi.useRealTimers();
    }
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error("condition never held");
}
