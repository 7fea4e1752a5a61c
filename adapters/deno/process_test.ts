// The Deno process runner against real processes (through setsid, kill and ps): the shared cases.
import { registerProcessCases } from "../../test/process-cases.ts";
import { createDenoProcessRunner } from "./mod.ts";

registerProcessCases((name, fn) => Deno.test(name, fn), createDenoProcessRunner(), "deno");
