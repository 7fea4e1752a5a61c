// Test support: a toolfs writer in a process of its own, for the conformance race group. Run as
// `deno run --allow-read --allow-write [--allow-ffi] adapters/deno/worker.ts <workspace> <job as JSON> <ffi>`;
// see conformance/worker.ts.
import { parseWorkerJob, runWorkerJob } from "../../conformance/mod.ts";
import { createDenoProvider } from "./provider.ts";

const [cwd, job, ffi] = Deno.args;
const go = (async () => {
  for await (const chunk of Deno.stdin.readable) if (new TextDecoder().decode(chunk).includes("\n")) return;
})();
const encoder = new TextEncoder();
await runWorkerJob(createDenoProvider({ cwd: cwd!, ffi: ffi === "true" }), parseWorkerJob(job!), {
  send: (line) => void Deno.stdout.writeSync(encoder.encode(`${line}\n`)),
  go,
});
Deno.exit(0);
