import { test } from "vitest";
import { createOverlaySubject, runConformance } from "../../conformance/mod.ts";
import { createNodeSubject } from "./subject.ts";

await runConformance({ test, skip: (name, reason) => test.skip(`${name} (${reason})`, () => {}) }, async () => createOverlaySubject(await createNodeSubject()), {
  prefix: "overlay-on-node",
});
