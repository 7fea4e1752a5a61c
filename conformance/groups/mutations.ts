import { FsError, type FsErrorCode, type FsFence, type FsTarget, type FsVersion } from "../../core/mod.ts";
import { assertBytes, assertEquals, assertRejectsCode } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceCase, ConformanceGroup, SubjectTraits } from "../suite.ts";
import { needsPermissionErrors, needsSymlinks, sleep, under, utf8 } from "../util.ts";

type State = "same version" | "other version" | "missing" | "directory";

/** The overlay's upper holds no symbolic links, so a base symlink can be removed in it but not moved. */
const movesSymlinks = (traits: SubjectTraits): string | undefined =>
  traits.overlay ? "the overlay's upper holds no symbolic links: it removes a base symlink but cannot move one" : undefined;

/** The overlay changes its upper only; the base's permissions are met, and reported, by its commit. */
const refusesByPermission = (traits: SubjectTraits): string | undefined =>
  traits.overlay ? "the overlay changes its upper only; a read-only base folder refuses the commit, not the change" : undefined;

const and =
  (...checks: ((traits: SubjectTraits) => string | undefined)[]) =>
  (traits: SubjectTraits): string | undefined => {
    for (const check of checks) {
      const reason = check(traits);
      if (reason !== undefined) return reason;
    }
    return undefined;
  };

// Reads `path`'s version, then puts it in `state` (the version stays the one read).
async function seen({ provider, probe }: Subject, path: string, state: State): Promise<FsVersion> {
  await probe.writeFile(path, "seen");
  const version = (await provider.stat(await provider.resolve(path)))!.version;
  if (state === "other version") {
    await sleep(provider.capabilities.timestampResolutionMs + 5);
    await probe.writeFile(path, "changed outside");
  }
  if (state === "missing" || state === "directory") await probe.remove(path);
  if (state === "directory") await probe.mkdir(path);
  return version;
}

type Outcome = "done" | FsErrorCode;
const said = (outcome: Outcome): string => (outcome === "done" ? "succeeds" : `fails ${outcome}`);

/** Remove: each guard against each state of the file. */
const removeTable: ReadonlyArray<readonly [boolean, State, Outcome]> = [
  [false, "same version", "done"],
  [false, "other version", "done"],
  [false, "missing", "FS_NOT_FOUND"],
  [false, "directory", "FS_NOT_REGULAR_FILE"],
  [true, "same version", "done"],
  [true, "other version", "FS_STALE_VERSION"],
  [true, "missing", "FS_STALE_VERSION"],
  [true, "directory", "FS_NOT_REGULAR_FILE"],
];

function removeCase([guarded, state, outcome]: readonly [boolean, State, Outcome]): ConformanceCase {
  return {
    name: `remove, ${guarded ? "ifVersion" : "no"} guard, ${state}: ${said(outcome)}`,
    async run(subject) {
      const { provider, probe } = subject;
      const version = await seen(subject, "a.txt", state);
      const before = await probe.info("a.txt");
      const removing = provider.remove(await provider.resolve("a.txt"), guarded ? { guard: { kind: "ifVersion", version } } : undefined);
      if (outcome === "done") {
        assertEquals((await removing).type, "file");
        assertEquals(await probe.info("a.txt"), undefined, "removed");
        return;
      }
      await assertRejectsCode(removing, outcome);
      assertEquals((await probe.info("a.txt"))?.type, before?.type, "left as it was");
    },
  };
}

