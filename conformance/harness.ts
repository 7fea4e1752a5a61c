import type { FileSystem, SearchBackend } from "../core/mod.ts";

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
}

/** One fresh, isolated backend for one case. */
export interface Subject {
  readonly provider: FileSystem;
  readonly probe: Probe;
  /** The search backend serving this provider's tree, when the subject has one. */
  readonly search?: SearchBackend;
  dispose(): Promise<void>;
}

/** Builds a fresh subject; called once per case. */
export type CreateSubject = () => Promise<Subject>;
