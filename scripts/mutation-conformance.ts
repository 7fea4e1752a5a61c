// The conformance suite on the memory backend, limited to the groups named in TOOLFS_MUTATION_GROUPS (comma
// separated): the slice of it a mutation run needs. Only scripts/mutation.ts's vitest config includes this
// file (its name does not end in .test.ts, so `npm test` does not run it).
import { test } from "vitest";
import { createMemorySubject } from "../adapters/memory/subject.ts";
import { allGroups, overlayGroups, registerGroups } from "../conformance/mod.ts";

const groups = (process.env.TOOLFS_MUTATION_GROUPS ?? "").split(",").filter((name) => name !== "");
if (groups.length > 0) {
  await registerGroups(
    [...allGroups, ...overlayGroups],
    { test, skip: (name, reason) => test.skip(`${name} (${reason})`, () => {}) },
    () => createMemorySubject(),
    {
      prefix: "memory",
      groups,
    },
  );
} else {
  test.skip("no conformance group was asked for (TOOLFS_MUTATION_GROUPS)", () => {});
}
