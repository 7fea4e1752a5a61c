// Over 400 lines: the libc binding (Libc) and the FsDirectory over it (LibcDirectory) share its flags and errno table; a split there waits for work under way.
// Directories pinned through libc's *at calls, for Deno on Linux when --allow-ffi is granted. Deno has no
// openat and no file descriptor numbers, and it refuses /proc/self/fd to anything short of --allow-all;
// through FFI a directory is held by its descriptor and every publication step names an entry relative to
// it, so a rename racing the write cannot redirect it.
// Over 400 lines by design: the symbol table, the errno names and every call made through them stay in one
// file, so no other module touches raw descriptors.
import { errnoError, FsError, type FsDirectory, type FsDriverHandle, type FsDriverStat, type FsStagedFile } from "../../core/mod.ts";
import type { DenoApi } from "./deno-api.ts";

const SYMBOLS = {
  openat: { parameters: ["i32", "buffer", "i32", "u32"], result: "i32" },
  mkdirat: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  renameat: { parameters: ["i32", "buffer", "i32", "buffer"], result: "i32" },
  // glibc 2.28 and later; without it a move that must not replace checks first (atomicNoReplaceMove: false).
  renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32", optional: true },
  linkat: { parameters: ["i32", "buffer", "i32", "buffer", "i32"], result: "i32" },
  unlinkat: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  fchmod: { parameters: ["i32", "u32"], result: "i32" },
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
  readlink: { parameters: ["buffer", "buffer", "usize"], result: "isize" },
  pread: { parameters: ["i32", "buffer", "usize", "i64"], result: "isize" },
  preadAsync: { name: "pread", parameters: ["i32", "buffer", "usize", "i64"], result: "isize", nonblocking: true },
  close: { parameters: ["i32"], result: "i32" },
  kill: { parameters: ["i32", "i32"], result: "i32" },
  // getdents64 has no glibc wrapper before 2.30; through syscall(2) it needs none.
  syscall: { parameters: ["i64", "i32", "buffer", "usize"], result: "isize" },
  gethostname: { parameters: ["buffer", "usize"], result: "i32" },
  // Data goes through worker threads so a large write does not stall the event loop; errno lives on the
  // thread that made the call, so a failure is repeated synchronously to learn why.
  write: { parameters: ["i32", "buffer", "usize"], result: "isize", nonblocking: true },
  writeNow: { name: "write", parameters: ["i32", "buffer", "usize"], result: "isize" },
  fsync: { parameters: ["i32"], result: "i32", nonblocking: true },
  fsyncNow: { name: "fsync", parameters: ["i32"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

type Num = number | bigint;
interface Symbols {
  openat(dirfd: number, path: Uint8Array, flags: number, mode: number): number;
  mkdirat(dirfd: number, path: Uint8Array, mode: number): number;
  renameat(olddirfd: number, oldpath: Uint8Array, newdirfd: number, newpath: Uint8Array): number;
  renameat2: ((olddirfd: number, oldpath: Uint8Array, newdirfd: number, newpath: Uint8Array, flags: number) => number) | null;
  linkat(olddirfd: number, oldpath: Uint8Array, newdirfd: number, newpath: Uint8Array, flags: number): number;
  unlinkat(dirfd: number, path: Uint8Array, flags: number): number;
  fchmod(fd: number, mode: number): number;
  statx(dirfd: number, path: Uint8Array, flags: number, mask: number, buffer: Uint8Array): number;
  readlink(path: Uint8Array, buffer: Uint8Array, size: Num): Num;
  pread(fd: number, buffer: Uint8Array, size: Num, offset: Num): Num;
  preadAsync(fd: number, buffer: Uint8Array, size: Num, offset: Num): Promise<Num>;
  close(fd: number): number;
  kill(pid: number, signal: number): number;
  syscall(number: Num, fd: number, buffer: Uint8Array, size: Num): Num;
  gethostname(buffer: Uint8Array, size: Num): number;
  write(fd: number, buffer: Uint8Array, size: Num): Promise<Num>;
  writeNow(fd: number, buffer: Uint8Array, size: Num): Num;
  fsync(fd: number): Promise<number>;
  fsyncNow(fd: number): number;
  __errno_location(): unknown;
}

// Flag values of the two Linux architectures Deno ships for; they differ in O_DIRECTORY and O_NOFOLLOW.
const ARCH_FLAGS = {
  x86_64: { directory: 0o200000, nofollow: 0o400000, getdents64: 217 },
  aarch64: { directory: 0o40000, nofollow: 0o100000, getdents64: 61 },
} as const;
const O_WRONLY = 0o1;
const O_CREAT = 0o100;
const O_EXCL = 0o200;
const O_NONBLOCK = 0o4000;
const O_CLOEXEC = 0o2000000;
const O_PATH = 0o10000000;
const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_EMPTY_PATH = 0x1000;
const AT_REMOVEDIR = 0x200;
const RENAME_NOREPLACE = 1;
const STATX_BASIC_STATS = 0x7ff;
const ERRNO: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  3: "ESRCH",
  4: "EINTR",
  5: "EIO",
  9: "EBADF",
  13: "EACCES",
  17: "EEXIST",
  18: "EXDEV",
  22: "EINVAL",
  20: "ENOTDIR",
  21: "EISDIR",
  24: "EMFILE",
  28: "ENOSPC",
  30: "EROFS",
  31: "EMLINK",
  36: "ENAMETOOLONG",
  39: "ENOTEMPTY",
  40: "ELOOP",
  95: "EOPNOTSUPP",
  122: "EDQUOT",
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const cString = (text: string): Uint8Array => encoder.encode(`${text}\0`);
const EMPTY = cString("");

let opened: Libc | undefined;

/**
 * libc through FFI (opened once per process), or `undefined` when FFI is not granted or the platform is not
 * Linux with glibc on x86_64 or aarch64.
 */
export function openLibc(deno: DenoApi): Libc | undefined {
  if (opened) return opened;
  if (deno.build.os !== "linux" || !(deno.build.arch in ARCH_FLAGS)) return undefined;
  try {
    if (deno.permissions.querySync({ name: "ffi" }).state !== "granted") return undefined;
    const library = deno.dlopen("libc.so.6", SYMBOLS);
    opened = new Libc(deno, library.symbols as unknown as Symbols, ARCH_FLAGS[deno.build.arch as keyof typeof ARCH_FLAGS]);
    return opened;
  } catch {
    return undefined;
  }
}

export class Libc {
  readonly #deno: DenoApi;
  readonly #c: Symbols;
  readonly #dirFlags: number;
  readonly #nofollow: number;
  readonly #directory: number;
  readonly #getdents64: number;

  constructor(deno: DenoApi, symbols: Symbols, flags: { directory: number; nofollow: number; getdents64: number }) {
    this.#deno = deno;
    this.#c = symbols;
    this.#dirFlags = O_PATH | O_CLOEXEC | flags.directory;
    this.#nofollow = flags.nofollow;
    this.#directory = flags.directory;
    this.#getdents64 = flags.getdents64;
  }

  /**
   * Opens a directory by path (following symlinks; the caller checks where it landed). FFI is not bound by
   * Deno's path permissions, so the directory keeps to what the process was granted: it is opened only where
   * Deno may read or write, changed only where it may write, and a file in it opened only where it may read.
   */
  openDirectory(path: string): FsDirectory {
    const writable = this.granted("write", path);
    if (!writable && !this.granted("read", path)) throw notPermitted("--allow-read");
    return new LibcDirectory(this, this.#check(this.#c.openat(AT_FDCWD, cString(path), this.#dirFlags, 0)), path, writable);
  }

  /** Whether Deno's permissions grant `kind` access to `path`. */
  granted(kind: "read" | "write", path: string): boolean {
    return this.#deno.permissions.querySync({ name: kind, path }).state === "granted";
  }

  /** The host name, or `undefined`. */
  hostname(): string | undefined {
    const buffer = new Uint8Array(256);
    if (this.#c.gethostname(buffer, buffer.length) !== 0) return undefined;
    const end = buffer.indexOf(0);
    return decoder.decode(buffer.subarray(0, end < 0 ? buffer.length : end)) || undefined;
  }

  alive(pid: number): boolean | undefined {
    if (this.#c.kill(pid, 0) === 0) return true;
    const errno = this.#errno();
    return errno === "ESRCH" ? false : errno === "EPERM" ? true : undefined;
  }

  // --- operations on descriptors, for LibcDirectory ---

  currentPath(fd: number): string | undefined {
    const buffer = new Uint8Array(4096);
    const n = Number(this.#c.readlink(cString(`/proc/self/fd/${fd}`), buffer, buffer.length));
    if (n < 0 || n >= buffer.length) return undefined;
    const now = decoder.decode(buffer.subarray(0, n));
    // A removed directory reads as "<path> (deleted)": the identities must match.
    const there = this.statx(AT_FDCWD, now, 0);
    const opened = this.statx(fd, "", AT_EMPTY_PATH);
    return there && opened && there.id === opened.id ? now : undefined;
  }

  statx(dirfd: number, name: string, flags: number): FsDriverStat | undefined {
    const buffer = new Uint8Array(256);
    if (this.#c.statx(dirfd, name === "" ? EMPTY : cString(name), flags, STATX_BASIC_STATS, buffer) !== 0) {
      const errno = this.#errno();
      if (errno === "ENOENT" || errno === "ENOTDIR") return undefined;
      throw errnoError(errno, new Error(`statx failed: ${errno}`));
    }
    return statxToStat(new DataView(buffer.buffer));
  }

  lstatAt(fd: number, name: string): FsDriverStat | undefined {
    return this.statx(fd, name, AT_SYMLINK_NOFOLLOW);
  }

  fstat(fd: number): FsDriverStat {
    const stat = this.statx(fd, "", AT_EMPTY_PATH);
    if (!stat) throw errnoError("EBADF", new Error("fstat failed"));
    return stat;
  }

  /** A child directory; `undefined` when missing. */
  openDirectoryAt(fd: number, name: string): number | undefined {
    const child = this.#c.openat(fd, cString(name), this.#dirFlags | this.#nofollow, 0);
    if (child >= 0) return child;
    const errno = this.#errno();
    if (errno === "ENOENT") return undefined;
    if (errno === "ENOTDIR" || errno === "ELOOP") throw new FsError("FS_NOT_DIRECTORY", "it is not a directory");
    throw errnoError(errno, new Error(`openat failed: ${errno}`));
  }

  mkdirAt(fd: number, name: string, mode: number): boolean {
    if (this.#c.mkdirat(fd, cString(name), mode) === 0) return true;
    return this.#unless("EEXIST", false);
  }

  createAt(fd: number, name: string, mode: number): number | undefined {
    const file = this.#c.openat(fd, cString(name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | this.#nofollow, mode);
    if (file >= 0) return file;
    return this.#unless("EEXIST", undefined);
  }

  /** A file opened for reading, never through a symlink at `name`; `undefined` when missing or a symlink. */
  openFileAt(fd: number, name: string): number | undefined {
    const file = this.#c.openat(fd, cString(name), O_NONBLOCK | O_CLOEXEC | this.#nofollow, 0);
    if (file >= 0) return file;
    const errno = this.#errno();
    if (errno === "ENOENT" || errno === "ELOOP") return undefined;
    throw errnoError(errno, new Error(`openat failed: ${errno}`));
  }

  /** Reads at `position` on a worker thread, as a write does. */
  async pread(fd: number, buffer: Uint8Array, position: number): Promise<number> {
    const n = Number(await this.#c.preadAsync(fd, buffer, buffer.length, BigInt(position)));
    if (n >= 0) return n;
    return this.#check(Number(this.#c.pread(fd, buffer, buffer.length, BigInt(position))));
  }

  readAt(fd: number, name: string, maxBytes: number): Uint8Array | undefined {
    const file = this.#c.openat(fd, cString(name), O_NONBLOCK | O_CLOEXEC | this.#nofollow, 0);
    if (file < 0) {
      const errno = this.#errno();
      if (errno === "ENOENT" || errno === "ELOOP") return undefined;
      throw errnoError(errno, new Error(`openat failed: ${errno}`));
    }
    try {
      if (this.fstat(file).type !== "file") return undefined;
      const buffer = new Uint8Array(maxBytes);
      const n = Number(this.#c.pread(file, buffer, maxBytes, 0));
      if (n < 0) throw errnoError(this.#errno(), new Error("pread failed"));
      return buffer.subarray(0, n);
    } finally {
      this.#c.close(file);
    }
  }

  renameAt(fd: number, from: string, to: string): void {
    this.#check(this.#c.renameat(fd, cString(from), fd, cString(to)));
  }

  linkAt(fd: number, from: string, to: string): boolean {
    if (this.#c.linkat(fd, cString(from), fd, cString(to), 0) === 0) return true;
    return this.#unless("EEXIST", false);
  }

  /** Whether a move can refuse to replace atomically (`renameat2` with `RENAME_NOREPLACE`). */
  get renameNoReplace(): boolean {
    return typeof this.#c.renameat2 === "function";
  }

  /** Removes an empty directory, never through a symlink; `false` when missing. */
  rmdirAt(fd: number, name: string): boolean {
    if (this.#c.unlinkat(fd, cString(name), AT_REMOVEDIR) === 0) return true;
    const errno = this.#errno();
    if (errno === "ENOENT") return false;
    if (errno === "ENOTDIR") throw new FsError("FS_NOT_DIRECTORY", "it is not a directory");
    if (errno === "EEXIST") throw errnoError("ENOTEMPTY", new Error(errno));
    throw errnoError(errno, new Error(errno));
  }

  /**
   * Moves `from` in the folder `fd` to `to` in the folder `into`. Without `replace`, `false` when `to` is taken:
   * refused by renameat2 itself where the filesystem supports the flag, else by link (a file) or a check (a folder).
   */
  moveAt(fd: number, from: string, into: number, to: string, replace: boolean): boolean {
    const source = cString(from);
    const destination = cString(to);
    if (replace) {
      this.#check(this.#c.renameat(fd, source, into, destination));
      return true;
    }
    if (this.#c.renameat2) {
      if (this.#c.renameat2(fd, source, into, destination, RENAME_NOREPLACE) === 0) return true;
      const errno = this.#errno();
      if (errno === "EEXIST") return false;
      // EINVAL: this filesystem does not take the flag; the ways below still never replace a file.
      if (errno !== "EINVAL") throw errnoError(errno, new Error(errno));
    }
    const moving = this.lstatAt(fd, from);
    if (!moving) throw errnoError("ENOENT", new Error("ENOENT"));
    if (moving.type !== "directory") {
      if (this.#c.linkat(fd, source, into, destination, 0) === 0) {
        if (this.lstatAt(fd, from)?.id === moving.id && this.#c.unlinkat(fd, source, 0) !== 0) this.#unless("ENOENT", undefined);
        return true;
      }
      const errno = this.#errno();
      if (errno === "EEXIST") return false;
      if (errno !== "EPERM" && errno !== "EMLINK" && errno !== "EOPNOTSUPP") throw errnoError(errno, new Error(errno));
    }
    if (this.lstatAt(into, to)) return false;
    if (this.#c.renameat(fd, source, into, destination) === 0) return true;
    const errno = this.#errno();
    if (errno === "ENOTEMPTY" || errno === "EEXIST" || errno === "ENOTDIR" || errno === "EISDIR") return false;
    throw errnoError(errno, new Error(errno));
  }

  unlinkAt(fd: number, name: string): boolean {
    if (this.#c.unlinkat(fd, cString(name), 0) === 0) return true;
    return this.#unless("ENOENT", false);
  }

  async write(fd: number, bytes: Uint8Array): Promise<number> {
    const n = Number(await this.#c.write(fd, bytes, bytes.length));
    if (n >= 0) return n;
    const again = Number(this.#c.writeNow(fd, bytes, bytes.length));
    return again >= 0 ? again : this.#check(again);
  }

  async fsync(fd: number): Promise<void> {
    if ((await this.#c.fsync(fd)) === 0) return;
    this.#check(this.#c.fsyncNow(fd));
  }

  fchmod(fd: number, mode: number): void {
    this.#check(this.#c.fchmod(fd, mode));
  }

  close(fd: number): void {
    this.#c.close(fd);
  }

  /**
   * Entry names of the directory held by `fd`, read through a descriptor opened on it (an O_PATH one cannot be
   * listed), never through its path.
   */
  readdirAt(fd: number): string[] {
    const dir = this.#check(this.#c.openat(fd, cString("."), O_CLOEXEC | this.#directory, 0));
    try {
      const buffer = new Uint8Array(32 * 1024);
      const view = new DataView(buffer.buffer);
      const names: string[] = [];
      for (;;) {
        const n = this.#check(Number(this.#c.syscall(this.#getdents64, dir, buffer, buffer.length)));
        if (n === 0) return names;
        // struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), then the name and a NUL.
        for (let at = 0; at < n; at += view.getUint16(at + 16, true)) {
          const end = buffer.indexOf(0, at + 19);
          const name = decoder.decode(buffer.subarray(at + 19, end));
          if (name !== "." && name !== "..") names.push(name);
        }
      }
    } finally {
      this.#c.close(dir);
    }
  }

  #errno(): string {
    const pointer = this.#c.__errno_location();
    const value = new this.#deno.UnsafePointerView(pointer as never).getInt32(0);
    return ERRNO[value] ?? `errno ${value}`;
  }

  #check(result: number): number {
    if (result >= 0) return result;
    const errno = this.#errno();
    throw errnoError(errno, new Error(errno));
  }

  #unless<T>(expected: string, value: T): T {
    const errno = this.#errno();
    if (errno === expected) return value;
    throw errnoError(errno, new Error(errno));
  }
}

class LibcDirectory implements FsDirectory {
  readonly #c: Libc;
  readonly #fd: number;
  readonly #path: string;
  readonly #writable: boolean;
  #closed = false;

  constructor(libc: Libc, fd: number, path: string, writable: boolean) {
    this.#c = libc;
    this.#fd = fd;
    this.#path = path;
    this.#writable = writable;
  }

  async currentPath(): Promise<string | undefined> {
    return this.#c.currentPath(this.#fd);
  }

  async stat(): Promise<FsDriverStat> {
    return this.#c.fstat(this.#fd);
  }

  async lstat(name: string): Promise<FsDriverStat | undefined> {
    return this.#c.lstatAt(this.#fd, name);
  }

  async openDirectory(name: string): Promise<FsDirectory | undefined> {
    const fd = this.#c.openDirectoryAt(this.#fd, name);
    const path = `${this.#path}/${name}`;
    return fd === undefined ? undefined : new LibcDirectory(this.#c, fd, path, this.#writable || this.#c.granted("write", path));
  }

  async mkdir(name: string, mode: number): Promise<boolean> {
    this.#mayWrite();
    return this.#c.mkdirAt(this.#fd, name, mode);
  }

  async createFile(name: string, mode: number): Promise<FsStagedFile | undefined> {
    this.#mayWrite();
    const fd = this.#c.createAt(this.#fd, name, mode);
    if (fd === undefined) return undefined;
    const c = this.#c;
    let closed = false;
    return {
      write: (bytes) => c.write(fd, bytes),
      sync: () => c.fsync(fd),
      chmod: async (to) => c.fchmod(fd, to),
      close: async () => {
        if (closed) return;
        closed = true;
        c.close(fd);
      },
    };
  }

  async readFile(name: string, maxBytes: number): Promise<Uint8Array | undefined> {
    return this.#c.readAt(this.#fd, name, maxBytes);
  }

  async openFile(name: string): Promise<FsDriverHandle | undefined> {
    if (!this.#c.granted("read", `${this.#path}/${name}`)) throw notPermitted("--allow-read");
    const fd = this.#c.openFileAt(this.#fd, name);
    if (fd === undefined) return undefined;
    const c = this.#c;
    let closed = false;
    return {
      stat: async () => c.fstat(fd),
      read: (buffer, position) => c.pread(fd, buffer, position),
      close: async () => {
        if (closed) return;
        closed = true;
        c.close(fd);
      },
    };
  }

  async rename(from: string, to: string): Promise<void> {
    this.#mayWrite();
    this.#c.renameAt(this.#fd, from, to);
  }

  async link(from: string, to: string): Promise<boolean> {
    this.#mayWrite();
    return this.#c.linkAt(this.#fd, from, to);
  }

  async unlink(name: string): Promise<boolean> {
    this.#mayWrite();
    return this.#c.unlinkAt(this.#fd, name);
  }

  async rmdir(name: string): Promise<boolean> {
    this.#mayWrite();
    return this.#c.rmdirAt(this.#fd, name);
  }

  async move(from: string, into: FsDirectory, to: string, replace: boolean): Promise<boolean> {
    if (!(into instanceof LibcDirectory)) throw new FsError("FS_IO_ERROR", "the destination folder was not opened by this driver");
    this.#mayWrite();
    into.#mayWrite();
    return this.#c.moveAt(this.#fd, from, into.#fd, to, replace);
  }

  async readdir(): Promise<string[]> {
    if (!this.#c.granted("read", this.#path)) throw notPermitted("--allow-read");
    return this.#c.readdirAt(this.#fd);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#c.close(this.#fd);
  }

  #mayWrite(): void {
    if (!this.#writable) throw notPermitted("--allow-write");
  }
}

// Worded as a refusal Deno itself makes (adapters/deno/map-error.ts).
function notPermitted(flag: string): FsError {
  return new FsError("FS_PERMISSION_DENIED", `Deno's permissions do not allow it; the user can grant ${flag}`, {
    details: { errno: "NotCapable", flag },
  });
}

// struct statx is the same on every Linux architecture. The token matches what Deno.stat reports for the
// same file (device as makedev, times in milliseconds, ctime in whole seconds), so versions read through
// either compare equal.
function statxToStat(view: DataView): FsDriverStat {
  const mode = view.getUint16(28, true);
  const ino = view.getBigUint64(32, true);
  const size = Number(view.getBigUint64(40, true));
  const ms = (offset: number) => Number(view.getBigInt64(offset, true)) * 1000 + Math.floor(view.getUint32(offset + 8, true) / 1e6);
  const mtimeMs = ms(112);
  const ctimeMs = Number(view.getBigInt64(96, true)) * 1000;
  const major = view.getUint32(136, true);
  const minor = view.getUint32(140, true);
  const dev = ((BigInt(major) & 0xfffff000n) << 32n) | ((BigInt(major) & 0xfffn) << 8n) | ((BigInt(minor) & 0xffffff00n) << 12n) | (BigInt(minor) & 0xffn);
  const format = mode & 0o170000;
  const type = format === 0o100000 ? "file" : format === 0o040000 ? "directory" : format === 0o120000 ? "symlink" : "other";
  return {
    type,
    size,
    mtimeMs,
    mode: mode & 0o777,
    owner: view.getUint32(20, true),
    token: `${dev}:${ino}:${size}:${mtimeMs}:${ctimeMs}`,
    id: `${dev}:${ino}`,
  };
}
