import type { FileSystem } from "../../core/mod.ts";
import { assert, assertBytes, assertEquals, assertRejectsCode } from "../assert.ts";
import type { Probe } from "../harness.ts";
import type { ConformanceCase, ConformanceGroup } from "../suite.ts";
import { abortedSignal, pattern, utf8 } from "../util.ts";

type Operation = (provider: FileSystem, signal: AbortSignal, probe: Probe) => Promise<unknown>;

function preAborted(name: string, operation: Operation): ConformanceCase {
  return {
    name: `${name} with an aborted signal fails FS_ABORTED`,
    async run({ provider, probe }) {
      await probe.writeFile("d/a.txt", "content");
      await assertRejectsCode(operation(provider, abortedSignal(), probe), "FS_ABORTED");
    },
  };
}

/** Cancellation by AbortSignal at every checkpoint. */
export const abortGroup: ConformanceGroup = {
  name: "abort",
  cases: [
    preAborted("resolve", (p, signal) => p.resolve("d/a.txt", { signal })),
    preAborted("stat", async (p, signal) => p.stat(await p.resolve("d/a.txt"), { signal })),
    preAborted("lstat", (p, signal) => p.lstat("d/a.txt", { signal })),
    preAborted("readBytes", async (p, signal) => p.readBytes(await p.resolve("d/a.txt"), { maxBytes: 100, signal })),
    preAborted("readStream", async (p, signal) => p.readStream(await p.resolve("d/a.txt"), { signal })),
    preAborted("listDir", async (p, signal) => p.listDir(await p.resolve("d"), { signal })),
    {
      name: "a pre-aborted write fails FS_ABORTED and creates nothing",
      async run({ provider, probe }) {
        await assertRejectsCode(provider.write(await provider.resolve("new/a.txt"), utf8("x"), { signal: abortedSignal() }), "FS_ABORTED");
        assertEquals(await probe.list("."), []);
      },
    },
    {
      name: "an abort during publication keeps the old bytes and leaves nothing staged",
      async run({ provider, probe }) {
        await probe.writeFile("d/a.txt", "old");
        const controller = new AbortController();
        let calls = 0;
        const write = provider.write(await provider.resolve("d/a.txt"), utf8("new"), {
          signal: controller.signal,
          fence: () => {
            calls += 1;
            if (calls === 2) controller.abort(new Error("cancelled by the test"));
          },
        });
        await assertRejectsCode(write, "FS_ABORTED");
        assertBytes(await probe.readFile("d/a.txt"), "old");
        assertEquals(await probe.list("d"), ["a.txt"]);
      },
    },
    {
      name: "an abort while a stream is being read fails the iteration FS_ABORTED",
      async run({ provider, probe }) {
        await probe.writeFile("big.bin", pattern(100_000));
        const controller = new AbortController();
        const stream = await provider.readStream(await provider.resolve("big.bin"), { signal: controller.signal, chunkSize: 1000 });
        const drain = async (): Promise<void> => {
          let chunks = 0;
          for await (const _chunk of stream) if (++chunks === 3) controller.abort();
        };
        await assertRejectsCode(drain(), "FS_ABORTED");
      },
    },
    {
      name: "the abort reason is the error's cause",
      async run({ provider }) {
        const controller = new AbortController();
        const reason = new Error("the reason");
        controller.abort(reason);
        const error = await assertRejectsCode(provider.resolve("a.txt", { signal: controller.signal }), "FS_ABORTED");
        assert(error.cause === reason, "the cause is the abort reason");
      },
    },
    {
      name: "a target is writable again after an aborted write",
      async run({ provider, probe }) {
        const target = await provider.resolve("a.txt");
        await assertRejectsCode(provider.write(target, utf8("x"), { signal: abortedSignal() }), "FS_ABORTED");
        const controller = new AbortController();
        let calls = 0;
        await assertRejectsCode(
          provider.write(target, utf8("y"), { signal: controller.signal, fence: () => void (++calls === 2 && controller.abort()) }),
          "FS_ABORTED",
        );
        await provider.write(target, utf8("z"));
        assertBytes(await probe.readFile("a.txt"), "z");
      },
    },
  ],
};
