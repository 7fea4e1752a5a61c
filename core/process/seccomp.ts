// The seccomp filter every confined command runs under, in classic BPF, as bubblewrap loads it. Mounts cannot
// refuse what is not a path, so the filter refuses three things (docs/notes/0010-confined-shell.md):
//
// - io_uring, always (ENOSYS, so programs fall back to ordinary calls): its operations (socket and connect
//   among them) run in the kernel without passing through this filter, so it would undo the rest.
// - The kernel keyrings (keyctl, add_key, request_key), always (ENOSYS): they are not namespaced; a user's
//   keyring is the host user's, shared with every one of its processes outside.
// - Without the network, every socket() (EPERM) but AF_INET and AF_INET6, and socketpair() but for an AF_UNIX
//   stream, datagram or seqpacket pair. connect() on a Unix socket file is no write, so a read-only mount
//   does not stop it, and some such sockets grant more than any file (a container daemon's, the system bus);
//   other families reach what no namespace holds (AF_VSOCK reaches the hypervisor) or only add kernel surface.
//   Internet sockets stay: the command's network namespace holds only its own loopback, where a test suite's
//   server and its client meet. pidfd_getfd() goes too: it copies a descriptor, a socket perhaps, out of
//   another process.
//
// Each ABI a program can enter the kernel through is matched by its own numbers: x86_64 (its x32 half is
// refused whole), i386 (whose socketcall() hides its arguments behind a pointer and is refused whole without
// the network), aarch64 and 32-bit ARM. On other architectures the filter allows everything.

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const X32_BIT = 0x40000000;
const AF_UNIX = 1;
/** AF_INET and AF_INET6: without the network they reach only the namespace's own loopback. */
const INTERNET = [2, 10];
/** SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET; the type's low bits (flags such as SOCK_CLOEXEC are above). */
const PAIR_TYPES = [1, 2, 5];
const SOCK_TYPE_MASK = 0xf;

interface Abi {
  readonly name: string;
  readonly arch: number;
  readonly x32?: boolean;
  readonly ioUring: readonly number[];
  readonly keys: readonly number[];
  readonly socket: number;
  readonly socketpair: number;
  readonly socketcall?: number;
  readonly pidfdGetfd: number;
}

// io_uring_setup/enter/register and pidfd_getfd have the same numbers on every ABI since Linux 5.1.
const IO_URING = [425, 426, 427];
const PIDFD_GETFD = 438;

/** The ABIs the filter knows, with the numbers of the calls it judges (keyctl, add_key, request_key order). */
export const SECCOMP_ABIS: readonly Abi[] = [
  { name: "x86_64", arch: 0xc000003e, x32: true, ioUring: IO_URING, keys: [250, 248, 249], socket: 41, socketpair: 53, pidfdGetfd: PIDFD_GETFD },
  { name: "i386", arch: 0x40000003, ioUring: IO_URING, keys: [288, 286, 287], socket: 359, socketpair: 360, socketcall: 102, pidfdGetfd: PIDFD_GETFD },
  { name: "aarch64", arch: 0xc00000b7, ioUring: IO_URING, keys: [219, 217, 218], socket: 198, socketpair: 199, pidfdGetfd: PIDFD_GETFD },
  { name: "arm", arch: 0x40000028, ioUring: IO_URING, keys: [311, 309, 310], socket: 281, socketpair: 288, pidfdGetfd: PIDFD_GETFD },
];

type Insn =
  | { op: "ld"; offset: number; label?: string }
  | { op: "and"; k: number; label?: string }
  | { op: "jeq" | "jge"; k: number; yes: string; no: string; label?: string }
  | { op: "ret"; k: number; label?: string };

// struct seccomp_data: nr (u32), arch (u32), instruction_pointer (u64), args (u64[6]); the low half of each
// argument comes first (every ABI here is little-endian) and is all the calls judged here read.
const NR = 0;
const ARCH = 4;
const arg = (n: number) => 16 + 8 * n;

