// Confinement by the operating system: the argv that runs a command inside bubblewrap (Linux namespaces) so
// that the kernel, not the toolkit, refuses what the sandbox does not allow. Runtime-neutral: it only builds
// argv and runs them through whatever ProcessRunner the adapter provides. docs/notes/0007-confined-shell.md
// explains the choices; the view itself (which paths are writable, protected or hidden) comes from
// core/policy, the same rules the file tools' fence applies.
import { BoundedCollector } from "./collectors.ts";
import { isProcessError, ProcessError } from "./errors.ts";
import type { ProcessRunner, ProcessSpec } from "./types.ts";

/** What a confined command sees of the filesystem and the network. Every path is canonical and absolute. */
export interface ConfinementView {
  /** Everything is writable (full-access): the view exists only to hide the deny list. */
  readonly writeAnywhere: boolean;
  /** Directories bound read-write over the read-only system. */
  readonly writable: readonly string[];
  /** Paths inside writable directories bound read-only again (protected paths). */
  readonly readOnly: readonly string[];
  /**
   * When set, the command sees only these directories (read-only unless also writable), the system
   * directories ({@link SYSTEM_DIRECTORIES}) and a private /tmp; otherwise the whole filesystem.
   */
  readonly readable?: readonly string[];
  /** Hidden paths: a file reads as nothing and refuses writes; a directory is empty and unreadable. */
  readonly masks: readonly { readonly path: string; readonly directory: boolean }[];
  /** Whether the command shares the host's network; otherwise it has a loopback of its own and nothing else. */
  readonly network: boolean;
}

/** The directories a restricted-read view keeps, read-only, so that programs can run: binaries, libraries, /etc. */
export const SYSTEM_DIRECTORIES: readonly string[] = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"];

/** The command a confined run starts, as bubblewrap receives it. */
export interface ConfinedCommand {
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
}

/**
 * The bubblewrap arguments that run `command` inside `view`. Mounts are applied in order, so each kind of
 * path is emitted after what it overrides: the base view, then roots from the outermost in, then protected
 * paths, then the masks (the deny list wins over everything).
 */
export function bubblewrapArgs(view: ConfinementView, command: ConfinedCommand): string[] {
  const args: string[] = [];
  const writable = new Set(view.writable);
  if (view.readable) {
    for (const dir of SYSTEM_DIRECTORIES) args.push("--ro-bind-try", dir, dir);
    args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
    const roots = [...new Set([...view.readable, ...view.writable])].sort(byDepth);
    for (const root of roots) args.push(writable.has(root) ? "--bind" : "--ro-bind", root, root);
  } else {
    args.push(view.writeAnywhere ? "--bind" : "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
    if (!view.writeAnywhere) for (const root of [...writable].sort(byDepth)) args.push("--bind", root, root);
  }
  for (const path of [...view.readOnly].sort(byDepth)) args.push("--ro-bind", path, path);
  for (const mask of [...view.masks].sort((a, b) => byDepth(a.path, b.path))) {
    if (mask.directory) args.push("--perms", "0000", "--tmpfs", mask.path, "--remount-ro", mask.path);
    else args.push("--ro-bind", "/dev/null", mask.path);
  }
  // A pid namespace makes the command's tree one unit: when its first process ends, or bubblewrap is killed,
  // the kernel kills everything left inside, daemons that started sessions of their own included.
  args.push("--unshare-pid", "--unshare-ipc");
  if (!view.network) args.push("--unshare-net");
  // Dropping every capability matters when the host runs as root: with CAP_SYS_ADMIN inside its namespace
  // the command could remount / read-write or unmount a mask.
  args.push("--die-with-parent", "--cap-drop", "ALL");
  if (command.cwd !== undefined) args.push("--chdir", command.cwd);
  args.push("--", command.command, ...(command.args ?? []));
  return args;
}

function byDepth(a: string, b: string): number {
  const depth = (path: string) => (path === "/" ? 0 : path.split("/").length - 1);
  return depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Whether commands can be confined here, as a host reads it: detected once, by running bubblewrap for real,
 * because an installed bwrap can still be unable to create namespaces (a container without the privilege, a
 * kernel that forbids unprivileged user namespaces).
 */
export interface ShellConfinement {
  readonly kind: "bubblewrap";
  readonly available: boolean;
  /** The program the runner starts (a name looked up on PATH, or a path). */
  readonly program: string;
  /** Why confinement is unavailable, in one sentence for the host to show once; absent when available. */
  readonly reason?: string;
}

export interface DetectBubblewrapOptions {
  /** Default `"bwrap"`. */
  readonly program?: string;
  readonly signal?: AbortSignal;
}

// The probe uses every feature a view may need, so a bubblewrap too old for one of them fails here, once,
// instead of on a command.
const PROBE_VIEW: ConfinementView = {
  writeAnywhere: false,
  writable: [],
  readOnly: [],
  masks: [{ path: "/tmp", directory: true }],
  network: false,
};

/** Runs bubblewrap once through `runner` and reports whether it can confine commands. */
export async function detectBubblewrap(runner: ProcessRunner, options?: DetectBubblewrapOptions): Promise<ShellConfinement> {
  const program = options?.program ?? "bwrap";
  const unavailable = (reason: string): ShellConfinement => ({ kind: "bubblewrap", available: false, program, reason });
  const stderr = new BoundedCollector({ maxBytes: 2000 });
  try {
    const result = await runner.run({
      command: program,
      args: bubblewrapArgs(PROBE_VIEW, { command: "true" }),
      stderr,
      timeoutMs: 30_000,
      graceMs: 1000,
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    if (result.exitCode === 0) return { kind: "bubblewrap", available: true, program };
    const said = stderr.text().trim().split("\n").at(-1) ?? "";
    const how = result.stopReason ? `was stopped (${result.stopReason})` : result.exitCode === null ? `was killed by ${result.signal}` : `exited ${result.exitCode}`;
    return unavailable(`bubblewrap (${program}) cannot confine commands here: its test run ${how}${said ? `: ${said}` : ""}`);
  } catch (error) {
    if (isProcessError(error, "PROCESS_NOT_FOUND")) {
      return unavailable(`bubblewrap (${program}) is not installed; it is Linux-only (Debian and Ubuntu: apt-get install bubblewrap)`);
    }
    return unavailable(`bubblewrap (${program}) cannot be started: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * A runner that starts every command inside bubblewrap, in the view `viewFor` gives for it. Stopping works
 * as for any command: the base runner signals bubblewrap's process group, and the pid namespace takes the
 * rest of the tree down with it.
 */
export function confinedRunner(base: ProcessRunner, program: string, viewFor: (spec: ProcessSpec) => Promise<ConfinementView>): ProcessRunner {
  return {
    async run(spec) {
      if (spec.command === "") throw new ProcessError("PROCESS_INVALID_ARGUMENT", "The command is empty. Name a program to run.");
      const view = await viewFor(spec);
      const args = bubblewrapArgs(view, { command: spec.command, ...(spec.args ? { args: spec.args } : {}), ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}) });
      return base.run({ ...spec, command: program, args });
    },
  };
}
