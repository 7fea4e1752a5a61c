// The suite's own promises: declared capabilities are checked against the subject, every case of the chosen
// groups is either registered or reported as skipped with its reason, and a group name that matches no group
// is an error instead of an empty run.
import { describe, expect, test } from "vitest";
import { createMemoryDriver, createMemoryProvider } from "../adapters/memory/mod.ts";
import { createMemorySubject } from "../adapters/memory/subject.ts";
import { createFileSystem, type FsCapabilities, type FsDriver } from "../core/mod.ts";
import {
  allGroups,
  capabilitiesGroup,
  type CreateSubject,
  type Harness,
  isConformanceError,
  registerGroups,
  runConformance,
  type Subject,
} from "../conformance/mod.ts";

/** A harness that keeps what was registered and skipped, to run or inspect. */
function collecting(withSkip = true): Harness & { tests: Map<string, () => Promise<void>>; skips: [string, string][] } {
  const tests = new Map<string, () => Promise<void>>();
  const skips: [string, string][] = [];
  return {
    tests,
    skips,
    test: (name, fn) => void tests.set(name, fn),
    ...(withSkip ? { skip: (name: string, reason: string) => void skips.push([name, reason]) } : {}),
  };
}

// The memory backend, declaring some of its capabilities false.
function declaring(capabilities: Partial<FsCapabilities>): () => Promise<Subject> {
  return () =>
    createMemorySubject((volume, cwd) => {
      const driver = createMemoryDriver(volume);
      const declared = new Proxy(driver, {
        get(target, key) {
          if (key === "capabilities") return { ...target.capabilities, ...capabilities };
          const value = Reflect.get(target, key) as unknown;
          return typeof value === "function" ? value.bind(target) : value;
        },
      }) as FsDriver;
      return createFileSystem(declared, { cwd });
    });
}

