import { FsError } from "../fs/errors.ts";
import type { FileSystem, FsFence, FsTarget } from "../fs/types.ts";

/** How far writes may reach: nowhere, the workspace and temp roots, or anywhere. */
export type SandboxMode = "read-only" | "workspace-write" | "full-access";

export const SANDBOX_MODES: readonly SandboxMode[] = ["read-only", "workspace-write", "full-access"];

/** True when `mode` allows strictly more than `than`. */
export function isWiderMode(mode: SandboxMode, than: SandboxMode): boolean {
  return SANDBOX_MODES.indexOf(mode) > SANDBOX_MODES.indexOf(than);
}

/** The modes wider than `mode`, narrowest first. */
export function widerModes(mode: SandboxMode): SandboxMode[] {
  return SANDBOX_MODES.filter((m) => isWiderMode(m, mode));
}

/**
 * The access a mode grants, in words for the person asked to approve it: "full access", "workspace-write
 * access" (a bare `${mode} access` would read "full-access access").
 */
export function accessWords(mode: SandboxMode): string {
  return mode === "full-access" ? "full access" : `${mode} access`;
}

/** The line every sandbox refusal starts with, so a model (and a UI) can recognise one. */
export function sandboxMarker(mode: SandboxMode): string {
  return `[sandbox: ${mode}]`;
}

/**
 * A publication fence for one call. It judges the canonical destination the provider hands it (re-resolved
 * right before publication, so symlinks and `..` are already followed) against canonical writable roots,
 * segment by segment (`/ws` does not contain `/ws-evil`).
 */
export function sandboxFence(fs: FileSystem, mode: SandboxMode, roots: readonly FsTarget[]): FsFence {
  return (destination) => {
    if (mode === "full-access") return;
    if (mode === "read-only") throw denied(mode, destination, "writes are not allowed in this session");
    if (!roots.some((root) => fs.contains(root, destination))) {
      throw denied(mode, destination, `it is outside the writable roots (${roots.map((r) => r.key).join(", ")})`);
    }
  };
}

function denied(mode: SandboxMode, destination: FsTarget, why: string): FsError {
  const resolved = destination.key === destination.displayPath ? "" : ` (resolves to "${destination.key}")`;
  return new FsError("FS_SANDBOX_DENIED", `${sandboxMarker(mode)} Cannot write "${destination.displayPath}"${resolved}: ${why}`, {
    details: { path: destination.displayPath, mode, destination: destination.key },
  });
}
