// The conformance suite under `deno test`, against the memory adapter.
import { runConformance } from "../../conformance/mod.ts";
import { createMemorySubject } from "./subject.ts";
import { stressOption } from "../../test/stress.ts";

await runConformance(
  {
    test: (name, fn) => Deno.test(name, fn),
    skip: (name, reason) => Deno.test({ name: `${name} (${reason})`, ignore: true, fn() {} }),
  },
  () => createMemorySubject(),
  { prefix: "memory-on-deno", ...stressOption(Deno.env.get("TOOLFS_STRESS")) },
);
