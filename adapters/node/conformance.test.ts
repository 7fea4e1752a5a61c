import { test } from "vitest";
import { runConformance } from "../../conformance/mod.ts";
import { createNodeSubject } from "./subject.ts";

await runConformance({ test, skip: (name, reason) => test.skip(`${name} (${reason})`, () => {}) }, () => createNodeSubject(), {
  prefix: "node",
});
