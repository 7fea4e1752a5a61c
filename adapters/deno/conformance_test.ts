// The conformance suite under `deno test`, against the Deno adapter on a real temporary directory.
import { runConformance } from "../../conformance/mod.ts";
import { createDenoSubject } from "./subject.ts";

await runConformance(
  {
    test: (name, fn) => Deno.test(name, fn),
    skip: (name, reason) => Deno.test({ name: `${name} (${reason})`, ignore: true, fn() {} }),
  },
  createDenoSubject,
  { prefix: "deno" },
);