async function capabilityCheck(capabilities: Partial<FsCapabilities>): Promise<unknown> {
  const harness = collecting();
  await registerGroups([capabilitiesGroup], harness, declaring(capabilities));
  const [run] = [...harness.tests.values()];
  expect(run).toBeDefined();
  return run!().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("capability declarations", () => {
  test.for([
    [{ symlinks: false }, "symlinks is declared false, but its probe created a symbolic link"],
    [{ fileModes: false }, "fileModes is declared false, but a file it wrote took permission bits 640 and 604 and kept them"],
    [{ permissionErrors: false }, "permissionErrors is declared false, but reading a file with mode 000 failed FS_PERMISSION_DENIED"],
  ] as const)("a capability declared false that the subject has is reported: %j", async ([capabilities, message]) => {
    const error = await capabilityCheck(capabilities);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(message);
  });

  test("all of them at once, in one report", async () => {
    const error = (await capabilityCheck({ symlinks: false, fileModes: false, permissionErrors: false })) as Error;
    expect(error.message.match(/is declared false/g)).toHaveLength(3);
  });

  test("a subject that declares everything true has nothing to check here, and the skip says so", async () => {
    const harness = collecting();
    const report = await registerGroups([capabilitiesGroup], harness, () => createMemorySubject());
    expect(report.registered).toEqual([]);
    expect(report.skipped).toEqual([
      { name: "capabilities: every capability declared false is absent", reason: "every capability is declared true, and the cases that need one check it" },
    ]);
  });
});

describe("the report", () => {
  test("accounts for every case of the chosen groups: registered, or skipped with its reason", async () => {
    const harness = collecting();
    const report = await runConformance(harness, declaring({ symlinks: false, fileModes: false }), { prefix: "m" });
    const total = allGroups.reduce((n, group) => n + group.cases.length, 0);
    expect(report.registered.length + report.skipped.length).toBe(total);
    expect(new Set([...report.registered, ...report.skipped.map((s) => s.name)]).size).toBe(total);
    expect([...harness.tests.keys()]).toEqual(report.registered);
    expect(harness.skips).toEqual(report.skipped.map((s) => [s.name, s.reason]));
    expect(report.skipped.filter((s) => s.reason === "the backend has no symbolic links").length).toBeGreaterThan(5);
    expect(report.skipped.filter((s) => s.reason === "the backend stores no permission bits").length).toBeGreaterThan(1);
  });

  test("lists the skips even for a harness that cannot register them", async () => {
    const harness = collecting(false);
    const report = await runConformance(harness, declaring({ symlinks: false }), { groups: ["symlinks"] });
    expect(harness.tests.size).toBe(0);
    expect(report.skipped.length).toBe(allGroups.find((g) => g.name === "symlinks")!.cases.length);
  });
});

describe("group names", () => {
  test("a name that is no group's is a RangeError naming the groups, before any subject is built", async () => {
    let built = 0;
    const create = async () => {
      built++;
      return createMemorySubject();
    };
    const error = await runConformance(collecting(), create, { groups: ["resolve", "tool-wirte"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toContain('No conformance group is named "tool-wirte"; the groups are capabilities, resolve,');
    expect(built).toBe(0);
  });

  test("a right name registers that group only", async () => {
    const harness = collecting();
    const report = await runConformance(harness, () => createMemorySubject(), { groups: ["tool-write"] });
    expect(report.registered.length).toBe(allGroups.find((g) => g.name === "tool-write")!.cases.length);
    expect(report.registered.every((name) => name.startsWith("tool-write: "))).toBe(true);
  });
});

describe("the stress factor", () => {
  const seen: number[] = [];
  const group = {
    name: "stress-probe",
    cases: [
      {
        name: "a loop of 200",
        async run(_subject: Subject, { rounds }: { rounds(count: number): number }) {
          seen.push(rounds(200), rounds(5), rounds(1));
        },
      },
    ],
  };

  test("scales each stress loop's count, rounded up and never below 1, and says so in the case names", async () => {
    for (const [stress, expected, suffix] of [
      [undefined, [200, 5, 1], ""],
      [0.25, [50, 2, 1], " [stress x0.25]"],
      [4, [800, 20, 4], " [stress x4]"],
    ] as const) {
      seen.length = 0;
      const harness = collecting();
      await registerGroups([group], harness, () => createMemorySubject(), stress === undefined ? {} : { stress });
      expect([...harness.tests.keys()]).toEqual([`stress-probe: a loop of 200${suffix}`]);
      await harness.tests.values().next().value!();
      expect(seen).toEqual(expected);
    }
  });

  test("a factor that is not a positive number is a RangeError naming it, before any subject is built", async () => {
    for (const stress of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      let built = 0;
      const create: CreateSubject = () => {
        built++;
        return createMemorySubject();
      };
      await expect(registerGroups([group], collecting(), create, { stress })).rejects.toThrow(
        new RangeError(`The stress factor must be a positive number, such as 0.25, 1 or 4; got ${stress}`),
      );
      expect(built).toBe(0);
    }
  });
});

describe("binding mistakes", () => {
  const rejection = (harness: unknown, create: unknown) =>
    runConformance(harness as Harness, create as CreateSubject, { groups: ["resolve"] }).then(
      () => undefined,
      (error: unknown) => error,
    );

  test("a promise of a subject (createMemorySubject(wrap) itself) is CONFORMANCE_NOT_A_FACTORY, and says what to pass", async () => {
    const error = await rejection(
      collecting(),
      createMemorySubject((volume, cwd) => createMemoryProvider({ volume, cwd })),
    );
    expect(isConformanceError(error, "CONFORMANCE_NOT_A_FACTORY")).toBe(true);
    expect((error as Error).message).toBe(
      "The conformance suite's createSubject must be a function; it was handed a Promise (a subject already being built, such as createMemorySubject(wrap)): every case builds its own subject, so pass a function that builds one, such as () => createMemorySubject(wrap).",
    );
  });

  test.for([undefined, null, {}, "memory"])("%j is CONFORMANCE_NOT_A_FACTORY too", async (value) => {
    const error = await rejection(collecting(), value);
    expect(isConformanceError(error, "CONFORMANCE_NOT_A_FACTORY")).toBe(true);
    expect((error as Error).message).toContain("pass a function that builds a fresh subject, such as () => createMemorySubject()");
  });

  test("a runner's test function instead of a harness is CONFORMANCE_BAD_HARNESS", async () => {
    const error = await rejection(test, () => createMemorySubject());
    expect(isConformanceError(error, "CONFORMANCE_BAD_HARNESS")).toBe(true);
    expect((error as Error).message).toContain("it was handed a function (pass { test }, not test)");
  });

  test("a factory that resolves to a factory is CONFORMANCE_NOT_A_SUBJECT", async () => {
    const error = await rejection(collecting(), async () => createMemorySubject);
    expect(isConformanceError(error, "CONFORMANCE_NOT_A_SUBJECT")).toBe(true);
    expect((error as Error).message).toContain("it resolved to a function (return the subject it builds, not the function)");
    const partial = await rejection(collecting(), async () => ({ provider: {} }));
    expect((partial as Error).message).toContain("it resolved to an object without probe, dispose");
  });
});
