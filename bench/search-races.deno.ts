// The search race figures on Deno, with FFI (see bench/search-races.ts). Run:
// deno run -A bench/search-races.deno.ts [runs]
import { createDenoSubject } from "../adapters/deno/subject.ts";
import { measureSearchRaces } from "./search-races.ts";

for (const run of await measureSearchRaces(() => createDenoSubject(), Number(Deno.args[0] ?? 3))) console.log(JSON.stringify(run));
