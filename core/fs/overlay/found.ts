// An entry of the overlay's merged view, as the driver finds it and its deletions and moves act on it.
import type { FsPathInfo } from "../types.ts";
import type { OverlayVisibleNode } from "./upper.ts";

/** Where a path is in the merged view, its last segment not followed. */
export type OverlayFound =
  | { readonly layer: "upper"; readonly key: string; readonly node: OverlayVisibleNode }
  | { readonly layer: "base"; readonly key: string; readonly info: FsPathInfo };

export function kind(found: OverlayFound): "file" | "directory" | "symlink" | "other" {
  return found.layer === "upper" ? found.node.type : found.info.type;
}
