// Runs a test command again as the unprivileged user `nobody`, in a child process: CI runs as root, and the
// confinement must hold for both (uid 0 without capabilities passes checks by uid that nobody fails, such as
// writing /proc/sys; nobody gets bubblewrap's unprivileged path, a user namespace). The child is started
// through bash, so a runtime that may start only named programs (Deno) needs no grant for setpriv.
import { BoundedCollector, HeadTailCollector, type ProcessRunner } from "../core/mod.ts";

export const NOBODY_UID = 65534;

/** Why the run as nobody cannot happen here, or undefined when it can. */
export async function nobodyUnavailable(runner: ProcessRunner, uid: number | null): Promise<string | undefined> {
  if (uid !== 0) return `the tests already run as uid ${uid}, not root: the main run is the unprivileged one`;
  const out = new BoundedCollector({ maxBytes: 4096 });
  const result = await runner.run({
    command: "bash",
    args: [
      "-c",
      'command -v setpriv >/dev/null || { echo "setpriv (util-linux) is not installed"; exit 1; }; [ "$(id -u nobody 2>/dev/null)" = 65534 ] || { echo "there is no user nobody with uid 65534"; exit 1; }',
    ],
    stdout: out,
  });
  return result.exitCode === 0 ? undefined : out.text().trim() || `the check for setpriv and nobody exited ${result.exitCode}`;
}

/**
 * Runs `argv` in `cwd` as nobody (uid and gid 65534, no supplementary groups) with HOME and TMPDIR in a fresh
 * directory nobody owns; resolves to its exit code and the head and tail of its combined output.
 */
export async function runAsNobody(
  runner: ProcessRunner,
  cwd: string,
  argv: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<{ exitCode: number | null; output: string }> {
  const output = new HeadTailCollector({ headBytes: 4000, tailBytes: 16000 });
  const script =
    'home=$(mktemp -d) && chown 65534:65534 "$home" && trap \'rm -rf -- "$home"\' EXIT; ' +
    'setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME="$home" TMPDIR="$home" "$@"';
  const result = await runner.run({
    command: "bash",
    args: ["-c", script, "as-nobody", ...argv],
    cwd,
    env: { ...env },
    stdout: output,
    stderr: output,
    timeoutMs: 1_800_000,
  });
  return { exitCode: result.exitCode, output: output.text((n) => `[... ${n} bytes ...]`) };
}
