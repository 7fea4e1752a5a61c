import { test } from "vitest";
import { runConformance } from "../../conformance/mod.ts";
import { createMemorySubject } from "./subject.ts";
import { stressOption } from "../../test/stress.ts";

await runConformance({ test, skip: (name, reason) => test.skip(`${name} (${reason})`, () => {}) }, () => createMemorySubject(), {
  prefix: "memory",
  ...stressOption(process.env.TOOLFS_STRESS),
});
