import type { FsErrorCode, FsVersion, FsWriteGuard } from "../../core/mod.ts";
import { assertBytes, assertEquals, assertRejectsCode } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceCase, ConformanceGroup } from "../suite.ts";
import { sleep, utf8 } from "../util.ts";

type GuardKind = "none" | "createIfAbsent" | "replaceIfVersion";
type State = "missing" | "same version" | "other version" | "not a regular file";
type Outcome = "create" | "update" | FsErrorCode;

/**
 * The guard table: what a write does for each guard against each state of the destination. The version a
 * guard carries is always the one read before the state was set up.
 */
const table: ReadonlyArray<readonly [GuardKind, State, Outcome]> = [
  ["none", "missing", "create"],
  ["none", "same version", "update"],
  ["none", "other version", "update"],
  ["none", "not a regular file", "FS_NOT_REGULAR_FILE"],
  ["createIfAbsent", "missing", "create"],
  ["createIfAbsent", "same version", "FS_NOT_OBSERVED"],
  ["createIfAbsent", "other version", "FS_NOT_OBSERVED"],
  ["createIfAbsent", "not a regular file", "FS_NOT_REGULAR_FILE"],
  ["replaceIfVersion", "missing", "FS_STALE_VERSION"],
  ["replaceIfVersion", "same version", "update"],
  ["replaceIfVersion", "other version", "FS_STALE_VERSION"],
  ["replaceIfVersion", "not a regular file", "FS_NOT_REGULAR_FILE"],
];

function tableCase([kind, state, outcome]: readonly [GuardKind, State, Outcome]): ConformanceCase {
  return {
    name: `${kind} guard, ${state}: ${outcome.startsWith("FS_") ? `fails ${outcome}` : `${outcome}s`}`,
    async run({ provider, probe }: Subject) {
      await probe.writeFile("a.txt", "seen");
      const target = await provider.resolve("a.txt");
      const seen = (await provider.stat(target))?.version as FsVersion;
      if (state === "missing") await probe.remove("a.txt");
      if (state === "other version") {
        await sleep(provider.capabilities.timestampResolutionMs + 5);
        await probe.writeFile("a.txt", "changed outside");
      }
      if (state === "not a regular file") {
        await probe.remove("a.txt");
        await probe.mkdir("a.txt");
      }
      const before = await probe.readFile("a.txt");
      const guard: FsWriteGuard | undefined = kind === "none" ? undefined : kind === "createIfAbsent" ? { kind } : { kind, version: seen };
      const write = provider.write(target, utf8("written"), guard ? { guard } : undefined);
      if (outcome === "create" || outcome === "update") {
        assertEquals((await write).operation, outcome);
        assertBytes(await probe.readFile("a.txt"), "written");
        return;
      }
      await assertRejectsCode(write, outcome);
      if (state === "not a regular file") assertEquals((await probe.info("a.txt"))?.type, "directory");
      else if (before === undefined) assertEquals(await probe.info("a.txt"), undefined, "not recreated");
      else assertBytes(await probe.readFile("a.txt"), before, "left as it was");
    },
  };
}