/** Move, by the source's guard and state (destination free). */
function moveSourceCase([guarded, state, outcome]: readonly [boolean, State, Outcome]): ConformanceCase {
  const outcomeHere = state === "directory" && outcome === "FS_NOT_REGULAR_FILE" && !guarded ? "done" : outcome;
  return {
    name: `move, ${guarded ? "ifVersion" : "no"} guard on the source, ${state}: ${said(outcomeHere)}`,
    async run(subject) {
      const { provider, probe } = subject;
      const version = await seen(subject, "a.txt", state);
      const before = await probe.info("a.txt");
      const moving = provider.move(
        await provider.resolve("a.txt"),
        await provider.resolve("b.txt"),
        guarded ? { guard: { kind: "ifVersion", version } } : undefined,
      );
      if (outcomeHere === "done") {
        await moving;
        assertEquals(await probe.info("a.txt"), undefined, "the source name is gone");
        assertEquals((await probe.info("b.txt"))?.type, before?.type, "the destination holds it");
        return;
      }
      await assertRejectsCode(moving, outcomeHere);
      assertEquals((await probe.info("a.txt"))?.type, before?.type, "the source is left as it was");
      assertEquals(await probe.info("b.txt"), undefined, "nothing at the destination");
    },
  };
}

type Replace = "no" | "any" | "version";
/** Move, by what `replace` asks against each state of the destination. */
const destinationTable: ReadonlyArray<readonly [Replace, State, Outcome]> = [
  ["no", "same version", "FS_EXISTS"],
  ["no", "directory", "FS_EXISTS"],
  ["any", "same version", "done"],
  ["any", "other version", "done"],
  ["any", "missing", "done"],
  ["any", "directory", "FS_EXISTS"],
  ["version", "same version", "done"],
  ["version", "other version", "FS_STALE_VERSION"],
  ["version", "missing", "FS_STALE_VERSION"],
  ["version", "directory", "FS_EXISTS"],
];

function moveDestinationCase([replace, state, outcome]: readonly [Replace, State, Outcome]): ConformanceCase {
  return {
    name: `move, replace ${replace === "no" ? "not asked" : replace === "any" ? "asked" : "at a version"}, destination ${state}: ${said(outcome)}`,
    async run(subject) {
      const { provider, probe } = subject;
      const version = await seen(subject, "b.txt", state);
      await probe.writeFile("a.txt", "moved");
      const before = await probe.readFile("b.txt");
      const options = replace === "no" ? undefined : { replace: replace === "any" ? true : { version } };
      const moving = provider.move(await provider.resolve("a.txt"), await provider.resolve("b.txt"), options);
      if (outcome === "done") {
        const result = await moving;
        assertEquals(result.replaced, state !== "missing", "replaced");
        assertEquals(await probe.info("a.txt"), undefined, "the source name is gone");
        assertBytes(await probe.readFile("b.txt"), "moved");
        return;
      }
      await assertRejectsCode(moving, outcome);
      assertBytes(await probe.readFile("a.txt"), "moved", "the source is left as it was");
      if (state === "directory") assertEquals((await probe.info("b.txt"))?.type, "directory");
      else if (before === undefined) assertEquals(await probe.info("b.txt"), undefined);
      else assertBytes(await probe.readFile("b.txt"), before, "the destination is left as it was");
    },
  };
}

/** mkdir: each guard against each state of the name. */
const mkdirTable: ReadonlyArray<readonly [boolean, "missing" | "directory" | "file", "create" | "exists" | FsErrorCode]> = [
  [false, "missing", "create"],
  [false, "directory", "exists"],
  [false, "file", "FS_EXISTS"],
  [true, "missing", "create"],
  [true, "directory", "FS_EXISTS"],
  [true, "file", "FS_EXISTS"],
];

function mkdirCase([guarded, state, outcome]: (typeof mkdirTable)[number]): ConformanceCase {
  return {
    name: `mkdir, ${guarded ? "createIfAbsent" : "no"} guard, ${state}: ${outcome.startsWith("FS_") ? `fails ${outcome}` : outcome}`,
    async run({ provider, probe }) {
      if (state === "directory") await probe.mkdir("d");
      if (state === "file") await probe.writeFile("d", "a file");
      const making = provider.mkdir(await provider.resolve("d"), guarded ? { guard: { kind: "createIfAbsent" } } : undefined);
      if (outcome === "create" || outcome === "exists") {
        assertEquals((await making).operation, outcome);
        assertEquals((await probe.info("d"))?.type, "directory");
        return;
      }
      await assertRejectsCode(making, outcome as FsErrorCode);
      assertEquals((await probe.info("d"))?.type, state === "file" ? "file" : "directory", "left as it was");
    },
  };
}

