import { isFsError } from "../../core/mod.ts";
import { AssertionError } from "../assert.ts";
import type { Subject } from "../harness.ts";
import type { ConformanceGroup } from "../suite.ts";

// What each capability declared false would look like if the backend had it after all. A capability declared
// false skips the cases that need it, so a wrong `false` would pass the suite while those cases never ran.
const present: Record<"symlinks" | "fileModes" | "permissionErrors", (subject: Subject) => Promise<string | undefined>> = {
  async symlinks({ probe }) {
    await probe.writeFile("cap/target.txt", "x");
    try {
      await probe.symlink("target.txt", "cap/link");
    } catch {
      return undefined;
    }
    return (await probe.info("cap/link"))?.type === "symlink" ? "its probe created a symbolic link" : undefined;
  },
  // Written through the provider, so the bits are looked for where the subject itself stores files (an overlay's
  // probe would otherwise find its base's).
  async fileModes({ provider, probe }) {
    await provider.write(await provider.resolve("cap/mode.txt"), new TextEncoder().encode("x"));
    const kept: number[] = [];
    for (const mode of [0o640, 0o604]) {
      try {
        await probe.chmod("cap/mode.txt", mode);
      } catch {
        return undefined;
      }
      kept.push((await probe.info("cap/mode.txt"))?.mode ?? -1);
    }
    return kept[0] === 0o640 && kept[1] === 0o604 ? "a file it wrote took permission bits 640 and 604 and kept them" : undefined;
  },
  async permissionErrors({ provider, probe }) {
    await probe.writeFile("cap/locked.txt", "x");
    try {
      await probe.chmod("cap/locked.txt", 0o000);
    } catch {
      return undefined;
    }
    try {
      await provider.readBytes(await provider.resolve("cap/locked.txt"), { maxBytes: 10 });
      return undefined;
    } catch (error) {
      return isFsError(error, "FS_PERMISSION_DENIED") ? "reading a file with mode 000 failed FS_PERMISSION_DENIED" : undefined;
    } finally {
      await probe.chmod("cap/locked.txt", 0o600).catch(() => undefined);
    }
  },
};

/** The declared capabilities against what the subject shows: a capability declared false must be absent. */
export const capabilitiesGroup: ConformanceGroup = {
  name: "capabilities",
  cases: [
    {
      name: "every capability declared false is absent",
      skip: (traits) =>
        Object.keys(present).every((name) => traits[name as keyof typeof present])
          ? "every capability is declared true, and the cases that need one check it"
          : undefined,
      async run(subject) {
        const wrong: string[] = [];
        for (const [name, check] of Object.entries(present)) {
          if (subject.provider.capabilities[name as keyof typeof present]) continue;
          const evidence = await check(subject);
          if (evidence !== undefined) wrong.push(`${name} is declared false, but ${evidence}`);
        }
        if (wrong.length > 0) {
          throw new AssertionError(`${wrong.join("; ")}: declare it true, or the cases that need it are skipped for nothing`);
        }
      },
    },
  ],
};
