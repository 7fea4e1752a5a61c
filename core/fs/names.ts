// Names of the transient files publication leaves beside a destination: staged copies and lock files. They
// are hidden, end in `.toolfs-tmp` or `.toolfs-lock`, and fit the 255-byte name limit of POSIX filesystems
// whatever the destination's name, which is cut by bytes on a character boundary.
import { completeUtf8Prefix, encodeUtf8 } from "../text/utf8.ts";

const decoder = new TextDecoder();

/** Bytes of the destination's name kept in a staged name: room is left for the owner and a random part. */
const STAGED_NAME_BYTES = 200;
const STAGED_SUFFIX = ".toolfs-tmp";
const LOCK_SUFFIX = ".toolfs-lock";
const MAX_NAME_BYTES = 255;

/** The longest prefix of `name` that is at most `maxBytes` UTF-8 bytes and does not split a character. */
export function cutName(name: string, maxBytes: number): string {
  const bytes = encodeUtf8(name);
  if (bytes.length <= maxBytes) return name;
  return decoder.decode(bytes.subarray(0, completeUtf8Prefix(bytes, maxBytes)));
}

/**
 * Who staged a file, as written into its name: a process id and a hash of the host name, so that a later
 * writer on the same host can tell a dead writer's leftovers from a live writer's work in progress.
 */
export interface StagingOwner {
  readonly pid: number;
  /** Eight hex digits; `undefined` when the host is unknown. */
  readonly host: string | undefined;
}

/** A fresh name for staging the next bytes of `name` in the same directory. */
export function stagingName(name: string, owner: StagingOwner | undefined): string {
  const tag = owner ? `${owner.pid}-${owner.host ?? "0"}` : "0-0";
  return `.${cutName(name, STAGED_NAME_BYTES)}.${tag}.${randomHex(6)}${STAGED_SUFFIX}`;
}

/** The lock file that serializes publications of `name` across processes. */
export function lockName(name: string): string {
  return `.${cutName(name, MAX_NAME_BYTES - 1 - LOCK_SUFFIX.length)}${LOCK_SUFFIX}`;
}

const STAGED = /\.(\d+)-([0-9a-f]{8}|0)\.[0-9a-f]{12}\.toolfs-tmp$/;
// The staging names of earlier versions carried no owner.
const LEGACY_STAGED = /^\..+\.[0-9a-f]{12}\.toolfs-tmp$/;

/** What a directory entry's name says about it: a staged file (with its owner when named), a lock file, or neither. */
export function classifyName(name: string): { kind: "staged"; owner: StagingOwner | undefined } | { kind: "lock" } | undefined {
  if (!name.startsWith(".")) return undefined;
  if (name.endsWith(LOCK_SUFFIX)) return { kind: "lock" };
  if (!name.endsWith(STAGED_SUFFIX)) return undefined;
  const m = STAGED.exec(name);
  if (m) return { kind: "staged", owner: { pid: Number(m[1]), host: m[2] === "0" ? undefined : m[2] } };
  return LEGACY_STAGED.test(name) ? { kind: "staged", owner: undefined } : undefined;
}

/** Eight hex digits identifying a host name (FNV-1a over its UTF-8 bytes). */
export function hostTag(host: string | undefined): string | undefined {
  if (host === undefined || host === "") return undefined;
  let h = 0x811c9dc5;
  for (const byte of encodeUtf8(host)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}
