// The Deno process runner against real processes (through setsid, kill and ps): the shared cases, and the
// same runner with neither /proc nor ps to list processes.
import { registerProcessCases, registerTablelessCases } from "../../test/process-cases.ts";
import type { DenoApi } from "./deno-api.ts";
import { createDenoProcessRunner } from "./mod.ts";
import { denoProcessRunnerOver } from "./process.ts";

registerProcessCases((name, fn) => Deno.test(name, fn), createDenoProcessRunner(), "deno");

const withoutProc = new Proxy(Deno as DenoApi, {
  get(target, key) {
    if (key === "readDir") {
      return (path: string) => {
        if (path === "/proc" || path.startsWith("/proc/")) throw new Deno.errors.NotCapable(`read access to ${path} is not granted`);
        return target.readDir(path);
      };
    }
    return Reflect.get(target, key);
  },
});
registerTablelessCases((name, fn) => Deno.test(name, fn), denoProcessRunnerOver(withoutProc, { ps: false }), "deno");
