// The change set of an overlay, computed from states of its upper (docs/notes/0015): files created, modified,
// deleted and renamed, and folders created empty or deleted; and the steps between two states (a checkpoint and
// now). A file moved from the base is `renamed` while the base name it came from is still deleted in the
// overlay; otherwise (the old name was written again) the moved file is a copy, `created`.
import type { FsTargetKey } from "../types.ts";
import type { OverlayChange } from "./types.ts";
import { filesOf, type OverlayOrigin, type OverlaySnapshot, type OverlaySource } from "./upper.ts";
import { parentPath } from "../paths.ts";

const ABSENT: OverlayOrigin = { kind: "absent" };

/** Turns a canonical key into a change's display path. */
export type Namer = (key: string) => string;

/** The source of a moved file that still counts as a rename: its base name is deleted in the overlay. */
export function activeSource(state: OverlaySnapshot, key: string): OverlaySource | undefined {
  const source = state.sources.get(key);
  return source && state.nodes.get(source.key)?.type === "whiteout" ? source : undefined;
}

/** Every change of a state of the upper against the base, in key order. */
export function changesOf(state: OverlaySnapshot, name: Namer): OverlayChange[] {
  const out: OverlayChange[] = [];
  const renamed = new Set<string>();
  for (const [key, node] of filesOf(state.nodes)) {
    const source = activeSource(state, key);
    if (source) renamed.add(source.key);
    out.push(fileChange(key, state.origins.get(key) ?? ABSENT, node.bytes.length, source, name));
  }
  // Folders that hold something of the upper's are not changes of their own: the files make them.
  const holding = new Set<string>();
  for (const [key, node] of state.nodes) {
    if (node.type === "whiteout") continue;
    for (let dir = parentPath(key); dir !== "/" && !holding.has(dir); dir = parentPath(dir)) holding.add(dir);
  }
  for (const [key, node] of state.nodes) {
    const origin = state.origins.get(key);
    if (node.type === "whiteout") {
      if (origin?.kind === "directory") out.push(change(key, "deleted", 0, name, { type: "directory" }));
      else if (origin?.kind === "symlink") out.push(change(key, "deleted", 0, name));
      else if (origin?.kind === "file" && !renamed.has(key)) out.push(change(key, "deleted", 0, name, { baseVersion: origin.version }));
    } else if (node.type === "directory" && origin !== undefined) {
      // A folder made over a deleted base file deletes that file.
      if (origin.kind === "file") out.push(change(key, "deleted", 0, name, { baseVersion: origin.version }));
      if (origin.kind === "symlink") out.push(change(key, "deleted", 0, name));
      if (origin.kind !== "directory" && !holding.has(key)) out.push(change(key, "created", 0, name, { type: "directory" }));
    }
  }
  return out.sort(byKey);
}

/** One file that differs between two states of the upper, with its bytes in each where the upper holds them. */
export interface OverlayStep {
  readonly change: OverlayChange;
  readonly origin: OverlayOrigin;
  /** The file before: the upper's bytes, "base" where the base showed through, undefined where there was none. */
  readonly before: Uint8Array | "base" | undefined;
  readonly after: Uint8Array | "base" | undefined;
  /** For a rename since then: the key it had then. */
  readonly fromKey?: string;
}

/** The files that differ between two states of the upper, in key order; a rename since then is one step. */
export function stepsBetween(then: OverlaySnapshot, now: OverlaySnapshot, name: Namer): OverlayStep[] {
  const keys = new Set<string>();
  for (const state of [then, now]) for (const [key, node] of state.nodes) if (node.type !== "directory") keys.add(key);
  const originOf = (key: string) => now.origins.get(key) ?? then.origins.get(key);
  const at = (state: OverlaySnapshot, key: string) => contentIn(state, key, originOf(key));
  const renamedFrom = new Map<string, string>();
  for (const key of keys) {
    const source = activeSource(now, key);
    if (source && !sameSource(activeSource(then, key), source) && at(then, source.key) !== undefined && at(then, key) === undefined) {
      renamedFrom.set(source.key, key);
    }
  }
  const out: OverlayStep[] = [];
  for (const key of [...keys].sort(byCodeUnit)) {
    if (renamedFrom.has(key)) continue;
    const before = at(then, key);
    const after = at(now, key);
    if (before === after) continue;
    const origin = now.origins.get(key) ?? then.origins.get(key) ?? ABSENT;
    const source = [...renamedFrom].find(([, to]) => to === key)?.[0];
    if (source !== undefined) {
      const from = at(then, source);
      const sourced = activeSource(now, key) as OverlaySource;
      out.push({ change: fileChange(key, origin, size(after), sourced, name), origin, before: from, after, fromKey: source });
      continue;
    }
    const status = before !== undefined && after !== undefined ? "modified" : after !== undefined ? "created" : "deleted";
    out.push({
      change: change(key, status, size(after), name, origin.kind === "file" ? { baseVersion: origin.version } : {}),
      origin,
      before,
      after,
    });
  }
  return out;
}

// What a state shows at a key: the upper's bytes, "base" where the base's file shows through, or undefined for
// nothing. Whether the base has a file there is what the overlay recorded when it first changed the key.
function contentIn(state: OverlaySnapshot, key: string, origin: OverlayOrigin | undefined): Uint8Array | "base" | undefined {
  const node = state.nodes.get(key);
  if (node) return node.type === "file" ? node.bytes : undefined;
  for (let dir = parentPath(key); ; dir = parentPath(dir)) {
    const above = state.nodes.get(dir);
    if (above?.type === "file" || above?.type === "whiteout" || (above?.type === "directory" && above.opaque)) return undefined;
    if (dir === "/") return origin?.kind === "file" ? "base" : undefined;
  }
}

function size(content: Uint8Array | "base" | undefined): number {
  return content instanceof Uint8Array ? content.length : 0;
}

function sameSource(a: OverlaySource | undefined, b: OverlaySource): boolean {
  return a !== undefined && a.key === b.key && a.version === b.version;
}

function fileChange(key: string, origin: OverlayOrigin, bytes: number, source: OverlaySource | undefined, name: Namer): OverlayChange {
  if (source) return change(key, "renamed", bytes, name, { baseVersion: source.version, from: name(source.key), fromKey: source.key as FsTargetKey });
  return change(key, origin.kind === "file" ? "modified" : "created", bytes, name, origin.kind === "file" ? { baseVersion: origin.version } : {});
}

function change(key: string, status: OverlayChange["status"], bytes: number, name: Namer, extra: Partial<OverlayChange> = {}): OverlayChange {
  return { path: name(key), key: key as FsTargetKey, status, ...extra, size: bytes };
}

function byKey(a: OverlayChange, b: OverlayChange): number {
  return byCodeUnit(a.key, b.key) || (a.type === b.type ? 0 : a.type === "directory" ? 1 : -1);
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
