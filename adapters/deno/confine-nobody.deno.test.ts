// The confine cases (adapters/deno/confine.deno.test.ts) once more as nobody, in a child `deno test` with the
// permissions scripts/test.ts grants, when these tests run as root; ignored, with the reason, where that
// cannot be done.
import { nobodyUnavailable, runAsNobody } from "../../test/as-nobody.ts";
import { createDenoProcessRunner } from "./mod.ts";

const runner = createDenoProcessRunner();
const root = new URL("../..", import.meta.url).pathname;
const unavailable = await nobodyUnavailable(runner, Deno.uid());

Deno.test({
  name: `deno confined bash as nobody: every confine case passes${unavailable ? ` (ignored: ${unavailable})` : ""}`,
  ignore: unavailable !== undefined,
  async fn() {
    const { rgPath } = await import("@vscode/ripgrep").catch(() => ({ rgPath: undefined }));
    const deno = Deno.execPath();
    const programs = [rgPath, "setsid", "kill", "ps", "bash", "sh", "python3", deno].filter((name) => name !== undefined).join(",");
    const flags = [
      "--allow-read",
      "--allow-write",
      "--allow-sys=uid,gid",
      "--allow-env=npm_config_arch",
      `--allow-run=${programs}`,
      "--allow-ffi",
      "--allow-net=127.0.0.1",
    ];
    const { exitCode, output } = await runAsNobody(runner, root, [deno, "test", ...flags, "adapters/deno/confine.deno.test.ts"], { NO_COLOR: "1" });
    const summary = /^(ok|FAILED) \| (.*)$/m.exec(output)?.[0] ?? "";
    if (exitCode !== 0 || !summary.startsWith("ok") || !/[1-9]\d* passed/.test(summary)) throw new Error(`the run as nobody exited ${exitCode}: ${output}`);
    console.log(`deno confined bash as nobody: ${summary}`);
  },
});
