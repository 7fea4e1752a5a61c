// The issue 9 figures on Deno, with and without FFI, and in memory (see bench/races.ts). Run:
// deno run -A bench/races.deno.ts
import { createDenoSubject } from "../adapters/deno/subject.ts";
import { createMemorySubject } from "../adapters/memory/subject.ts";
import { measureRaces } from "./races.ts";

for (const [name, create] of [
  ["deno (FFI)", () => createDenoSubject()],
  ["deno (no FFI)", () => createDenoSubject({ ffi: false })],
  ["memory on deno", () => createMemorySubject()],
] as const) {
  console.log(JSON.stringify(await measureRaces(name, create)));
}
