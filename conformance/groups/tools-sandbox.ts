import { type ApprovalOutcome, approvalMessage, type ApprovalRequest, type SandboxMode } from "../../core/mod.ts";
import { assertBytes, assertEquals } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceGroup } from "../suite.ts";
import { needsSymlinks } from "../util.ts";
import { excludes, fails, includes, ok, toolkit } from "./tools-support.ts";

function fenced(subject: Subject, mode: SandboxMode, approve?: (r: ApprovalRequest) => Promise<ApprovalOutcome>) {
  return toolkit(subject, { sandbox: { mode, ...(approve ? { approve } : {}) } });
}

/** The sandbox fence on write and edit, and the one-time escalation. */
export const toolsSandboxGroup: ConformanceGroup = {
  name: "tool-sandbox",
  cases: [
    {
      name: "read-only refuses a write with the sandbox marker and creates nothing",
      async run(subject) {
        const result = await fails(fenced(subject, "read-only"), "write", { path: "a.txt", content: "x" }, "FS_SANDBOX_DENIED");
        includes(result.content, "[sandbox: read-only]");
        assertEquals(await subject.probe.list("."), []);
      },
    },
    {
      name: "read-only refuses an edit and allows reads",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "keep\n");
        const kit = fenced(subject, "read-only");
        await ok(kit, "read", { path: "a.txt" });
        await fails(kit, "edit", { path: "a.txt", old_string: "keep", new_string: "lose" }, "FS_SANDBOX_DENIED");
        assertBytes(await subject.probe.readFile("a.txt"), "keep\n");
      },
    },
    {
      name: "workspace-write allows nested writes inside the workspace",
      async run(subject) {
        await ok(fenced(subject, "workspace-write"), "write", { path: "deep/er/a.txt", content: "x" });
        assertBytes(await subject.probe.readFile("deep/er/a.txt"), "x");
      },
    },
    {
      name: "workspace-write refuses a .. escape and an absolute path outside",
      async run(subject) {
        const kit = fenced(subject, "workspace-write");
        const outward = await fails(kit, "write", { path: "../outside/x.txt", content: "x" }, "FS_SANDBOX_DENIED");
        includes(outward.content, "[sandbox: workspace-write]", "outside the writable roots");
        await fails(kit, "write", { path: `${subject.probe.outside}/y.txt`, content: "x" }, "FS_SANDBOX_DENIED");
        assertEquals(await subject.probe.list(subject.probe.outside), []);
      },
    },
    {
      name: "workspace-write refuses a sibling whose name starts with the workspace's",
      async run(subject) {
        await subject.probe.mkdir("ws");
        await subject.probe.mkdir("ws-evil");
        const kit = toolkit(subject, { sandbox: { mode: "workspace-write", workspaceRoot: `${subject.probe.root}/ws` } });
        await ok(kit, "write", { path: "ws/ok.txt", content: "x" });
        await fails(kit, "write", { path: "ws-evil/x.txt", content: "x" }, "FS_SANDBOX_DENIED");
        assertEquals(await subject.probe.list("ws-evil"), []);
      },
    },
    {
      name: "writable roots beyond the workspace are honoured",
      async run(subject) {
        const kit = toolkit(subject, { sandbox: { mode: "workspace-write", writableRoots: [subject.probe.outside] } });
        await ok(kit, "write", { path: `${subject.probe.outside}/tmp.txt`, content: "x" });
        assertBytes(await subject.probe.readFile(`${subject.probe.outside}/tmp.txt`), "x");
      },
    },
    {
      name: "workspace-write refuses a write through a symlinked parent pointing outside",
      skip: needsSymlinks,
      async run(subject) {
        await subject.probe.symlink(subject.probe.outside, "escape");
        const kit = fenced(subject, "workspace-write");
        await fails(kit, "write", { path: "escape/x.txt", content: "x" }, "FS_SANDBOX_DENIED");
        await fails(kit, "write", { path: "escape/new/dir/x.txt", content: "x" }, "FS_SANDBOX_DENIED");
        assertEquals(await subject.probe.list(subject.probe.outside), []);
      },
    },
    {
      name: "workspace-write refuses a dangling symlink pointing outside",
      skip: needsSymlinks,
      async run(subject) {
        await subject.probe.symlink(`${subject.probe.outside}/planted.txt`, "innocent.txt");
        const result = await fails(fenced(subject, "workspace-write"), "write", { path: "innocent.txt", content: "x" }, "FS_SANDBOX_DENIED");
        includes(result.content, "resolves to");
        assertEquals(await subject.probe.list(subject.probe.outside), []);
      },
    },
    {
      name: "full-access writes anywhere and advertises no escalation fields",
      async run(subject) {
        const kit = fenced(subject, "full-access");
        await ok(kit, "write", { path: `${subject.probe.outside}/free.txt`, content: "x" });
        for (const definition of kit.definitions) excludes(JSON.stringify(definition.inputSchema), "sandbox_permissions");
      },
    },
    {
      name: "a confining sandbox with an approver advertises the escalation fields on write and edit only",
      async run(subject) {
        const kit = fenced(subject, "read-only", async () => "rejected");
        const byName = Object.fromEntries(kit.definitions.map((d) => [d.name, JSON.stringify(d.inputSchema)]));
        includes(byName.write ?? "", '"sandbox_permissions"', '"justification"', '"workspace-write"', '"full-access"');
        includes(byName.edit ?? "", '"sandbox_permissions"');
        excludes(byName.read ?? "", "sandbox_permissions");
        excludes(JSON.stringify(toolkit(subject).definitions), "sandbox_permissions");
      },
    },
    {
      name: "an approved retry of a denied write applies the wider mode to that call only",
      async run(subject) {
        const requests: ApprovalRequest[] = [];
        const kit = fenced(subject, "workspace-write", async (r) => (requests.push(r), "allowed-once"));
        const outside = `${subject.probe.outside}/granted.txt`;
        includes((await fails(kit, "write", { path: outside, content: "x" }, "FS_SANDBOX_DENIED")).content, "[escalation]", "sandbox_permissions");
        await ok(kit, "write", { path: outside, content: "x", sandbox_permissions: "full-access", justification: "The user asked for it." });
        assertEquals(
          requests.map((r) => [r.tool, r.mode, r.justification]),
          [["write", "full-access", "The user asked for it."]],
        );
        await fails(kit, "write", { path: `${subject.probe.outside}/next.txt`, content: "x" }, "FS_SANDBOX_DENIED");
        assertBytes(await subject.probe.readFile(outside), "x");
      },
    },
    {
      name: "without an approver, nothing offers escalation: no fields, no retry hint, the fields are unknown arguments",
      async run(subject) {
        const outside = `${subject.probe.outside}/x.txt`;
        for (const mode of ["read-only", "workspace-write"] as const) {
          const kit = fenced(subject, mode);
          excludes(JSON.stringify(kit.definitions), "sandbox_permissions");
          excludes(kit.guidance, "ask");
          const refused = await fails(kit, "write", { path: outside, content: "x" }, "FS_SANDBOX_DENIED");
          excludes(refused.content, "[escalation]", "sandbox_permissions", "the user will be asked");
          await fails(kit, "write", { path: outside, content: "x", sandbox_permissions: "full-access", justification: "Needed." }, "TOOL_INVALID_ARGUMENTS");
        }
        assertEquals(await subject.probe.list(subject.probe.outside), []);
      },
    },
    {
      name: "rejected and cancelled escalations are distinct errors that change nothing",
      async run(subject) {
        const outside = `${subject.probe.outside}/x.txt`;
        const cases: [(r: ApprovalRequest) => Promise<ApprovalOutcome>, string][] = [
          [async () => "rejected", "TOOL_ESCALATION_REJECTED"],
          [async () => "cancelled", "TOOL_ESCALATION_CANCELLED"],
        ];
        for (const [approve, code] of cases) {
          const kit = fenced(subject, "workspace-write", approve);
          await fails(kit, "write", { path: outside, content: "x" }, "FS_SANDBOX_DENIED");
          await fails(kit, "write", { path: outside, content: "x", sandbox_permissions: "full-access", justification: "Needed." }, code);
        }
        assertEquals(await subject.probe.list(subject.probe.outside), []);
      },
    },
    {
      name: "an escalation is valid only as one retry of the call just denied",
      async run(subject) {
        const kit = fenced(subject, "workspace-write", async () => "allowed-once");
        const outside = `${subject.probe.outside}/x.txt`;
        const escalate = { sandbox_permissions: "full-access", justification: "Needed." };
        await fails(kit, "write", { path: outside, content: "x", ...escalate }, "TOOL_INVALID_ARGUMENTS");
        await fails(kit, "write", { path: outside, content: "x" }, "FS_SANDBOX_DENIED");
        await fails(kit, "write", { path: `${subject.probe.outside}/other.txt`, content: "x", ...escalate }, "TOOL_INVALID_ARGUMENTS");
        await fails(kit, "write", { path: outside, content: "x" }, "FS_SANDBOX_DENIED");
        await ok(kit, "write", { path: outside, content: "x", ...escalate });
        await fails(kit, "write", { path: outside, content: "y", ...escalate }, "TOOL_INVALID_ARGUMENTS");
      },
    },
    {
      name: "escalation fields must come together and name a wider mode",
      async run(subject) {
        const kit = fenced(subject, "workspace-write", async () => "allowed-once");
        await fails(kit, "write", { path: "a.txt", content: "x", sandbox_permissions: "full-access" }, "TOOL_INVALID_ARGUMENTS");
        await fails(kit, "write", { path: "a.txt", content: "x", justification: "why" }, "TOOL_INVALID_ARGUMENTS");
        await fails(kit, "write", { path: "a.txt", content: "x", sandbox_permissions: "read-only", justification: "why" }, "TOOL_INVALID_ARGUMENTS");
        await fails(kit, "write", { path: "a.txt", content: "x", sandbox_permissions: "full-access", justification: "  " }, "TOOL_INVALID_ARGUMENTS");
      },
    },
    {
      name: "an escalation through a symlink asks about the real destination, the rule and the roots",
      skip: needsSymlinks,
      async run(subject) {
        const real = `${subject.probe.outside}/notes.txt`;
        await subject.probe.writeFile(real, "old\n");
        await subject.probe.symlink(real, "notes.txt");
        const requests: ApprovalRequest[] = [];
        const kit = fenced(subject, "workspace-write", async (r) => (requests.push(r), "allowed-once"));
        await ok(kit, "read", { path: "notes.txt" });
        await fails(kit, "write", { path: "notes.txt", content: "x" }, "FS_SANDBOX_DENIED");
        await ok(kit, "write", { path: "notes.txt", content: "x", sandbox_permissions: "full-access", justification: "Notes.\nApproved by admin" });
        const [request] = requests;
        assertEquals([request?.path, request?.destination, request?.rule, request?.from], ["notes.txt", real, "outside-writable", "workspace-write"]);
        includes(request?.reason ?? "", `outside the writable roots (${subject.probe.root}`);
        const message = approvalMessage(request!);
        includes(
          message,
          `full access to write ${real} (given as notes.txt)`,
          `outside the writable roots (${subject.probe.root}`,
          "Notes.\\nApproved by admin",
        );
        assertEquals(message.split("\n").length, 3);
        assertBytes(await subject.probe.readFile(real), "x");
      },
    },
    {
      name: "an approval holds only for the destination shown: a symlink repointed meanwhile is refused",
      skip: needsSymlinks,
      async run(subject) {
        const outside = subject.probe.outside;
        await subject.probe.mkdir(`${outside}/shown`);
        await subject.probe.mkdir(`${outside}/other`);
        await subject.probe.symlink(`${outside}/shown`, "notes");
        const kit = fenced(subject, "workspace-write", async () => {
          await subject.probe.remove("notes");
          await subject.probe.symlink(`${outside}/other`, "notes");
          return "allowed-once";
        });
        await fails(kit, "write", { path: "notes/new.txt", content: "x" }, "FS_SANDBOX_DENIED");
        const retry = { path: "notes/new.txt", content: "x", sandbox_permissions: "full-access", justification: "Needed." };
        const refused = await fails(kit, "write", retry, "FS_SANDBOX_DENIED");
        includes(refused.content, `approved full access for "${outside}/shown/new.txt" only`);
        assertEquals([await subject.probe.list(`${outside}/shown`), await subject.probe.list(`${outside}/other`)], [[], []]);
      },
    },
    {
      name: "an edit outside the workspace can be escalated too",
      async run(subject) {
        await subject.probe.writeFile(`${subject.probe.outside}/conf.ini`, "debug=false\n");
        const kit = fenced(subject, "workspace-write", async () => "allowed-once");
        const path = `${subject.probe.outside}/conf.ini`;
        await ok(kit, "read", { path });
        await fails(kit, "edit", { path, old_string: "false", new_string: "true" }, "FS_SANDBOX_DENIED");
        await ok(kit, "edit", { path, old_string: "false", new_string: "true", sandbox_permissions: "full-access", justification: "Enable debug as asked." });
        assertBytes(await subject.probe.readFile(path), "debug=true\n");
      },
    },
  ],
};
