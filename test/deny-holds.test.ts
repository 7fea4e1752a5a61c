// The deny list holds against what the old rules let through: a denied file moved by renaming a directory
// above it from the confined shell (real bubblewrap, run as root and as nobody), and the file tools reached
// through a symlinked spelling of a denied path. Cases that need bubblewrap are skipped with the detector's
// reason where it cannot run.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "../adapters/node/mod.ts";
import { inProcessAgent, type Message } from "./acp-driver.ts";
import { COMPOSITIONS, createScriptedModel } from "../adapters/acp/mod.ts";
import { createToolkit, detectBubblewrap, type ProcessRunner, type SandboxOptions, type Toolkit } from "../core/mod.ts";

const SECRET = "SECRET-5e0d";
const base = createNodeProcessRunner();
const confinement = await detectBubblewrap(base);
const isRoot = process.getuid?.() === 0;

// As root, a runner that starts every command as nobody, so bubblewrap runs unprivileged (user namespaces).
const asNobody: ProcessRunner = {
  run: (spec) => base.run({ ...spec, command: "setpriv", args: ["--reuid=65534", "--regid=65534", "--clear-groups", spec.command, ...(spec.args ?? [])] }),
};
const users: [string, ProcessRunner][] = [["root", base], ...(isRoot ? ([["nobody", asNobody]] as [string, ProcessRunner][]) : [])];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A canonical temp directory everyone may write (the nobody runs write in it too). */
function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-deny-")));
  chmodSync(dir, 0o777);
  dirs.push(dir);
  return dir;
}

/** `ws/config/secrets.json` holding the secret, `ws/a.txt`, and a home outside the temp directories. */
function layout(): { root: string; ws: string } {
  const root = scratch();
  const ws = join(root, "ws");
  mkdirSync(join(ws, "config"), { recursive: true });
  writeFileSync(join(ws, "config", "secrets.json"), `{"token":"${SECRET}"}\n`);
  writeFileSync(join(ws, "a.txt"), "hello\n");
  execFileSync("chmod", ["-R", "a+rwX", root]);
  return { root, ws };
}

function kit(ws: string, runner: ProcessRunner, sandbox: Partial<SandboxOptions>): Toolkit {
  return createToolkit({ fs: createNodeProvider({ cwd: ws }), workspace: ws, runner, sandbox: { mode: "workspace-write", confinement, ...sandbox } });
}

const bwrap = confinement.available ? describe : describe.skip;

bwrap(`the confined shell under a deny list${confinement.available ? "" : ` (${confinement.reason})`}`, () => {
  for (const [user, runner] of users) {
    for (const [deny, mode] of [
      ["config/secrets.json", "workspace-write"],
      ["config/*.json", "workspace-write"],
      ["config/secrets.json", "full-access"],
    ] as const) {
      test(`as ${user}, --deny ${deny} under ${mode}: mv config cfg fails and the secret stays unreadable`, async () => {
        const { ws } = layout();
        const toolkit = kit(ws, runner, { mode, deny: [deny], home: join(ws, "..") });
        const moved = await toolkit.call("bash", { command: "id -u; mv config cfg; echo mv=$?; mv config/secrets.json s.json; echo mv2=$?; ls" });
        expect(moved.content).toContain(`${user === "root" ? 0 : 65534}\n`);
        expect(moved.content).toMatch(/mv=[1-9]/);
        expect(moved.content).toMatch(/mv2=[1-9]/);
        expect(moved.content).not.toContain(SECRET);
        for (const path of ["cfg/secrets.json", "config/secrets.json", "s.json"]) {
          const read = await toolkit.call("read", { path });
          expect(read.content, path).not.toContain(SECRET);
        }
        expect(readFileSync(join(ws, "config", "secrets.json"), "utf8")).toContain(SECRET);
        // Moving other things still works.
        const other = await toolkit.call("bash", { command: "mv a.txt b.txt && cat b.txt" });
        expect(other.content).toContain("hello");
      });
    }
    test(`as ${user}, --deny .env also hides .ENV and an NFD spelling of an NFC pattern from the shell`, async () => {
      const { ws } = layout();
      const nfd = "caf\u00e9".normalize("NFD");
      writeFileSync(join(ws, ".ENV"), SECRET);
      writeFileSync(join(ws, nfd), SECRET);
      execFileSync("chmod", ["a+rw", join(ws, ".ENV"), join(ws, nfd)]);
      const toolkit = kit(ws, runner, { deny: [".env", "caf\u00e9"] });
      const out = await toolkit.call("bash", { command: `cat .ENV ${nfd}; echo done` });
      expect(out.content).toContain("done");
      expect(out.content).not.toContain(SECRET);
    });
    test(`as ${user}, a denied path under a home the shell may write (full-access): the home cannot be renamed`, async () => {
      const { root, ws } = layout();
      const home = join(root, "home");
      mkdirSync(join(home, ".ssh"), { recursive: true });
      writeFileSync(join(home, ".ssh", "id_ed25519"), SECRET);
      execFileSync("chmod", ["-R", "a+rwX", home]);
      const toolkit = kit(ws, runner, { mode: "full-access", deny: ["~/.ssh"], home });
      const out = await toolkit.call("bash", { command: `mv ${home} ${root}/h2; echo mv=$?; mv ${home}/.ssh ${root}/s; echo mv2=$?` });
      expect(out.content).toMatch(/mv=[1-9]/);
      expect(out.content).toMatch(/mv2=[1-9]/);
      for (const path of [`${root}/h2/.ssh/id_ed25519`, `${root}/s/id_ed25519`]) {
        expect((await toolkit.call("read", { path })).content).not.toContain(SECRET);
      }
    });
  }
});

