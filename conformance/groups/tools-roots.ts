import { createFsSpillStore, type ToolkitOptions } from "../../core/mod.ts";
import { assertEquals } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceGroup } from "../suite.ts";
import { needsSearch } from "../util.ts";
import { excludes, fails, includes, ok, toolkit } from "./tools-support.ts";

// Four roots: the first ("app"), one named "lib", a second "lib" (so "lib-2") outside the probe's root, and a
// second "app" (so "app-2", never the first root's own name). Each has src/a.ts, with different bytes; the first
// also has a folder named "lib", which must not be confused with the root of that name.
async function seed(subject: Subject): Promise<{ roots: string[]; options: Omit<ToolkitOptions, "fs"> }> {
  const { probe } = subject;
  const roots = [`${probe.root}/app`, `${probe.root}/x/lib`, `${probe.outside}/lib`, `${probe.root}/y/app`];
  const names = ["app", "lib", "lib-2", "app-2"];
  for (const [i, root] of roots.entries()) await probe.writeFile(`${root}/src/a.ts`, `export const root = "${names[i]}";\n`);
  await probe.writeFile(`${roots[0]}/lib/inner.txt`, "inside the first root's lib folder\n");
  return { roots, options: { workspace: roots, ...(subject.search ? { search: subject.search } : {}) } };
}