/** Version guards: the guard table cell by cell, races at publication, and concurrent guarded writers. */
export const versionGuardGroup: ConformanceGroup = {
  name: "version-guard",
  cases: [
    ...table.map(tableCase),
    {
      name: "two concurrent createIfAbsent writes: exactly one wins, the other fails FS_NOT_OBSERVED",
      async run({ provider, probe }) {
        const target = await provider.resolve("a.txt");
        const results = await Promise.allSettled([
          provider.write(target, utf8("first"), { guard: { kind: "createIfAbsent" } }),
          provider.write(target, utf8("second"), { guard: { kind: "createIfAbsent" } }),
        ]);
        const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
        assertEquals(won.length, 1, "winners");
        const lost = results.find((r) => r.status === "rejected");
        await assertRejectsCode(Promise.reject(lost?.status === "rejected" ? lost.reason : undefined), "FS_NOT_OBSERVED");
        assertBytes(await probe.readFile("a.txt"), won[0] === 0 ? "first" : "second");
      },
    },
    {
      name: "two concurrent replaceIfVersion writes at one version: exactly one wins, the other fails FS_STALE_VERSION",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "base");
        const target = await provider.resolve("a.txt");
        const version = (await provider.stat(target))?.version as FsVersion;
        const guard = { kind: "replaceIfVersion", version } as const;
        const results = await Promise.allSettled([provider.write(target, utf8("left"), { guard }), provider.write(target, utf8("right"), { guard })]);
        assertEquals(results.filter((r) => r.status === "fulfilled").length, 1, "winners");
        const lost = results.find((r) => r.status === "rejected");
        await assertRejectsCode(Promise.reject(lost?.status === "rejected" ? lost.reason : undefined), "FS_STALE_VERSION");
      },
    },
    {
      name: "of 20 concurrent guarded writes at one version exactly one succeeds",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "base");
        const target = await provider.resolve("a.txt");
        const version = (await provider.stat(target))?.version as FsVersion;
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) => provider.write(target, utf8(`w${i}`), { guard: { kind: "replaceIfVersion", version } })),
        );
        assertEquals(results.filter((r) => r.status === "fulfilled").length, 1);
      },
    },
    {
      name: "createIfAbsent keeps a competitor file created just before publication",
      async run({ provider, probe }) {
        let calls = 0;
        const write = provider.write(await provider.resolve("a.txt"), utf8("mine"), {
          guard: { kind: "createIfAbsent" },
          // The last fence check runs once the bytes are staged: the competitor arrives after every probe.
          fence: async () => {
            if (++calls === 2) await probe.writeFile("a.txt", "competitor");
          },
        });
        await assertRejectsCode(write, "FS_NOT_OBSERVED");
        assertBytes(await probe.readFile("a.txt"), "competitor");
      },
    },
    {
      name: "createIfAbsent keeps a competitor directory created just before publication",
      async run({ provider, probe }) {
        let calls = 0;
        const write = provider.write(await provider.resolve("a.txt"), utf8("mine"), {
          guard: { kind: "createIfAbsent" },
          fence: async () => {
            if (++calls === 2) await probe.mkdir("a.txt");
          },
        });
        await assertRejectsCode(write, "FS_NOT_REGULAR_FILE");
        assertEquals((await probe.info("a.txt"))?.type, "directory");
      },
    },
    {
      name: "replaceIfVersion notices a change made just before publication",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "base");
        const target = await provider.resolve("a.txt");
        const version = (await provider.stat(target))?.version as FsVersion;
        let calls = 0;
        const write = provider.write(target, utf8("mine"), {
          guard: { kind: "replaceIfVersion", version },
          fence: async () => {
            calls += 1;
            if (calls === 2) {
              await sleep(provider.capabilities.timestampResolutionMs + 5);
              await probe.writeFile("a.txt", "racer");
            }
          },
        });
        await assertRejectsCode(write, "FS_STALE_VERSION");
        assertBytes(await probe.readFile("a.txt"), "racer");
      },
    },
    {
      name: "the version a write returns guards the next write",
      async run({ provider, probe }) {
        const target = await provider.resolve("a.txt");
        let { version } = await provider.write(target, utf8("1"), { guard: { kind: "createIfAbsent" } });
        for (const next of ["2", "3", "4"]) {
          ({ version } = await provider.write(target, utf8(next), { guard: { kind: "replaceIfVersion", version } }));
        }
        assertBytes(await probe.readFile("a.txt"), "4");
      },
    },
    {
      name: "a version from another file does not guard this one",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "same");
        await probe.writeFile("b.txt", "same");
        const other = (await provider.stat(await provider.resolve("b.txt")))?.version as FsVersion;
        await assertRejectsCode(
          provider.write(await provider.resolve("a.txt"), utf8("x"), { guard: { kind: "replaceIfVersion", version: other } }),
          "FS_STALE_VERSION",
        );
      },
    },
    {
      name: "a stale version stays stale after the file is restored to the same bytes",
      async run({ provider, probe }) {
        await probe.writeFile("a.txt", "v1");
        const target = await provider.resolve("a.txt");
        const version = (await provider.stat(target))?.version as FsVersion;
        await provider.write(target, utf8("v2"));
        await provider.write(target, utf8("v1"));
        await assertRejectsCode(provider.write(target, utf8("x"), { guard: { kind: "replaceIfVersion", version } }), "FS_STALE_VERSION");
      },
    },
  ],
};
