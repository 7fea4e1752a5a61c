// The slice of the `Deno` namespace this adapter uses, declared locally so the npm build and tsc can type
// it without Deno's global types. `api-check.ts` proves under `deno check` that the real namespace fits.

export interface DenoFileInfo {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymlink: boolean;
  readonly size: number;
  readonly mtime: Date | null;
  readonly ctime: Date | null;
  readonly dev: number;
  readonly ino: number | null;
  readonly mode: number | null;
  readonly uid: number | null;
}

export interface DenoFsFile {
  stat(): Promise<DenoFileInfo>;
  read(p: Uint8Array): Promise<number | null>;
  write(p: Uint8Array): Promise<number>;
  seek(offset: number, whence: DenoSeekStart): Promise<number>;
  sync(): Promise<void>;
  close(): void;
}

export type DenoSeekStart = 0;

export type DenoSignal = "SIGTERM" | "SIGKILL";

export interface DenoCommandOptions {
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  clearEnv?: boolean;
  stdin?: "null";
  stdout?: "piped" | "null";
  stderr?: "piped" | "null";
}

export interface DenoCommandStatus {
  readonly success: boolean;
  readonly code: number;
  readonly signal: string | null;
}

export interface DenoCommandOutput extends DenoCommandStatus {
  readonly stdout: Uint8Array;
}

export interface DenoChildProcess {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<DenoCommandStatus>;
  kill(signo?: DenoSignal): void;
}

export type DenoPermissionDescriptor =
  | { name: "run"; command?: string }
  | { name: "env"; variable?: string }
  | { name: "read" | "write"; path?: string }
  | { name: "ffi"; path?: string }
  | { name: "net" | "sys" };

/** The part of a foreign function's description this adapter uses. */
export interface DenoForeignFunction {
  readonly name?: string;
  readonly parameters: readonly ("i32" | "u32" | "i64" | "usize" | "buffer" | "pointer")[];
  readonly result: "i32" | "isize" | "pointer";
  readonly nonblocking?: boolean;
  /** The symbol may be missing from the library; it is then `null` instead of failing the open. */
  readonly optional?: boolean;
}

export interface DenoApi {
  cwd(): string;
  realPath(path: string): Promise<string>;
  stat(path: string): Promise<DenoFileInfo>;
  lstat(path: string): Promise<DenoFileInfo>;
  readLink(path: string): Promise<string>;
  readDir(path: string): AsyncIterable<{ readonly name: string }>;
  open(path: string, options: { read?: boolean; write?: boolean; createNew?: boolean; mode?: number }): Promise<DenoFsFile>;
  mkdir(path: string, options: { recursive?: boolean; mode?: number }): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  rename(oldpath: string, newpath: string): Promise<void>;
  link(oldpath: string, newpath: string): Promise<void>;
  remove(path: string): Promise<void>;
  umask(): number;
  uid(): number | null;
  readTextFile(path: string): Promise<string>;
  Command: new (command: string, options?: DenoCommandOptions) => { spawn(): DenoChildProcess; output(): Promise<DenoCommandOutput> };
  kill(pid: number, signo?: DenoSignal): void;
  readonly permissions: { querySync(descriptor: DenoPermissionDescriptor): { readonly state: "granted" | "denied" | "prompt" } };
  readonly env: { toObject(): Record<string, string> };
  readonly pid: number;
  hostname(): string;
  readonly build: { readonly os: string; readonly arch: string };
  dlopen<const S extends Readonly<Record<string, DenoForeignFunction>>>(filename: string, symbols: S): { readonly symbols: unknown; close(): void };
  readonly UnsafePointerView: new (pointer: never) => { getInt32(offset?: number): number };
}

/** The running Deno namespace; throws a clear error outside Deno. */
export function denoApi(): DenoApi {
  const api = (globalThis as { Deno?: DenoApi }).Deno;
  if (!api) throw new Error("toolfs/deno needs the Deno runtime; use toolfs/node on Node");
  return api;
}
