// Test support: a toolfs writer in a process of its own, for the conformance race group. Run as
// `node --import tsx adapters/node/worker.ts <workspace> <job as JSON>`; see conformance/worker.ts.
import process from "node:process";
import { createInterface } from "node:readline";
import { parseWorkerJob, runWorkerJob } from "../../conformance/mod.ts";
import { createNodeProvider } from "./mod.ts";

const [cwd, job] = process.argv.slice(2);
const input = createInterface({ input: process.stdin });
const go = new Promise<void>((resolve) => input.once("line", () => resolve()));
await runWorkerJob(createNodeProvider({ cwd: cwd! }), parseWorkerJob(job!), { send: (line) => process.stdout.write(`${line}\n`), go });
input.close();
