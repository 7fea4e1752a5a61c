// The confine cases (adapters/node/confine.test.ts) once more as nobody, in a child vitest, when these tests
// run as root; skipped, with the reason, where that cannot be done.
import { join } from "node:path";
import { test } from "vitest";
import { nobodyUnavailable, runAsNobody } from "../../test/as-nobody.ts";
import { createNodeProcessRunner } from "./mod.ts";

const runner = createNodeProcessRunner();
const root = join(import.meta.dirname, "..", "..");
const unavailable = await nobodyUnavailable(runner, process.getuid?.() ?? null);

test.skipIf(unavailable !== undefined)(
  `node confined bash as nobody: every confine case passes${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  async () => {
    // --configLoader runner: the default loader writes the bundled config into node_modules, which nobody may not.
    const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
    const { exitCode, output } = await runAsNobody(
      runner,
      root,
      [process.execPath, vitest, "run", "adapters/node/confine.test.ts", "--configLoader", "runner", "--reporter=dot"],
      { NO_COLOR: "1" },
    );
    const summary = /Tests\s+(.*)/.exec(output)?.[1] ?? "";
    if (exitCode !== 0 || !/\d+ passed/.test(summary) || /failed/.test(summary)) throw new Error(`the run as nobody exited ${exitCode}: ${output}`);
    console.log(`node confined bash as nobody: ${summary.trim()}`);
  },
  1_800_000,
);
