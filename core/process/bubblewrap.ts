// Confinement by the operating system: the argv that runs a command inside bubblewrap (Linux namespaces) so
// that the kernel, not the toolkit, refuses what the sandbox does not allow. Runtime-neutral: it only builds
// argv and runs them through whatever ProcessRunner the adapter provides. docs/notes/0010-confined-shell.md
// explains the choices; the view itself (which paths are writable, protected or hidden) comes from
// core/policy, the same rules the file tools' fence applies.
import { BoundedCollector } from "./collectors.ts";
import { isProcessError, ProcessError } from "./errors.ts";
import { seccompFilter } from "./seccomp.ts";
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
  /**
   * Writable directories bound onto themselves so that rename(2) of them fails (EBUSY, a mount point): the
   * directories above a mask whose denial depends on its path, which a rename would otherwise move out
   * from under the deny list on the host. Absent when there are none.
   */
  readonly pinned?: readonly string[];
  /** Hidden paths: a file reads as nothing and refuses writes; a directory is empty and unreadable. */
  readonly masks: readonly { readonly path: string; readonly directory: boolean }[];
  /** Whether the command shares the host's network; otherwise it has a loopback of its own and nothing else. */
  readonly network: boolean;
  /** Said on the command's stderr before it runs (as `toolfs: …`): what the view could not cover. */
  readonly notes?: readonly string[];
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
 * paths, then the masks (the deny list wins over everything). Pinned directories come right after the roots
 * (bubblewrap binds recursively, so a pin keeps what the roots put below it).
 */
export function bubblewrapArgs(view: ConfinementView, command: ConfinedCommand): string[] {
  const args: string[] = [];
  const writable = new Set(view.writable);
  // The kernel judges writes to /proc/sys (core_pattern, hostname, drop_caches...), /proc/sysrq-trigger and
  // /sys by the writer's uid, not by a capability: uid 0 with every capability dropped may still write them, and
  // a pipe in core_pattern runs a program as root on the host. A user namespace would not help, since uid 0
  // inside maps to the host's uid 0. So no kernel interface is writable: the fresh /proc is remounted
  // read-only, /sys is never bound read-write (bubblewrap's --ro-bind is recursive), /dev is bubblewrap's own.
  const kernel = ["--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc"];
  if (view.readable) {
    for (const dir of SYSTEM_DIRECTORIES) args.push("--ro-bind-try", dir, dir);
    args.push(...kernel, "--tmpfs", "/tmp");
    const roots = [...new Set([...view.readable, ...view.writable])].sort(byDepth);
    for (const root of roots) args.push(writable.has(root) ? "--bind" : "--ro-bind", root, root);
  } else {
    args.push(view.writeAnywhere ? "--bind" : "--ro-bind", "/", "/", ...kernel);
    if (view.writeAnywhere) args.push("--ro-bind-try", "/sys", "/sys");
    else for (const root of [...writable].sort(byDepth)) args.push("--bind", root, root);
  }
  for (const dir of [...(view.pinned ?? [])].sort(byDepth)) args.push("--bind", dir, dir);
  // "-try": a path found by the walk that another process removed since is nothing left to protect, not a
  // reason to fail the command.
  for (const path of [...view.readOnly].sort(byDepth)) args.push("--ro-bind-try", path, path);
  for (const mask of [...view.masks].sort((a, b) => byDepth(a.path, b.path))) {
    if (mask.directory) args.push("--perms", "0000", "--tmpfs", mask.path, "--remount-ro", mask.path);
    else args.push("--ro-bind", "/dev/null", mask.path);
  }
  // The root of a restricted view is bubblewrap's own tmpfs, holding only mount points once they are made.
  if (view.readable) args.push("--remount-ro", "/");
  // A pid namespace makes the command's tree one unit: when its first process ends, or bubblewrap is killed,
  // the kernel kills everything left inside, daemons that started sessions of their own included.
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts");
  if (!view.network) args.push("--unshare-net");
  // Dropping every capability matters when the host runs as root: with CAP_SYS_ADMIN inside its namespace
  // the command could remount / read-write or unmount a mask.
  args.push("--die-with-parent", "--cap-drop", "ALL");
  if (command.cwd !== undefined) args.push("--chdir", command.cwd);
  args.push("--", command.command, ...(command.args ?? []));
  return args;
}

/** What a confined search may see: see `SearchConfinement` (core/search/backend.ts). */
export interface SearchView {
  /** The only paths bound (read-only); undefined binds the whole filesystem read-only. */
  readonly roots: readonly string[] | undefined;
  readonly masks: readonly { readonly path: string; readonly directory: boolean }[];
  /** Files bound read-only at their own paths besides the roots: the program itself. */
  readonly programs: readonly string[];
}

/**
 * The bubblewrap arguments that run a trusted program (ripgrep) with `view` as its whole filesystem. Unlike
 * the shell's view, a restricted one keeps no system directory, /dev, /proc or /tmp: the program is static
 * and needs none, and each would be somewhere a folder swapped for a symlink mid-search could lead; the
 * program itself is the one thing there besides the roots. Only
 * the outermost roots are bound; a nested one adds nothing and could itself have been swapped.
 */