function program(network: boolean): Insn[] {
  const out: Insn[] = [{ op: "ld", offset: ARCH }];
  for (const [i, abi] of SECCOMP_ABIS.entries()) {
    out.push({
      op: "jeq",
      k: abi.arch,
      yes: abi.name,
      no: SECCOMP_ABIS[i + 1]?.name ? `not-${abi.name}` : "allow",
      ...(i > 0 ? { label: `not-${SECCOMP_ABIS[i - 1]!.name}` } : {}),
    });
  }
  for (const abi of SECCOMP_ABIS) {
    const block: Insn[] = [{ op: "ld", offset: NR }];
    const next = (n: number) => `${abi.name}-${n}`;
    let n = 0;
    const check = (k: number, yes: string, op: "jeq" | "jge" = "jeq") => {
      block.push({ op, k, yes, no: next(n + 1), ...(n > 0 ? { label: next(n) } : {}) });
      n++;
    };
    if (abi.x32) check(X32_BIT, "eperm", "jge");
    for (const nr of [...abi.ioUring, ...abi.keys]) check(nr, "enosys");
    if (!network) {
      for (const nr of [abi.pidfdGetfd, ...(abi.socketcall === undefined ? [] : [abi.socketcall])]) check(nr, "eperm");
      check(abi.socket, "socket");
      check(abi.socketpair, "pair");
    }
    block.push({ op: "ret", k: RET_ALLOW, label: next(n) });
    block[0] = { ...block[0]!, label: abi.name } as Insn;
    out.push(...block);
  }
  if (!network) {
    out.push({ op: "ld", offset: arg(0), label: "socket" });
    for (const [i, family] of INTERNET.entries()) {
      out.push({ op: "jeq", k: family, yes: "allow", no: i === INTERNET.length - 1 ? "eperm" : `socket-${i + 1}`, ...(i > 0 ? { label: `socket-${i}` } : {}) });
    }
    out.push({ op: "ld", offset: arg(0), label: "pair" }, { op: "jeq", k: AF_UNIX, yes: "pair-type", no: "eperm" });
    out.push({ op: "ld", offset: arg(1), label: "pair-type" }, { op: "and", k: SOCK_TYPE_MASK });
    for (const [i, type] of PAIR_TYPES.entries()) {
      out.push({
        op: "jeq",
        k: type,
        yes: "allow",
        no: i === PAIR_TYPES.length - 1 ? "eperm" : `pair-type-${i + 1}`,
        ...(i > 0 ? { label: `pair-type-${i}` } : {}),
      });
    }
  }
  out.push(
    { op: "ret", k: RET_ALLOW, label: "allow" },
    { op: "ret", k: RET_ERRNO | EPERM, label: "eperm" },
    { op: "ret", k: RET_ERRNO | ENOSYS, label: "enosys" },
  );
  return out;
}

/** The filter for a command with or without the network, as the kernel reads it: `struct sock_filter` records, little-endian. */
export function seccompFilter(network: boolean): Uint8Array {
  const insns = program(network);
  const at = new Map<string, number>();
  insns.forEach((insn, i) => {
    if (insn.label === undefined) return;
    if (at.has(insn.label)) throw new Error(`label ${insn.label} twice`);
    at.set(insn.label, i);
  });
  const out = new Uint8Array(insns.length * 8);
  const view = new DataView(out.buffer);
  insns.forEach((insn, i) => {
    const jump = (label: string) => {
      const target = at.get(label);
      if (target === undefined) throw new Error(`no label ${label}`);
      const offset = target - (i + 1);
      if (offset < 0 || offset > 255) throw new Error(`bad jump to ${label}`);
      return offset;
    };
    const [code, jt, jf, k] =
      insn.op === "ld"
        ? [0x20, 0, 0, insn.offset]
        : insn.op === "and"
          ? [0x54, 0, 0, insn.k]
          : insn.op === "ret"
            ? [0x06, 0, 0, insn.k]
            : [insn.op === "jeq" ? 0x15 : 0x35, jump(insn.yes), jump(insn.no), insn.k];
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k >>> 0, true);
  });
  return out;
}
