// The ripgrep backend on Deno against the real binary, run through Deno.Command: the shared cases.
import { registerRipgrepCases } from "../../test/ripgrep-cases.ts";
import { createDenoProcessRunner, createDenoSearchBackend } from "./mod.ts";
import { createDenoSubject } from "./subject.ts";

registerRipgrepCases((name, fn) => Deno.test(name, fn), "deno", {
  createSubject: createDenoSubject,
  missingRipgrep: () => createDenoSearchBackend({ ripgrep: "/nonexistent/toolfs/rg" }),
  runner: createDenoProcessRunner(),
});