export function searchBubblewrapArgs(view: SearchView, command: ConfinedCommand): string[] {
  const args: string[] = [];
  let roots: string[] | undefined;
  if (view.roots) {
    roots = [];
    for (const root of [...new Set(view.roots)].sort(byDepth)) if (!roots.some((outer) => within(outer, root))) roots.push(root);
    for (const root of roots) args.push("--ro-bind", root, root);
  } else {
    args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  }
  for (const program of view.programs) if (!roots?.some((root) => within(root, program))) args.push("--ro-bind", program, program);
  // ripgrep's --sort=modified asks for its own executable's mtime through /proc/self/exe. A link is all it
  // needs; a mounted /proc would be one more place (the program's own environment) a swap could lead to.
  if (roots && view.programs[0] !== undefined) args.push("--symlink", view.programs[0], "/proc/self/exe");
  for (const mask of [...view.masks].sort((a, b) => byDepth(a.path, b.path))) {
    // A mask outside every root hides nothing that is there, and its mount point would have to be made.
    if (roots && !roots.some((root) => within(root, mask.path))) continue;
    if (mask.directory) args.push("--perms", "0000", "--tmpfs", mask.path, "--remount-ro", mask.path);
    else args.push("--ro-bind", "/dev/null", mask.path);
  }
  // The pid namespace makes the search one unit that the runner's kill takes down whole.
  args.push("--unshare-pid", "--die-with-parent", "--cap-drop", "ALL");
  if (command.cwd !== undefined) args.push("--chdir", command.cwd);
  args.push("--", command.command, ...(command.args ?? []));
  return args;
}

function within(root: string, path: string): boolean {
  return root === "/" || path === root || path.startsWith(`${root}/`);
}

function byDepth(a: string, b: string): number {
  const depth = (path: string) => (path === "/" ? 0 : path.split("/").length - 1);
  return depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0);
}

// bubblewrap takes a seccomp filter only from a file descriptor, and the runner passes none but stdout and
// stderr, so a shell starts it: it opens the filter (handed over as printf escapes) on fd 3 from a pipe, and
// closes every other descriptor it inherited (the host's own may leak in without close-on-exec), so the
// confined command holds nothing but its stdio.
const LAUNCHER =
  'f=$1; shift; exec 3< <(printf "$f"); ' +
  'for p in /proc/$$/fd/*; do n=${p##*/}; case $n in 0|1|2|3) ;; *) eval "exec $n>&-" 2>/dev/null;; esac; done; ' +
  'exec "$@"';

/** The argv that starts `program` (bubblewrap) with `args` through that launcher, under the seccomp filter (seccomp.ts). */
export function bubblewrapLaunch(program: string, args: readonly string[], network: boolean): { command: string; args: string[] } {
  const filter = Array.from(seccompFilter(network), (byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("");
  return { command: "bash", args: ["-c", LAUNCHER, "toolfs-confine", filter, program, "--seccomp", "3", ...args] };
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
    const launch = bubblewrapLaunch(program, bubblewrapArgs(PROBE_VIEW, { command: "true" }), PROBE_VIEW.network);
    const result = await runner.run({
      ...launch,
      stderr,
      timeoutMs: 30_000,
      graceMs: 1000,
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    if (result.exitCode === 0) return { kind: "bubblewrap", available: true, program };
    if (result.exitCode === 127 && /exec: .*not found/.test(stderr.text())) {
      return unavailable(`bubblewrap (${program}) is not installed; it is Linux-only (Debian and Ubuntu: apt-get install bubblewrap)`);
    }
    const said = stderr.text().trim().split("\n").at(-1) ?? "";
    const how = result.stopReason
      ? `was stopped (${result.stopReason})`
      : result.exitCode === null
        ? `was killed by ${result.signal}`
        : `exited ${result.exitCode}`;
    return unavailable(`bubblewrap (${program}) cannot confine commands here: its test run ${how}${said ? `: ${said}` : ""}`);
  } catch (error) {
    if (isProcessError(error, "PROCESS_NOT_FOUND") && error.details.command === "bash") {
      return unavailable(`bash, which starts bubblewrap with its seccomp filter, is not installed`);
    }
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
/** bubblewrap refuses a command line of more arguments than this ("Exceeded maximum number of arguments"). */
export const BUBBLEWRAP_MAX_ARGS = 9000;

export function confinedRunner(base: ProcessRunner, program: string, viewFor: (spec: ProcessSpec) => Promise<ConfinementView>): ProcessRunner {
  return {
    async run(spec) {
      if (spec.command === "") throw new ProcessError("PROCESS_INVALID_ARGUMENT", "The command is empty. Name a program to run.");
      const view = await viewFor(spec);
      for (const note of view.notes ?? []) await spec.stderr?.write(new TextEncoder().encode(`toolfs: ${note}\n`), "stderr");
      const args = bubblewrapArgs(view, {
        command: spec.command,
        ...(spec.args ? { args: spec.args } : {}),
        ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
      });
      const launch = bubblewrapLaunch(program, args, view.network);
      const count = args.length + (view.network ? 0 : 2); // and --seccomp 3
      if (count > BUBBLEWRAP_MAX_ARGS) {
        const mounts = view.masks.length + (view.pinned?.length ?? 0);
        throw new ProcessError(
          "PROCESS_INVALID_ARGUMENT",
          `The command was not run: confining it takes ${count} bubblewrap arguments (${mounts} of its mounts hide or pin deny-list paths), ` +
            `more than the ${BUBBLEWRAP_MAX_ARGS} bubblewrap accepts. Ask the user to narrow the deny list or the workspace`,
          { details: { command: spec.command, arguments: count, limit: BUBBLEWRAP_MAX_ARGS } },
        );
      }
      return base.run({ ...spec, ...launch });
    },
  };
}
