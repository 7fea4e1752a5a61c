// Issue 18 (items 3 and 4): the spill folder lives in a writable temp root, so the model's own shell, or
// another local user who made the folder first, could choose where spills go or rewrite them. These run the
// attacks as the issue describes them: a real bash under the sandbox swapping the folder for a symlink, and a
// folder pre-created and given to another user (`nobody`; that part needs root to give a folder away).
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { createFsSpillStore, createToolkit, detectBubblewrap, spillDirectoryIn, type Toolkit } from "../core/mod.ts";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "../adapters/node/mod.ts";

const runner = createNodeProcessRunner();
const confinement = await detectBubblewrap(runner);
const uid = process.getuid?.();
const made: string[] = [];

afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

interface Scene {
  readonly temp: string;
  readonly outside: string;
  readonly spill: string;
  readonly kit: Toolkit;
}

// A workspace with 300 matching lines (over grep's cap of 250, so the complete list is spilled), a temp root
// writable under the sandbox, and a folder outside both.
async function scene(options: { sandboxed: boolean }): Promise<Scene> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "toolfs-spill-test-")));
  made.push(base);
  const [ws, temp, outside] = [join(base, "ws"), join(base, "tmp"), join(base, "outside")];
  for (const dir of [ws, temp, outside]) await mkdir(dir);
  await writeFile(join(ws, "many.txt"), `${Array.from({ length: 300 }, (_, i) => `hit ${i}`).join("\n")}\n`);
  const spill = spillDirectoryIn(temp, uid);
  const fs = createNodeProvider({ cwd: ws });
  const kit = createToolkit({
    fs,
    workspace: ws,
    search: createNodeSearchBackend({ runner }),
    spill: createFsSpillStore(fs, spill),
    ...(options.sandboxed ? { runner, sandbox: { mode: "workspace-write", writableRoots: [temp], confinement } } : {}),
  });
  return { temp, outside, spill, kit };
}

const bwrap = confinement.available ? undefined : `bubblewrap is unavailable: ${confinement.reason}`;

describe.skipIf(bwrap !== undefined)("the sandboxed shell cannot redirect spills (issue 18, item 3)", () => {
  test("a folder made at start is read-only to bash: `rm -rf` and `ln -s` fail, the next spill lands in it", async () => {
    const { outside, spill, kit } = await scene({ sandboxed: true });
    // As the hosts do at start.
    await mkdir(spill, { mode: 0o700 });
    const swap = await kit.call("bash", { command: `rm -rf ${JSON.stringify(spill)}; ln -s ${JSON.stringify(outside)} ${JSON.stringify(spill)}` });
    const grep = await kit.call("grep", { pattern: "hit" });
    expect(await readdir(outside)).toEqual([]);
    expect((await lstat(spill)).isDirectory()).toBe(true);
    expect(swap.content).toMatch(/Device or resource busy|Read-only file system/);
    expect(grep.content).toContain(`All 300 matches are in ${spill}/grep-`);
    expect(await readdir(spill)).toHaveLength(1);
  }, 60_000);

  test("a symlink bash put where no folder was yet gets no spill, and the footer says why", async () => {
    const { outside, spill, kit } = await scene({ sandboxed: true });
    const swap = await kit.call("bash", { command: `ln -s ${JSON.stringify(outside)} ${JSON.stringify(spill)} && echo swapped` });
    expect(swap.content).toContain("swapped");
    const grep = await kit.call("grep", { pattern: "hit" });
    expect(await readdir(outside)).toEqual([]);
    expect(grep.content).toMatch(
      /\(The complete list could not be saved: the spill folder "[^"]+" leads elsewhere \("[^"]+\/outside"\): it was replaced by a symbolic link or moved; narrow pattern/,
    );
    expect(grep.content).not.toContain(`matches are in ${spill}`);
    expect(grep.meta.spill).toBeUndefined();
  }, 60_000);

  test("write and edit cannot reach into the spill folder either", async () => {
    const { spill, kit } = await scene({ sandboxed: true });
    await kit.call("grep", { pattern: "hit" });
    const [name] = await readdir(spill);
    const forged = await kit.call("write", { path: `${spill}/${name}`, content: "forged\n" });
    expect([forged.isError, forged.content]).toEqual([true, expect.stringMatching(/is protected and stays read-only/)]);
  }, 60_000);
});

describe("a spill folder another user made first gets no spill (issue 18, item 4)", () => {
  test.skipIf(uid !== 0)("owned by nobody, mode 0755: refused with the reason, nothing written there (as root)", async () => {
    const { spill, kit } = await scene({ sandboxed: false });
    await mkdir(spill);
    await chmod(spill, 0o755);
    await chown(spill, 65534, 65534);
    const grep = await kit.call("grep", { pattern: "hit" });
    expect(grep.content).toMatch(
      /\(The complete list could not be saved: Cannot write "[^"]+" privately: its folder belongs to another user \(uid 65534, not 0\); narrow/,
    );
    expect(grep.meta.spill).toBeUndefined();
    expect(await readdir(spill)).toEqual([]);
  });

  test("each user has a folder of their own", () => {
    expect([spillDirectoryIn("/tmp", 0), spillDirectoryIn("/tmp", 65534), spillDirectoryIn("/tmp", undefined)]).toEqual([
      "/tmp/toolfs-spill-0",
      "/tmp/toolfs-spill-65534",
      "/tmp/toolfs-spill",
    ]);
  });
});
