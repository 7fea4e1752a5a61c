import type { FileSystem, SearchBackend, ShellConfinement } from "../core/mod.ts";

/**
 * The runner the suite registers its cases with. vitest's and node:test's `test`, and
 * a one-line wrapper around Deno's test registration (see the README), all fit `test` as they are.
 */
export interface Harness {
  test(name: string, fn: () => Promise<void>): void;
  /** Registers a case that does not apply to this subject, with the reason. Optional. */
  skip?(name: string, reason: string): void;
}

/** What the probe reports about a path, read without the adapter under test. */
export interface ProbeInfo {
  readonly type: "file" | "directory" | "symlink" | "other";
  readonly size: number;
  readonly mtimeMs: number;
  /** Permission bits (low nine bits). */
  readonly mode: number;
  /** The owning user's id, where the storage has owners. */
  readonly owner?: number;
}

/**
 * Seeds and inspects the subject's storage directly, independently of the provider under test. Paths are
 * absolute, or relative to `root`.
 */
export interface Probe {
  /** Canonical absolute path of an empty workspace directory; the provider's cwd. */
  readonly root: string;
  /** Canonical absolute path of an empty directory outside `root`. */
  readonly outside: string;
  writeFile(path: string, content: string | Uint8Array): Promise<void>;
  readFile(path: string): Promise<Uint8Array | undefined>;
  mkdir(path: string): Promise<void>;
  symlink(linkTarget: string, path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** Entry names of a directory, sorted. */
  list(path: string): Promise<string[]>;
  /** lstat: the entry itself, not what a symlink points to. */
  info(path: string): Promise<ProbeInfo | undefined>;
  setMtime(path: string, mtimeMs: number): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  /**
   * Gives the entry to user `uid`, where the storage has owners; rejects where only a privileged user may
   * (a disk when not run as root), and the case that needs it then has nothing to check.
   */
  chown?(path: string, uid: number): Promise<void>;
}

/** One fresh, isolated backend for one case. */
export interface Subject {
  readonly provider: FileSystem;
  readonly probe: Probe;
  /** The search backend serving this provider's tree, when the subject has one. */
  readonly search?: SearchBackend;
  /**
   * The OS confinement a host of this runtime would give the toolkit (`detectBubblewrap`), when the subject
   * can tell; the race group searches inside it, and says why it cannot when it is unavailable.
   */
  readonly confinement?: ShellConfinement;
  /** Competitors for the race group; each case that needs a hook skips a subject without it. */
  readonly races?: RaceHooks;
  /**
   * For an overlay subject (the provider is an OverlayFileSystem): a probe of the base alone, as another
   * writer of the base sees it. The overlay group needs it; other cases use `probe`, which sees the merged view.
   */
  readonly baseProbe?: Probe;
  dispose(): Promise<void>;
}

/**
 * What the race group races the provider against. Every hook works on the subject's own storage; paths are
 * absolute, or relative to the probe's root.
 */
export interface RaceHooks {
  /** A second provider over the same storage, as a second toolkit in the same process would build. */
  sibling?(): Promise<FileSystem>;
  /**
   * Starts exchanging the directory at `dir` with the symlink at `link`, over and over, until stopped: from
   * another process on a disk (`renameat2(RENAME_EXCHANGE)`), or between any two steps of a write in
   * memory. `stop` ends it after an even number of exchanges (so `dir` is the directory again) and returns
   * how many there were.
   */
  swapper?(dir: string, link: string): Promise<{ stop(): Promise<number> }>;
  /** Starts a toolfs writer for `job` in another process, over the same storage, with a provider of the backend under test. */
  spawn?(job: WorkerJob): Promise<RemoteWriter>;
}

/**
 * A job for a writer in another process (run by conformance/worker.ts's `runWorkerJob`).
 * - `append`: after `go`, `rounds` times: read `path`, append the line `<tag> <i>`, publish with
 *   `replaceIfVersion`; then print the indices it reported applied as JSON.
 * - `stall-staging`: stream a write of `path`, print `staged` once the first chunk is staged, then wait forever.
 * - `stall-locked`: write `path`, print `locked` from inside the final fence check (the lock is held), then
 *   wait forever.
 * - `rewrite`: print `writing`, then rewrite `path` with a streamed megabyte, over and over, until killed.
 * - `shuttle`: move the entry at `path` (or at `other`, wherever it is) to the other name and back, over and
 *   over, printing `moving` after the first move, until killed.
 */
export type WorkerJob =
  | { readonly kind: "append"; readonly path: string; readonly tag: string; readonly rounds: number }
  | { readonly kind: "stall-staging"; readonly path: string }
  | { readonly kind: "stall-locked"; readonly path: string }
  | { readonly kind: "rewrite"; readonly path: string }
  | { readonly kind: "shuttle"; readonly path: string; readonly other: string };

/** A writer in another process. */
export interface RemoteWriter {
  /** Resolves when the writer prints `line`; rejects if it exits first. */
  waitFor(line: string): Promise<void>;
  /** Tells a waiting writer to start. */
  go(): void;
  /** The last line the writer printed, once it has exited. */
  result(): Promise<string>;
  /** Kills the writer with SIGKILL and waits until it is gone. */
  kill(): Promise<void>;
}

/** Builds a fresh subject; called once per case. */
export type CreateSubject = () => Promise<Subject>;
