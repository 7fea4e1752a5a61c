import { test } from "vitest";
import { registerBashCases } from "../../test/bash-cases.ts";
import { createNodeProcessRunner, createNodeProvider } from "./mod.ts";

registerBashCases(test, { runner: createNodeProcessRunner(), provider: (cwd) => createNodeProvider({ cwd }) }, "node");
