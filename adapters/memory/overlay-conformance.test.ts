import { test } from "vitest";
import { createOverlaySubject, runConformance } from "../../conformance/mod.ts";
import { createMemorySubject } from "./subject.ts";

await runConformance({ test, skip: (name, reason) => test.skip(`${name} (${reason})`, () => {}) }, async () => createOverlaySubject(await createMemorySubject()), {
  prefix: "overlay-on-memory",
});