/** Several workspace roots: every path shown relative to the root it is in, and given back the same way. */
export const toolsRootsGroup: ConformanceGroup = {
  name: "tool-roots",
  cases: [
    {
      name: "a path in a later root is read as its name and the path inside it; ./ keeps a path in the first root",
      async run(subject) {
        const { options } = await seed(subject);
        const kit = toolkit(subject, options);
        for (const [path, root] of [
          ["src/a.ts", "app"],
          ["lib/src/a.ts", "lib"],
          ["lib-2/src/a.ts", "lib-2"],
          ["app-2/src/a.ts", "app-2"],
        ] as const) {
          const read = await ok(kit, "read", { path });
          includes(read.content, `1: export const root = "${root}";`);
          assertEquals(read.meta.path, path);
        }
        const inner = await ok(kit, "read", { path: "./lib/inner.txt" });
        assertEquals(inner.meta.path, "./lib/inner.txt");
        // An absolute path is shown the same way as the relative spelling.
        assertEquals((await ok(kit, "read", { path: `${subject.probe.outside}/lib/src/a.ts` })).meta.path, "lib-2/src/a.ts");
        await fails(kit, "read", { path: "lib/inner.txt" }, "FS_NOT_FOUND");
      },
    },
    {
      name: "writes and edits land in the root the path names, each root is writable, and messages name paths the same way",
      async run(subject) {
        const { roots, options } = await seed(subject);
        const kit = toolkit(subject, { ...options, sandbox: { mode: "workspace-write" } });
        const created = await ok(kit, "write", { path: "lib-2/new.txt", content: "new\n" });
        includes(created.content, "lib-2/new.txt");
        assertEquals(created.meta.path, "lib-2/new.txt");
        assertEquals(new TextDecoder().decode(await subject.probe.readFile(`${roots[2]}/new.txt`)), "new\n");
        const unread = await fails(kit, "edit", { path: "lib/src/a.ts", old_string: "lib", new_string: "LIB" }, "FS_NOT_OBSERVED");
        includes(unread.content, 'Cannot edit "lib/src/a.ts"');
        await ok(kit, "read", { path: "lib/src/a.ts" });
        const edit = await ok(kit, "edit", { path: "lib/src/a.ts", old_string: '"lib"', new_string: '"LIB"' });
        assertEquals(edit.meta.path, "lib/src/a.ts");
        // The same relative path in the first root is another file, untouched.
        assertEquals(new TextDecoder().decode(await subject.probe.readFile(`${roots[0]}/src/a.ts`)), 'export const root = "app";\n');
        assertEquals(new TextDecoder().decode(await subject.probe.readFile(`${roots[1]}/src/a.ts`)), 'export const root = "LIB";\n');
        const missing = await fails(kit, "read", { path: "app-2/nope.txt" }, "FS_NOT_FOUND");
        includes(missing.content, 'Cannot read "app-2/nope.txt"');
        const outside = await fails(kit, "write", { path: `${subject.probe.outside}/elsewhere.txt`, content: "x" }, "FS_SANDBOX_DENIED");
        includes(outside.content, `"${subject.probe.outside}/elsewhere.txt"`);
      },
    },
    {
      name: "glob and grep show what they find relative to the root it is in, and each shown path reads back the same file",
      skip: needsSearch,
      async run(subject) {
        const { options } = await seed(subject);
        const kit = toolkit(subject, options);
        const first = await ok(kit, "glob", { pattern: "*" });
        assertEquals(first.content.split("\n").sort(), ["./lib/inner.txt", "src/a.ts"]);
        for (const [path, shown] of [
          ["lib", "lib/src/a.ts"],
          ["lib-2/src", "lib-2/src/a.ts"],
          ["./lib", "./lib/inner.txt"],
          [`${subject.probe.root}/y/app`, "app-2/src/a.ts"],
        ] as const) {
          const glob = await ok(kit, "glob", { pattern: "*", path });
          assertEquals(glob.content, shown);
          assertEquals(glob.meta.root, path.startsWith("/") ? "app-2" : path);
        }
        const grep = await ok(kit, "grep", { pattern: "root =", path: "lib-2" });
        includes(grep.content, "\n\nlib-2/src/a.ts\n  1: export const root");
        const file = await ok(kit, "grep", { pattern: "root", path: "app-2/src/a.ts" });
        assertEquals(
          (file.meta.files as { path: string }[]).map((f) => f.path),
          ["app-2/src/a.ts"],
        );
        const all = await ok(kit, "grep", { pattern: "lib|root", path: "." });
        for (const { path } of all.meta.files as { path: string }[]) {
          includes((await ok(kit, "read", { path })).content, "1: ");
        }
        assertEquals(
          (all.meta.files as { path: string }[]).map((f) => f.path),
          ["./lib/inner.txt", "src/a.ts"],
        );
      },
    },
    {
      name: "an over-cap glob's page, footer and spilled list use the same names, and the spill reads back by its shown path",
      skip: needsSearch,
      async run(subject) {
        const { roots, options } = await seed(subject);
        for (let i = 0; i < 5; i++) await subject.probe.writeFile(`${roots[1]}/many/f${i}.txt`, `${i}\n`);
        const kit = toolkit(subject, {
          ...options,
          limits: { globMaxResults: 2 },
          spill: createFsSpillStore(subject.provider, `${roots[2]}/.spill`),
        });
        const result = await ok(kit, "glob", { pattern: "*.txt", path: "lib" });
        const spill = String(result.meta.spill);
        assertEquals(spill.startsWith("lib-2/.spill/"), true);
        includes(result.content, `is in ${spill};`);
        for (const line of result.content.split("\n\n")[0]!.split("\n")) assertEquals(line.startsWith("lib/many/f"), true);
        const spilled = await ok(kit, "read", { path: spill });
        for (let i = 0; i < 5; i++) includes(spilled.content, `: lib/many/f${i}.txt\n`);
      },
    },
    {
      name: "the roots are described only when there are several; one root's texts say nothing of them",
      async run(subject) {
        const { roots, options } = await seed(subject);
        const several = toolkit(subject, { ...options, sandbox: { mode: "workspace-write" } });
        includes(several.guidance, `Workspace roots: ${roots[0]}, where relative paths start; lib (${roots[1]}); lib-2 (${roots[2]}); app-2 (${roots[3]}).`);
        includes(several.guidance, "refuses writes outside the workspace, lib, lib-2 and app-2,");
        const read = several.definitions.find((d) => d.name === "read")!;
        includes(JSON.stringify(read.inputSchema), "a path in another root starts with its name (lib, lib-2, app-2)");
        const one = toolkit(subject, { workspace: roots[0]!, sandbox: { mode: "workspace-write" } });
        excludes(one.guidance, "Workspace roots", "lib-2");
        excludes(JSON.stringify(one.definitions), "another root");
        // With one root, a folder named like nothing in particular is shown plainly.
        assertEquals((await ok(one, "read", { path: "lib/inner.txt" })).meta.path, "lib/inner.txt");
      },
    },
  ],
};