// A fence that records every canonical key it is asked about and refuses the ones `refuses` picks.
function recordingFence(refuses: (key: string) => boolean = () => false): { fence: FsFence; keys: string[] } {
  const keys: string[] = [];
  return {
    keys,
    fence: (target: FsTarget) => {
      keys.push(target.key);
      if (refuses(target.key)) throw new FsError("FS_SANDBOX_DENIED", `"${target.displayPath}" is fenced off`, { details: { path: target.displayPath } });
    },
  };
}

const NAME_240 = "é".repeat(120);

const cases: ConformanceCase[] = [
  ...removeTable.map(removeCase),
  ...removeTable.map(moveSourceCase),
  ...destinationTable.map(moveDestinationCase),
  ...mkdirTable.map(mkdirCase),
  {
    name: "mkdir with parents creates every missing level; without, a missing parent fails FS_NOT_FOUND and creates nothing",
    async run({ provider, probe }) {
      await assertRejectsCode(provider.mkdir(await provider.resolve("x/y/z")), "FS_NOT_FOUND");
      assertEquals(await probe.info("x"), undefined, "nothing created");
      assertEquals((await provider.mkdir(await provider.resolve("x/y/z"), { parents: true })).operation, "create");
      assertEquals((await probe.info("x/y/z"))?.type, "directory");
    },
  },
  {
    name: "remove of an empty directory needs directory: true; a non-empty one fails FS_NOT_EMPTY and keeps its entries",
    async run({ provider, probe }) {
      await probe.mkdir("empty");
      await probe.writeFile("full/keep.txt", "kept");
      await assertRejectsCode(provider.remove(await provider.resolve("empty")), "FS_NOT_REGULAR_FILE");
      assertEquals((await provider.remove(await provider.resolve("empty"), { directory: true })).type, "directory");
      assertEquals(await probe.info("empty"), undefined, "removed");
      await assertRejectsCode(provider.remove(await provider.resolve("full"), { directory: true }), "FS_NOT_EMPTY");
      assertBytes(await probe.readFile("full/keep.txt"), "kept");
    },
  },
  {
    name: "remove of a symlink removes the link, never its target (a file's or a directory's)",
    skip: needsSymlinks,
    async run({ provider, probe }) {
      await probe.writeFile("real.txt", "target");
      await probe.writeFile("real-dir/inside.txt", "inside");
      await probe.symlink("real.txt", "link.txt");
      await probe.symlink("real-dir", "link-dir");
      const removed = await provider.remove(await provider.resolve("link.txt"));
      assertEquals([removed.type, removed.target.key], ["symlink", under(probe.root, "link.txt")]);
      assertEquals((await provider.remove(await provider.resolve("link-dir"))).type, "symlink");
      assertEquals([await probe.info("link.txt"), await probe.info("link-dir")], [undefined, undefined], "links removed");
      assertBytes(await probe.readFile("real.txt"), "target");
      assertBytes(await probe.readFile("real-dir/inside.txt"), "inside");
    },
  },
  {
    name: "move of a symlink moves the link itself; its target stays where it is",
    skip: and(needsSymlinks, movesSymlinks),
    async run({ provider, probe }) {
      await probe.writeFile("real.txt", "target");
      await probe.symlink(under(probe.root, "real.txt"), "link.txt");
      await probe.mkdir("d");
      const moved = await provider.move(await provider.resolve("link.txt"), await provider.resolve("d/link.txt"));
      assertEquals(moved.type, "symlink");
      assertEquals([(await probe.info("d/link.txt"))?.type, await probe.info("link.txt")], ["symlink", undefined]);
      assertBytes(await probe.readFile("real.txt"), "target");
      assertBytes(await probe.readFile("d/link.txt"), "target", "the moved link still points to the target");
    },
  },
  {
    name: "move of a directory with its contents into another folder, creating that folder's parents when asked",
    async run({ provider, probe }) {
      await probe.writeFile("src/a.txt", "a");
      await probe.writeFile("src/deep/b.txt", "b");
      await assertRejectsCode(provider.move(await provider.resolve("src"), await provider.resolve("new/parent/dst")), "FS_NOT_FOUND");
      const moved = await provider.move(await provider.resolve("src"), await provider.resolve("new/parent/dst"), { parents: true });
      assertEquals(moved.type, "directory");
      assertEquals(await probe.info("src"), undefined, "the source name is gone");
      assertBytes(await probe.readFile("new/parent/dst/a.txt"), "a");
      assertBytes(await probe.readFile("new/parent/dst/deep/b.txt"), "b");
      await assertRejectsCode(provider.move(await provider.resolve("new"), await provider.resolve("new/parent/inner")), "FS_IO_ERROR");
      assertEquals((await probe.info("new/parent/dst"))?.type, "directory", "a folder is not moved into itself");
    },
  },
  {
    name: "a directory moved onto an existing name fails FS_EXISTS, with or without replace, and nothing changes",
    async run({ provider, probe }) {
      await probe.writeFile("src/a.txt", "a");
      await probe.mkdir("empty");
      await probe.writeFile("file.txt", "f");
      for (const to of ["empty", "file.txt"]) {
        for (const replace of [false, true]) {
          await assertRejectsCode(
            provider.move(await provider.resolve("src"), await provider.resolve(to), { replace }),
            "FS_EXISTS",
            `${to}, replace ${replace}`,
          );
        }
      }
      assertBytes(await probe.readFile("src/a.txt"), "a");
      assertEquals([(await probe.info("empty"))?.type, (await probe.list("empty")).length], ["directory", 0]);
      assertBytes(await probe.readFile("file.txt"), "f");
    },
  },
  {
    name: "aliases resolve canonically: through a symlinked folder and '..', the fence sees canonical source and destination",
    skip: needsSymlinks,
    async run({ provider, probe }) {
      await probe.writeFile("real/a.txt", "a");
      await probe.writeFile("real/gone.txt", "g");
      await probe.symlink("real", "alias");
      const { fence, keys } = recordingFence();
      const moved = await provider.move(await provider.resolve("alias/a.txt"), await provider.resolve("alias/sub/../b.txt"), { fence });
      assertEquals([moved.source.key, moved.destination.key], [under(probe.root, "real/a.txt"), under(probe.root, "real/b.txt")]);
      assertEquals([...new Set(keys)], [under(probe.root, "real/a.txt"), under(probe.root, "real/b.txt")], "keys the fence saw");
      assertBytes(await probe.readFile("real/b.txt"), "a");
      const removed = await provider.remove(await provider.resolve("alias/../alias/gone.txt"), { fence });
      assertEquals(removed.target.key, under(probe.root, "real/gone.txt"));
      assertEquals(await probe.info("real/gone.txt"), undefined);
      assertEquals((await probe.info("alias"))?.type, "symlink", "the folder alias is kept");
      const made = await provider.mkdir(await provider.resolve("alias/new"), { fence });
      assertEquals(made.target.key, under(probe.root, "real/new"));
    },
  },
  {
    name: "a fence that refuses the source or the destination leaves everything unchanged",
    async run({ provider, probe }) {
      await probe.writeFile("a.txt", "a");
      await probe.writeFile("b.txt", "b");
      await probe.mkdir("d");
      const paths = ["a.txt", "b.txt", "c.txt", "d", "d/new"];
      for (const refused of paths) {
        const { fence } = recordingFence((key) => key === under(probe.root, refused));
        const attempts: [string, () => Promise<unknown>][] = [
          ["move a.txt c.txt", async () => provider.move(await provider.resolve("a.txt"), await provider.resolve("c.txt"), { fence })],
          ["move a.txt b.txt", async () => provider.move(await provider.resolve("a.txt"), await provider.resolve("b.txt"), { fence, replace: true })],
          ["remove b.txt", async () => provider.remove(await provider.resolve("b.txt"), { fence })],
          ["remove d", async () => provider.remove(await provider.resolve("d"), { fence, directory: true })],
          ["mkdir d/new", async () => provider.mkdir(await provider.resolve("d/new"), { fence })],
        ];
        for (const [what, attempt] of attempts) {
          if (!what.split(" ").slice(1).includes(refused)) continue;
          await assertRejectsCode(attempt, "FS_SANDBOX_DENIED", `${what} with ${refused} fenced off`);
        }
      }
      assertBytes(await probe.readFile("a.txt"), "a");
      assertBytes(await probe.readFile("b.txt"), "b");
      assertEquals([await probe.info("c.txt"), await probe.list("d")], [undefined, []]);
    },
  },
  {
    name: "versions read before a move or a removal are stale afterwards, also once the name is back; a move's version guards the next write",
    async run({ provider, probe }) {
      await probe.writeFile("a.txt", "a");
      const a = await provider.resolve("a.txt");
      const b = await provider.resolve("b.txt");
      const read = (await provider.stat(a))!.version;
      await provider.move(a, b);
      const back = await provider.move(b, a);
      await assertRejectsCode(provider.write(a, utf8("late"), { guard: { kind: "replaceIfVersion", version: read } }), "FS_STALE_VERSION");
      await provider.write(a, utf8("next"), { guard: { kind: "replaceIfVersion", version: back.version! } });
      assertBytes(await probe.readFile("a.txt"), "next");
      const again = (await provider.stat(a))!.version;
      await provider.remove(a);
      await probe.writeFile("a.txt", "recreated");
      await assertRejectsCode(provider.remove(a, { guard: { kind: "ifVersion", version: again } }), "FS_STALE_VERSION");
      assertBytes(await probe.readFile("a.txt"), "recreated");
    },
  },
  {
    name: "names of 240 bytes (é × 120) are created, moved and removed like any other",
    async run({ provider, probe }) {
      await probe.writeFile("a.txt", "a");
      await provider.mkdir(await provider.resolve(NAME_240));
      const to = await provider.resolve(`${NAME_240}/${NAME_240}`);
      const moved = await provider.move(await provider.resolve("a.txt"), to);
      assertBytes(await probe.readFile(`${NAME_240}/${NAME_240}`), "a");
      await provider.remove(to, { guard: { kind: "ifVersion", version: moved.version! } });
      await provider.remove(await provider.resolve(NAME_240), { directory: true });
      assertEquals(await probe.list(probe.root), [], "nothing left, no lock file either");
    },
  },
  {
    name: "a read-only folder refuses remove and move with FS_PERMISSION_DENIED, and nothing changes",
    skip: and(needsPermissionErrors, refusesByPermission),
    async run({ provider, probe }) {
      await probe.writeFile("locked/a.txt", "a");
      await probe.chmod("locked", 0o555);
      try {
        await assertRejectsCode(provider.remove(await provider.resolve("locked/a.txt")), "FS_PERMISSION_DENIED");
        await assertRejectsCode(provider.move(await provider.resolve("locked/a.txt"), await provider.resolve("b.txt")), "FS_PERMISSION_DENIED");
        await assertRejectsCode(provider.mkdir(await provider.resolve("locked/d")), "FS_PERMISSION_DENIED");
      } finally {
        await probe.chmod("locked", 0o755);
      }
      assertBytes(await probe.readFile("locked/a.txt"), "a");
      assertEquals([await probe.info("b.txt"), await probe.list("locked")], [undefined, ["a.txt"]]);
    },
  },
];

/**
 * Removal, moves and folder creation (issue 20): the guard table of each, symlinks acted on themselves,
 * aliases resolved canonically for the fence, and what a refusal leaves (nothing changed).
 */
export const mutationsGroup: ConformanceGroup = { name: "mutations", cases };
