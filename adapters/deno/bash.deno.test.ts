import { registerBashCases } from "../../test/bash-cases.ts";
import { createDenoProcessRunner, createDenoProvider } from "./mod.ts";

registerBashCases((name, fn) => Deno.test(name, fn), { runner: createDenoProcessRunner(), provider: (cwd) => createDenoProvider({ cwd }) }, "deno");
