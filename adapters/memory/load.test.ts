import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { loadDirectory } from "./load.ts";

test("loadDirectory copies files, directories and symlinks with their modes and modification times", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolfs-load-")));
  try {
    mkdirSync(join(dir, "sub/deeper"), { recursive: true });
    writeFileSync(join(dir, "sub/deeper/a.sh"), "#!/bin/sh\n");
    chmodSync(join(dir, "sub/deeper/a.sh"), 0o755);
    utimesSync(join(dir, "sub/deeper/a.sh"), 1_600_000_000, 1_600_000_000);
    symlinkSync("sub/deeper/a.sh", join(dir, "link"));
    const volume = await loadDirectory(dir);
    const stat = volume.statSync(join(dir, "sub/deeper/a.sh"));
    expect([Number(stat.mtimeMs), Number(stat.mode) & 0o777]).toEqual([1_600_000_000_000, 0o755]);
    expect(String(volume.readFileSync(join(dir, "sub/deeper/a.sh")))).toBe("#!/bin/sh\n");
    expect(String(volume.readlinkSync(join(dir, "link")))).toBe("sub/deeper/a.sh");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
