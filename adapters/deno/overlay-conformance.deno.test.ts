// The whole suite and the overlay's own group under `deno test`, against an overlay over the deno adapter.
import { allGroups, createOverlaySubject, overlayGroups, registerGroups } from "../../conformance/mod.ts";
import { createDenoSubject } from "./subject.ts";
import { stressOption } from "../../test/stress.ts";

await registerGroups(
  [...allGroups, ...overlayGroups],
  {
    test: (name, fn) => Deno.test(name, fn),
    skip: (name, reason) => Deno.test({ name: `${name} (${reason})`, ignore: true, fn() {} }),
  },
  async () => createOverlaySubject(await createDenoSubject()),
  { prefix: "overlay-on-deno", ...stressOption(Deno.env.get("TOOLFS_STRESS")) },
);
