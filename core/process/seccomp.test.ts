// The seccomp filter run through a small classic-BPF interpreter, call by call and ABI by ABI, as the kernel
// would run it: what each syscall gets with and without the network. The confine cases (test/confine-cases.ts)
// check the same against the real kernel, on this machine's ABI only.
import { describe, expect, test } from "vitest";
import { SECCOMP_ABIS, seccompFilter } from "./seccomp.ts";

const ALLOW = "allow";
type Verdict = typeof ALLOW | "EPERM" | "ENOSYS" | `ret ${string}`;

/** Runs `filter` on one `struct seccomp_data`; supports what a seccomp filter may use of classic BPF here. */
function run(filter: Uint8Array, arch: number, nr: number, args: readonly number[] = []): Verdict {
  const data = new DataView(new ArrayBuffer(64));
  data.setUint32(0, nr >>> 0, true);
  data.setUint32(4, arch >>> 0, true);
  for (const [i, value] of args.entries()) data.setUint32(16 + 8 * i, value >>> 0, true);
  const code = new DataView(filter.buffer, filter.byteOffset, filter.byteLength);
  let a = 0;
  for (let pc = 0, steps = 0; pc < filter.length / 8; pc++, steps++) {
    if (steps > 4096) throw new Error("no end");
    const op = code.getUint16(pc * 8, true);
    const jt = code.getUint8(pc * 8 + 2);
    const jf = code.getUint8(pc * 8 + 3);
    const k = code.getUint32(pc * 8 + 4, true);
    switch (op) {
      case 0x20: // ld w abs
        if (k % 4 !== 0 || k + 4 > 64) throw new Error(`bad load at ${k}`);
        a = data.getUint32(k, true);
        break;
      case 0x54: // and k
        a = (a & k) >>> 0;
        break;
      case 0x15: // jeq k
        pc += a === k ? jt : jf;
        break;
      case 0x35: // jge k
        pc += a >= k ? jt : jf;
        break;
      case 0x06: // ret k
        if (k === 0x7fff0000) return ALLOW;
        if (k === 0x00050001) return "EPERM";
        if (k === 0x00050026) return "ENOSYS";
        return `ret ${k.toString(16)}`;
      default:
        throw new Error(`opcode ${op.toString(16)} at ${pc}`);
    }
  }
  throw new Error("fell off the end");
}

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const AF_VSOCK = 40;
const SOCK_STREAM = 1;
const SOCK_DGRAM = 2;
const SOCK_RAW = 3;
const SOCK_SEQPACKET = 5;
const SOCK_CLOEXEC = 0x80000;

describe("seccompFilter", () => {
  const closed = seccompFilter(false);
  const open = seccompFilter(true);

  for (const abi of SECCOMP_ABIS) {
    test(`${abi.name}: io_uring and the keyrings are gone always; without the network no socket but a Unix pair`, () => {
      for (const filter of [closed, open]) {
        for (const nr of abi.ioUring) expect(run(filter, abi.arch, nr)).toBe("ENOSYS");
        for (const nr of abi.keys) expect(run(filter, abi.arch, nr)).toBe("ENOSYS");
        // read, write, openat... and any number the filter does not name.
        for (const nr of [0, 1, 3, 56, 57, 59, 63, 257, 424, 428, 439]) {
          if (![...abi.ioUring, ...abi.keys, abi.socket, abi.socketpair, abi.pidfdGetfd, abi.socketcall].includes(nr))
            expect(run(filter, abi.arch, nr)).toBe(ALLOW);
        }
      }
      for (const family of [AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_VSOCK, 0, 255]) {
        // Internet sockets reach only the namespace's own loopback without the network.
        expect(run(closed, abi.arch, abi.socket, [family, SOCK_STREAM])).toBe(family === AF_INET || family === AF_INET6 ? ALLOW : "EPERM");
        expect(run(open, abi.arch, abi.socket, [family, SOCK_STREAM])).toBe(ALLOW);
      }
      for (const type of [SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_STREAM | SOCK_CLOEXEC]) {
        expect(run(closed, abi.arch, abi.socketpair, [AF_UNIX, type])).toBe(ALLOW);
      }
      expect(run(closed, abi.arch, abi.socketpair, [AF_UNIX, SOCK_RAW])).toBe("EPERM");
      expect(run(closed, abi.arch, abi.socketpair, [AF_INET, SOCK_STREAM])).toBe("EPERM");
      expect(run(open, abi.arch, abi.socketpair, [AF_INET, SOCK_STREAM])).toBe(ALLOW);
      expect(run(closed, abi.arch, abi.pidfdGetfd)).toBe("EPERM");
      expect(run(open, abi.arch, abi.pidfdGetfd)).toBe(ALLOW);
      if (abi.socketcall !== undefined) {
        expect(run(closed, abi.arch, abi.socketcall, [1])).toBe("EPERM");
        expect(run(open, abi.arch, abi.socketcall, [1])).toBe(ALLOW);
      }
    });
  }

  test("x86_64's x32 half is refused whole; another architecture is let through", () => {
    const x86 = SECCOMP_ABIS.find((abi) => abi.name === "x86_64")!;
    for (const filter of [closed, open]) {
      expect(run(filter, x86.arch, 0x40000000 + 41, [AF_UNIX])).toBe("EPERM");
      expect(run(filter, x86.arch, 0x40000000)).toBe("EPERM");
      expect(run(filter, 0xc00000f3 /* riscv64 */, 425)).toBe(ALLOW);
    }
  });
});