describe("deny patterns judged on canonical paths (a symlink in the pattern's spelling)", () => {
  /** `real/.ssh/id` holding the secret, and `link` -> `real`. */
  function linked(): { root: string; real: string; link: string } {
    const root = scratch();
    const real = join(root, "real");
    mkdirSync(join(real, ".ssh"), { recursive: true });
    mkdirSync(join(root, "ws"));
    writeFileSync(join(real, ".ssh", "id"), SECRET);
    symlinkSync(real, join(root, "link"));
    return { root, real, link: join(root, "link") };
  }

  const cases: [string, (at: { root: string; link: string }) => Partial<SandboxOptions> & { workspace?: string }][] = [
    ["~/.ssh with a symlinked home", (at) => ({ deny: ["~/.ssh"], home: at.link })],
    ["an absolute pattern through a symlink", (at) => ({ deny: [`${at.link}/.ssh`] })],
    ["a glob whose literal prefix goes through a symlink", (at) => ({ deny: [`${at.link}/.ss[h]/*`] })],
    ["a relative pattern in a symlinked workspace", (at) => ({ deny: [".ssh/*"], workspace: at.link })],
  ];
  for (const [what, options] of cases) {
    test(`${what}: read, write and edit through the real path are refused`, async () => {
      const at = linked();
      const { workspace, ...sandbox } = options(at);
      const ws = workspace ?? join(at.root, "ws");
      const toolkit = createToolkit({ fs: createNodeProvider({ cwd: ws }), workspace: ws, sandbox: { mode: "full-access", ...sandbox } });
      const id = join(at.real, ".ssh", "id");
      const read = await toolkit.call("read", { path: id });
      expect(read.error?.code, read.content).toBe("FS_SANDBOX_DENIED");
      expect(read.content).not.toContain(SECRET);
      const write = await toolkit.call("write", { path: join(at.real, ".ssh", "authorized_keys"), content: "mine\n" });
      expect(write.error?.code, write.content).toBe("FS_SANDBOX_DENIED");
      const edit = await toolkit.call("edit", { path: id, old_string: SECRET, new_string: "x" });
      expect(edit.error?.code, edit.content).toBe("FS_SANDBOX_DENIED");
      expect(readFileSync(id, "utf8")).toBe(SECRET);
      // The spelling through the link is refused as before.
      expect((await toolkit.call("read", { path: join(at.link, ".ssh", "id") })).error?.code).toBe("FS_SANDBOX_DENIED");
    });
  }
});

test("ACP: a session whose cwd is a symlink cannot read a relatively denied file through its real path", async () => {
  const root = scratch();
  const real = join(root, "real");
  mkdirSync(join(real, "config"), { recursive: true });
  writeFileSync(join(real, "config", "secrets.json"), SECRET);
  symlinkSync(real, join(root, "link"));
  const model = createScriptedModel({
    turns: [
      { toolCalls: [{ name: "read", arguments: { path: join(real, "config", "secrets.json") } }] },
      { toolCalls: [{ name: "read", arguments: { path: "config/secrets.json" } }] },
      { text: "ok" },
    ],
  });
  const { peer, done } = inProcessAgent({
    model,
    composition: COMPOSITIONS.coding!,
    sandbox: { mode: "workspace-write", deny: ["config/secrets.json"] },
    log: () => {},
  });
  await peer.request("initialize", { protocolVersion: 1 });
  const created = await peer.request("session/new", { cwd: join(root, "link"), mcpServers: [] });
  const sessionId = (created.result as { sessionId: string }).sessionId;
  await peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  const results = peer.transcript.flatMap((m) => {
    const update = "agent" in m && m.agent.method === "session/update" ? ((m.agent.params as Message).update as Message) : undefined;
    return update?.sessionUpdate === "tool_call_update" && update.status !== "in_progress" ? [JSON.stringify(update)] : [];
  });
  expect(results).toHaveLength(2);
  for (const result of results) {
    expect(result).not.toContain(SECRET);
    expect(result).toContain("deny list");
  }
  await peer.close();
  await done;
});

test("a deny pattern holds for any case and either Unicode normalization of the name (.ENV, an NFD spelling)", async () => {
  const ws = scratch();
  const nfc = "caf\u00e9-keys";
  const nfd = nfc.normalize("NFD");
  writeFileSync(join(ws, ".ENV"), SECRET);
  writeFileSync(join(ws, nfd), SECRET);
  mkdirSync(join(ws, "Config"));
  writeFileSync(join(ws, "Config", "Secrets.JSON"), SECRET);
  const toolkit = createToolkit({
    fs: createNodeProvider({ cwd: ws }),
    workspace: ws,
    search: createNodeSearchBackend(),
    sandbox: { mode: "full-access", deny: [".env", nfc, "config/*.json"] },
  });
  for (const path of [".ENV", nfd, "Config/Secrets.JSON"]) {
    const read = await toolkit.call("read", { path });
    expect(read.error?.code, `${path}: ${read.content}`).toBe("FS_SANDBOX_DENIED");
    const write = await toolkit.call("write", { path, content: "x" });
    expect(write.error?.code, `${path}: ${write.content}`).toBe("FS_SANDBOX_DENIED");
  }
  const grep = await toolkit.call("grep", { pattern: SECRET });
  expect(grep.content.startsWith("No matches"), grep.content).toBe(true);
  const glob = await toolkit.call("glob", { pattern: "**/*" });
  for (const name of [".ENV", nfd, "Secrets.JSON"]) expect(glob.content).not.toContain(name);
});
