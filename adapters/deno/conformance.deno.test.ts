// The conformance suite under `deno test`, against the Deno adapter on a real temporary directory: with
// libc through FFI when --allow-ffi is granted, and once more with path-based publication for the groups
// that publication touches.
import { runConformance } from "../../conformance/mod.ts";
import { createDenoSubject } from "./subject.ts";
import { stressOption } from "../../test/stress.ts";

const harness = {
  test: (name: string, fn: () => Promise<void>) => Deno.test(name, fn),
  skip: (name: string, reason: string) => Deno.test({ name: `${name} (${reason})`, ignore: true, fn() {} }),
};

await runConformance(harness, () => createDenoSubject(), { prefix: "deno", ...stressOption(Deno.env.get("TOOLFS_STRESS")) });
await runConformance(harness, () => createDenoSubject({ ffi: false }), {
  prefix: "deno-without-ffi",
  ...stressOption(Deno.env.get("TOOLFS_STRESS")),
  groups: ["write", "version-guard", "symlinks", "race", "mutations", "mutations-race", "tool-patch"],
});
