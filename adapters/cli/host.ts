// What each command of the CLI takes from its runtime (main.ts on Node, main.deno.ts on Deno): the hosts, in one
// file that imports no command, so the commands and the dispatcher depend on it and never on each other.
import type { FileSystem, ProcessRunner, SearchBackend, ShellConfinement } from "../../core/mod.ts";
import type { AcpRuntime } from "../acp/mod.ts";
import type { McpHttpHandler, McpRuntime, ToolfsMcpSession } from "../mcp/mod.ts";

/** What the CLI needs from its runtime. */
export interface CliHost {
  readonly cwd: string;
  /** Canonical absolute path of a directory, or an error message. */
  realDirectory(path: string): Promise<string | { error: string }>;
  /** A provider for `root` on the chosen backend. */
  provider(backend: "node" | "memory", root: string): Promise<FileSystem>;
  /** The search backend for that provider, when glob and grep are available. */
  search?(backend: "node" | "memory", fs: FileSystem): SearchBackend | undefined;
  /** Directory (absolute) where complete over-cap search results are saved. */
  readonly spillDirectory?: string;
  /** Runs the bash tool's commands (on the node backend; a memory volume has no programs). */
  readonly runner?: ProcessRunner;
  /** Extra writable roots for workspace-write (the system's temp directories). */
  readonly tempRoots: readonly string[];
  /**
   * Detects how bash can be confined by the operating system (bubblewrap); called only when a sandbox or a deny
   * list needs it. Without it, bash is not offered under a confining sandbox.
   */
  confinement?(): Promise<ShellConfinement>;
  /** The user's home directory: where path arguments starting with `~` start, and `~` in --deny patterns. */
  readonly home?: string;
  /** Asks the person at the terminal, or undefined when nobody can be asked. */
  readonly ask: ((question: string) => Promise<string>) | undefined;
  out(text: string): void;
  err(text: string): void;
  /** The runtime's side of `toolfs acp`; absent where the agent cannot run. Called only for that command. */
  readonly acp?: () => AcpHost;
  /** The runtime's side of `toolfs mcp`; absent where the server cannot run. Called only for that command. */
  readonly mcp?: () => McpHost;
}

/** What `toolfs acp` takes from its runtime. */
export interface AcpHost {
  readonly runtime: AcpRuntime;
  readText(path: string): Promise<string>;
  /** An environment variable (the model's key), or undefined when unset or not readable. */
  env(name: string): string | undefined;
  /** Opens the protocol's streams; called once the options are known to be good, so a refusal leaves stdin alone. */
  stdio(): AcpStdio;
}

export interface AcpStdio {
  /** The protocol's input (stdin) and output (stdout); diagnostics go to CliHost.err. */
  readonly input: ReadableStream<Uint8Array>;
  readonly output: WritableStream<Uint8Array>;
  /** Fires when the process is asked to stop, so running tools are stopped before it exits. */
  readonly signal?: AbortSignal;
}

/** What `toolfs mcp` takes from its runtime. */
export interface McpHost {
  /** The runtime for a backend; its workspaces are shared by every session with the same roots. */
  runtime(backend: "node" | "memory" | "overlay"): McpRuntime;
  /** Serves one session on stdin/stdout; resolves when the client goes away or the process is stopped. */
  stdio(session: ToolfsMcpSession, limits: { readonly maxMessageBytes?: number; readonly log: (line: string) => void }): Promise<void>;
  /** Serves the handler on host:port; calls `listening` with the bound URL; resolves when the process is stopped. */
  http(handler: McpHttpHandler, host: string, port: number, listening: (url: string) => void): Promise<void>;
  env(name: string): string | undefined;
}
