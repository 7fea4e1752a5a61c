import { test } from "vitest";
import { runConformance } from "../../conformance/mod.ts";
import { createNodeSubject } from "./subject.ts";
import { stressOption } from "../../test/stress.ts";

await runConformance({ test, skip: (name, reason) => test.skip(`${name} (${reason})`, () => {}) }, () => createNodeSubject(), {
  prefix: "node",
  ...stressOption(process.env.TOOLFS_STRESS),
});
