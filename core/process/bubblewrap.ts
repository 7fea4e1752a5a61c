// Confinement by the operating system: the argv that runs a command inside bubblewrap (Linux namespaces) so
// that the kernel, not the toolkit, refuses what the sandbox does not allow. Runtime-neutral: it only builds
// argv and runs them through whatever ProcessRunner the adapter provides. docs/notes/0010-confined-shell.md
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

// A seccomp filter, in classic BPF, that makes socket(AF_UNIX, ...) fail with EPERM. Mounts cannot stop a
// connection to a Unix socket that is visible in the filesystem (connect() is not a write, so a read-only bind
// does not refuse it), and some such sockets grant more than any file does: a container daemon's, the system
// bus. Without the network there is no reason to reach them; socketpair() stays allowed. The filter knows
// x86_64 (and its x32 and i386 ABIs) and aarch64; on other architectures it allows everything.
const SECCOMP = {
  archX8664: 0xc000003e,
  archAarch64: 0xc00000b7,
  archI386: 0x40000003,
  x32Bit: 0x40000000,
  allow: 0x7fff0000,
  eperm: 0x00050001,
} as const;

type Insn = { op: "ld"; offset: number; label?: string } | { op: "jeq" | "jge"; k: number; yes: string; no: string; label?: string } | { op: "ret"; k: number; label?: string };

const UNIX_SOCKET_FILTER: readonly Insn[] = [
  { op: "ld", offset: 4 }, // arch
  { op: "jeq", k: SECCOMP.archX8664, yes: "x86", no: "not-x86" },
  { op: "ld", offset: 0, label: "x86" }, // nr
  { op: "jge", k: SECCOMP.x32Bit, yes: "deny", no: "x86-socket" },
  { op: "jeq", k: 41, yes: "family", no: "allow", label: "x86-socket" },
  { op: "jeq", k: SECCOMP.archAarch64, yes: "arm", no: "not-arm", label: "not-x86" },
  { op: "ld", offset: 0, label: "arm" },
  { op: "jeq", k: 198, yes: "family", no: "allow" },
  { op: "jeq", k: SECCOMP.archI386, yes: "i386", no: "allow", label: "not-arm" },
  { op: "ld", offset: 0, label: "i386" },
  // socketcall() hides the family behind a pointer, so 32-bit programs lose it whole.
  { op: "jeq", k: 102, yes: "deny", no: "i386-socket" },
  { op: "jeq", k: 359, yes: "family", no: "allow", label: "i386-socket" },
  { op: "ld", offset: 16, label: "family" }, // the low half of args[0], little-endian
  { op: "jeq", k: 1, yes: "deny", no: "allow" },
  { op: "ret", k: SECCOMP.allow, label: "allow" },
  { op: "ret", k: SECCOMP.eperm, label: "deny" },
];

/** The filter as the kernel reads it: `struct sock_filter` records, little-endian. */
export function unixSocketFilter(): Uint8Array {
  const at = new Map(UNIX_SOCKET_FILTER.flatMap((insn, i) => (insn.label ? [[insn.label, i] as const] : [])));
  const out = new Uint8Array(UNIX_SOCKET_FILTER.length * 8);
  const view = new DataView(out.buffer);
  UNIX_SOCKET_FILTER.forEach((insn, i) => {
    const jump = (label: string) => {
      const offset = at.get(label)! - (i + 1);
      if (offset < 0 || offset > 255) throw new Error(`bad jump to ${label}`);
      return offset;
    };
    const [code, jt, jf, k] =
      insn.op === "ld" ? [0x20, 0, 0, insn.offset] : insn.op === "ret" ? [0x06, 0, 0, insn.k] : [insn.op === "jeq" ? 0x15 : 0x35, jump(insn.yes), jump(insn.no), insn.k];
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k, true);
  });
  return out;
}

// bubblewrap takes a seccomp filter only from a file descriptor, and the runner passes none but stdout and
// stderr, so a shell starts it: it opens the filter (handed over as printf escapes) on fd 3 from a pipe, and
// closes every other descriptor it inherited (the host's own may leak in without close-on-exec), so the
// confined command holds nothing but its stdio.
const LAUNCHER =
  'f=$1; shift; [ -n "$f" ] && exec 3< <(printf "$f"); ' +
  'for p in /proc/$$/fd/*; do n=${p##*/}; case $n in 0|1|2) ;; 3) [ -n "$f" ] || exec 3>&-;; *) eval "exec $n>&-" 2>/dev/null;; esac; done; ' +
  'exec "$@"';

/**
 * The argv that starts `program` (bubblewrap) with `args` through that launcher, with the Unix-socket filter
 * unless the command may use the network.
 */
export function bubblewrapLaunch(program: string, args: readonly string[], network: boolean): { command: string; args: string[] } {
  const filter = network ? "" : Array.from(unixSocketFilter(), (byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("");
  return { command: "bash", args: ["-c", LAUNCHER, "toolfs-confine", filter, program, ...(network ? [] : ["--seccomp", "3"]), ...args] };
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
    const how = result.stopReason ? `was stopped (${result.stopReason})` : result.exitCode === null ? `was killed by ${result.signal}` : `exited ${result.exitCode}`;
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
export function confinedRunner(base: ProcessRunner, program: string, viewFor: (spec: ProcessSpec) => Promise<ConfinementView>): ProcessRunner {
  return {
    async run(spec) {
      if (spec.command === "") throw new ProcessError("PROCESS_INVALID_ARGUMENT", "The command is empty. Name a program to run.");
      const view = await viewFor(spec);
      for (const note of view.notes ?? []) await spec.stderr?.write(new TextEncoder().encode(`toolfs: ${note}\n`), "stderr");
      const args = bubblewrapArgs(view, { command: spec.command, ...(spec.args ? { args: spec.args } : {}), ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}) });
      return base.run({ ...spec, ...bubblewrapLaunch(program, args, view.network) });
    },
  };
}
