// `rg --files`: the walk, then ripgrep's ordering (rules W5/W6).
import { compareUtf8, type FileSystem } from "../../fs/mod.ts";
import type { FilesRequest, FilesResult } from "../backend.ts";
import type { Budget } from "./budget.ts";
import { utf8Length } from "./text.ts";
import { walk, type WalkedFile } from "./walk.ts";

export async function listFiles(fs: FileSystem, request: FilesRequest, budget: Budget): Promise<FilesResult> {
  const found: WalkedFile[] = [];
  const problems: string[] = [];
  await walk(fs, request, budget, problems, (file) => {
    budget.spend(utf8Length(file.path) + 1);
    found.push(file);
  });
  const sort = request.sort;
  if (sort?.by === "modified") {
    // Stable, so ties keep the walk order (names in byte order), in both directions.
    const sign = sort.reverse ? -1 : 1;
    found.sort((a, b) => sign * (a.mtimeMs - b.mtimeMs));
  } else if (sort?.by === "path" && sort.reverse) {
    found.sort((a, b) => comparePaths(b.path, a.path));
  }
  return { paths: found.map((f) => f.path), problems };
}

// Rust's Path ordering: component by component, a leading `/` or `.` before any name, names by bytes.
export function comparePaths(a: string, b: string): number {
  const x = components(a);
  const y = components(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const c = compareComponent(x[i] as string, y[i] as string);
    if (c !== 0) return c;
  }
  return x.length - y.length;
}

const ROOT = "\u0000/";
const CUR = "\u0000.";
const PARENT = "\u0000..";

function components(path: string): string[] {
  const out: string[] = [];
  if (path.startsWith("/")) out.push(ROOT);
  const parts = path.split("/");
  parts.forEach((part, i) => {
    if (part === "") return;
    if (part === ".") {
      if (i === 0) out.push(CUR);
      return;
    }
    out.push(part === ".." ? PARENT : part);
  });
  return out;
}

const RANK: Record<string, number> = { [ROOT]: 0, [CUR]: 1, [PARENT]: 2 };

function compareComponent(a: string, b: string): number {
  const ra = RANK[a] ?? 3;
  const rb = RANK[b] ?? 3;
  if (ra !== rb || ra !== 3) return ra - rb;
  return compareUtf8(a, b);
}
