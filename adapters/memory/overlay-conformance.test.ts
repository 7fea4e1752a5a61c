// The whole suite and the overlay's own group against an overlay over the memory adapter.
import { test } from "vitest";
import { allGroups, createOverlaySubject, overlayGroups, registerGroups } from "../../conformance/mod.ts";
import { createMemorySubject } from "./subject.ts";
import { stressOption } from "../../test/stress.ts";

await registerGroups(
  [...allGroups, ...overlayGroups],
  { test, skip: (name, reason) => test.skip(`${name} (${reason})`, () => {}) },
  async () => createOverlaySubject(await createMemorySubject()),
  { prefix: "overlay-on-memory", ...stressOption(process.env.TOOLFS_STRESS) },
);
