import { createToolkit, MESSAGE_MAX } from "../../core/mod.ts";
import { assert, assertEquals, assertThrowsType } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { abortedSignal } from "../util.ts";
import { excludes, fails, includes, ok, toolkit } from "./tools-support.ts";

/** The toolkit itself: definitions, argument checking, guidance, and failures as results. */
export const toolsToolkitGroup: ConformanceGroup = {
  name: "toolkit",
  cases: [
    {
      name: "definitions carry a description and a strict JSON Schema per tool",
      async run(subject) {
        const kit = toolkit(subject);
        assertEquals(
          kit.definitions.map((d) => d.name),
          ["read", "write", "edit"],
        );
        for (const definition of kit.definitions) {
          assert(definition.description.length > 20, `${definition.name} has a description`);
          assertEquals(definition.inputSchema.type, "object");
          assertEquals(definition.inputSchema.additionalProperties, false);
          excludes(JSON.stringify(definition.inputSchema), "$schema", "9007199254740991");
        }
        assertEquals(kit.definitions[2]?.inputSchema.required, ["path", "old_string", "new_string"]);
      },
    },
    {
      name: "an unknown tool is a TOOL_UNKNOWN result, not an exception",
      async run(subject) {
        includes((await fails(toolkit(subject), "delete", { path: "a" }, "TOOL_UNKNOWN")).content, "read, write, edit");
      },
    },
    {
      name: "missing, mistyped and extra arguments are TOOL_INVALID_ARGUMENTS naming the field",
      async run(subject) {
        const kit = toolkit(subject);
        includes((await fails(kit, "read", {}, "TOOL_INVALID_ARGUMENTS")).content, "path");
        includes((await fails(kit, "read", { path: 7 }, "TOOL_INVALID_ARGUMENTS")).content, "path");
        includes((await fails(kit, "write", { path: "a", content: "x", mode: 644 }, "TOOL_INVALID_ARGUMENTS")).content, '"mode"');
        includes((await fails(kit, "edit", { path: "a", old_string: "x" }, "TOOL_INVALID_ARGUMENTS")).content, "new_string");
      },
    },
    {
      name: "arguments that are not an object are refused",
      async run(subject) {
        const kit = toolkit(subject);
        for (const args of [null, undefined, "a.txt", ["a.txt"], 3]) await fails(kit, "read", args, "TOOL_INVALID_ARGUMENTS");
      },
    },
    {
      name: "a blank or NUL-bearing path is a coded error, not a crash",
      async run(subject) {
        const kit = toolkit(subject);
        await fails(kit, "read", { path: "" }, "TOOL_INVALID_ARGUMENTS");
        await fails(kit, "read", { path: "   " }, "FS_NOT_FOUND");
        await fails(kit, "write", { path: "a\0b", content: "x" }, "FS_NOT_FOUND");
        assertEquals(await subject.probe.list("."), []);
      },
    },
    {
      name: "an aborted call fails FS_ABORTED and writes nothing",
      async run(subject) {
        const kit = toolkit(subject);
        await fails(kit, "write", { path: "a.txt", content: "x" }, "FS_ABORTED", { signal: abortedSignal() });
        assertEquals(await subject.probe.list("."), []);
      },
    },
    {
      name: "a relative cwd is refused",
      async run(subject) {
        await fails(toolkit(subject), "read", { path: "a.txt" }, "TOOL_INVALID_ARGUMENTS", { cwd: "relative" });
      },
    },
    {
      name: "only the chosen tools are registered and described",
      async run(subject) {
        const kit = toolkit(subject, { tools: ["read"] });
        assertEquals(
          kit.definitions.map((d) => d.name),
          ["read"],
        );
        excludes(kit.guidance, "edit replaces", "write creates");
        includes(kit.guidance, "read shows");
        await fails(kit, "write", { path: "a", content: "" }, "TOOL_UNKNOWN");
      },
    },
    {
      name: "the guidance covers each registered tool and the sandbox when it confines",
      async run(subject) {
        includes(toolkit(subject).guidance, "read shows", "write creates", "edit replaces");
        includes(toolkit(subject, { sandbox: { mode: "workspace-write" } }).guidance, "workspace-write");
        excludes(toolkit(subject).guidance, "sandbox");
      },
    },
    {
      name: "limits are validated and applied",
      async run(subject) {
        await assertThrowsType(() => createToolkit({ fs: subject.provider, limits: { readLines: 0 } }), RangeError);
        await subject.probe.writeFile("a.txt", "1\n2\n3\n4\n");
        const kit = toolkit(subject, { limits: { readLines: 2 } });
        includes((await ok(kit, "read", { path: "a.txt" })).content, "Continue with offset=3");
        await fails(kit, "read", { path: "a.txt", limit: 3 }, "TOOL_INVALID_ARGUMENTS");
      },
    },
    {
      name: "errors name paths as successes do: relative inside the workspace, absolute outside, and the failing part",
      async run(subject) {
        await subject.probe.writeFile("sub/x.txt", "x\n");
        await subject.probe.mkdir("d");
        const kit = toolkit(subject);
        const through = await fails(kit, "read", { path: "sub/x.txt/y.txt" }, "FS_NOT_FOUND");
        includes(through.content, '"sub/x.txt/y.txt"', '"sub/x.txt" is a file');
        const written = await fails(kit, "write", { path: "sub/x.txt/new/y.txt", content: "y" }, "FS_NOT_FOUND");
        includes(written.content, '"sub/x.txt" is a file');
        const directory = await fails(kit, "write", { path: "d", content: "x" }, "FS_NOT_REGULAR_FILE");
        includes(directory.content, '"d"');
        for (const result of [through, written, directory]) excludes(result.content, subject.probe.root);
        const outside = await fails(kit, "read", { path: `${subject.probe.outside}/missing.txt` }, "FS_NOT_FOUND");
        includes(outside.content, `"${subject.probe.outside}/missing.txt"`);
      },
    },
    {
      name: "a leading ~ is the home directory the host gave; without one it is refused, never reported missing",
      async run(subject) {
        await subject.probe.writeFile("home/.profile", "export A=1\n");
        await subject.probe.writeFile("~/literal.txt", "a directory named ~\n");
        await subject.probe.writeFile("~$draft.txt", "a name starting with ~\n");
        const home = `${subject.probe.root}/home`;
        const kit = toolkit(subject, { home });
        includes((await ok(kit, "read", { path: "~/.profile" })).content, "1: export A=1");
        assertEquals((await ok(kit, "read", { path: "~/.profile" })).meta.path, "home/.profile");
        await ok(kit, "write", { path: "~/new.txt", content: "n\n" });
        assertEquals(new TextDecoder().decode(await subject.probe.readFile("home/new.txt")), "n\n");
        includes((await ok(kit, "read", { path: "./~/literal.txt" })).content, "a directory named ~");
        includes((await ok(kit, "read", { path: "~$draft.txt" })).content, "a name starting with ~");
        includes((await fails(kit, "read", { path: "~other/.profile" }, "TOOL_INVALID_ARGUMENTS")).content, "absolute path");
        const unknown = await fails(toolkit(subject), "read", { path: "~/.profile" }, "TOOL_INVALID_ARGUMENTS");
        includes(unknown.content, "home directory is not known");
        excludes(unknown.content, "no such file");
        await fails(toolkit(subject), "write", { path: "~/x.txt", content: "x" }, "TOOL_INVALID_ARGUMENTS");
        assertEquals(await subject.probe.list("~"), ["literal.txt"]);
      },
    },
    {
      name: "an error's advice names only tools that are registered",
      async run(subject) {
        await subject.probe.mkdir("dir");
        const kit = toolkit(subject, { tools: ["read", "edit"], ...(subject.search ? { search: subject.search } : {}) });
        const directory = await fails(kit, "read", { path: "dir" }, "FS_NOT_REGULAR_FILE");
        includes(directory.content, "read a file inside it");
        excludes(directory.content, "glob", "bash");
        await fails(kit, "read", { path: "gone.txt" }, "FS_NOT_FOUND");
        excludes((await fails(kit, "edit", { path: "gone.txt", old_string: "a", new_string: "b" }, "FS_NOT_FOUND")).content, "write");
        if (subject.search) {
          const withGlob = toolkit(subject, { tools: ["read", "glob"], search: subject.search });
          const found = await fails(withGlob, "read", { path: "dir" }, "FS_NOT_REGULAR_FILE");
          includes(found.content, "find files in it with glob");
          excludes(found.content, "bash");
        }
      },
    },
    {
      name: "a failure result carries the error's name and code",
      async run(subject) {
        const result = await toolkit(subject).call("read", { path: "missing.txt" });
        assertEquals([result.isError, result.error], [true, { name: "FsError", code: "FS_NOT_FOUND" }]);
      },
    },
    {
      name: "a 10 MB path, pattern, argument name or tool name gives a bounded message that still says what to do",
      async run(subject) {
        const huge = "q".repeat(10_000_000);
        const kit = toolkit(subject, {
          tools: subject.search ? ["read", "edit", "glob", "grep"] : ["read", "edit"],
          ...(subject.search ? { search: subject.search } : {}),
        });
        const calls: [string, Record<string, unknown>][] = [
          ["read", { path: huge }],
          ["read", { path: `${huge}/end.txt` }],
          ["edit", { path: huge, old_string: "a", new_string: "b" }],
          ["read", { path: "a.txt", [huge]: 1 }],
          [huge, {}],
        ];
        if (subject.search) calls.push(["grep", { pattern: huge }], ["glob", { pattern: huge }], ["grep", { pattern: "x", include: huge }]);
        for (const [tool, args] of calls) {
          const result = await kit.call(tool, args);
          const what = `${tool.slice(0, 10)} ${Object.keys(args)
            .map((k) => k.slice(0, 10))
            .join(",")}`;
          assert(result.isError, `${what}: an error`);
          assert(result.content.length <= MESSAGE_MAX + 200, `${what}: ${result.content.length} characters`);
          assert(result.content.length > 40, `${what}: says something`);
        }
        const tail = (await kit.call("read", { path: `${huge}/end.txt` })).content;
        assert(/characters left out|more characters/.test(tail), "says how much was left out");
      },
    },
  ],
};
