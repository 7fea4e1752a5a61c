import { FsError, isFsError } from "../../core/mod.ts";
import { assert, assertEquals, assertRejectsCode, assertThrowsType } from "../assert.ts";
import type { ConformanceGroup } from "../suite.ts";
import { needsPermissionErrors, under, utf8 } from "../util.ts";

/** Coded errors for bad paths and failing operations. */
export const errorsGroup: ConformanceGroup = {
  name: "errors",
  cases: [
    {
      name: "FsError carries its code, its name, and the cause",
      async run() {
        const cause = new Error("root cause");
        const error = new FsError("FS_IO_ERROR", "Something failed", { cause, details: { path: "/x" } });
        assert(error instanceof Error, "an Error");
        assertEquals([error.name, error.code, error.details.path], ["FsError", "FS_IO_ERROR", "/x"]);
        assert(error.cause === cause, "the cause is chained");
        assert(isFsError(error) && isFsError(error, "FS_IO_ERROR") && !isFsError(error, "FS_NOT_FOUND"), "isFsError");
        assert(!isFsError(new Error("plain")) && !isFsError({ name: "FsError", code: "NOPE" }), "not an FsError");
      },
    },
    {
      name: "a path with a NUL byte fails FS_NOT_FOUND",
      async run({ provider }) {
        await assertRejectsCode(provider.resolve("a\0b.txt"), "FS_NOT_FOUND");
        await assertRejectsCode(provider.lstat("a\0b.txt"), "FS_NOT_FOUND");
      },
    },
    {
      name: "an empty or blank path fails FS_NOT_FOUND",
      async run({ provider }) {
        for (const path of ["", "   ", "\t\n"]) {
          await assertRejectsCode(provider.resolve(path), "FS_NOT_FOUND", JSON.stringify(path));
          await assertRejectsCode(provider.lstat(path), "FS_NOT_FOUND", JSON.stringify(path));
        }
      },
    },
    {
      name: "a path through a regular file fails FS_NOT_FOUND on resolve and is absent to lstat",
      async run({ provider, probe }) {
        await probe.writeFile("file.txt", "x");
        await assertRejectsCode(provider.resolve("file.txt/child"), "FS_NOT_FOUND");
        await assertRejectsCode(provider.resolve("file.txt/a/b"), "FS_NOT_FOUND");
        assertEquals(await provider.lstat("file.txt/child"), undefined);
      },
    },
    {
      name: "a path through a regular file names that file as the segment that is not a directory",
      async run({ provider, probe }) {
        await probe.writeFile("sub/x.txt", "x");
        for (const path of ["sub/x.txt/y", "sub/x.txt/y/z.txt"]) {
          const error = await assertRejectsCode(provider.resolve(path), "FS_NOT_FOUND");
          assertEquals(error.details.notDirectory, under(probe.root, "sub/x.txt"), path);
          assert(error.message.includes(`"${under(probe.root, "sub/x.txt")}" is a file`), error.message);
        }
      },
    },
    {
      name: "a path that is not a string is a TypeError",
      async run({ provider }) {
        await assertThrowsType(() => provider.resolve(42 as unknown as string), TypeError);
      },
    },
    {
      name: "errors name the display path in their details",
      async run({ provider, probe }) {
        await probe.mkdir("d");
        const missing = await provider.resolve("sub/../missing.txt");
        const error = await assertRejectsCode(provider.readBytes(missing, { maxBytes: 10 }), "FS_NOT_FOUND");
        assertEquals(error.details.path, under(probe.root, "missing.txt"));
        const dir = await assertRejectsCode(provider.write(await provider.resolve("d"), utf8("x")), "FS_NOT_REGULAR_FILE");
        assertEquals(dir.details.path, under(probe.root, "d"));
      },
    },
    {
      name: "writing onto a directory fails FS_NOT_REGULAR_FILE and keeps it",
      async run({ provider, probe }) {
        await probe.writeFile("d/inner.txt", "keep");
        await assertRejectsCode(provider.write(await provider.resolve("d"), utf8("x")), "FS_NOT_REGULAR_FILE");
        assertEquals(await probe.list("d"), ["inner.txt"]);
      },
    },
    {
      name: "an unreadable directory fails FS_PERMISSION_DENIED",
      skip: needsPermissionErrors,
      async run({ provider, probe }) {
        await probe.writeFile("locked/f.txt", "x");
        await probe.chmod("locked", 0o000);
        try {
          await assertRejectsCode(provider.listDir(await provider.resolve("locked")), "FS_PERMISSION_DENIED");
        } finally {
          await probe.chmod("locked", 0o755);
        }
      },
    },
    {
      name: "an unreadable file fails FS_PERMISSION_DENIED",
      skip: needsPermissionErrors,
      async run({ provider, probe }) {
        await probe.writeFile("secret.txt", "x");
        await probe.chmod("secret.txt", 0o000);
        try {
          await assertRejectsCode(provider.readBytes(await provider.resolve("secret.txt"), { maxBytes: 10 }), "FS_PERMISSION_DENIED");
        } finally {
          await probe.chmod("secret.txt", 0o644);
        }
      },
    },
  ],
};
