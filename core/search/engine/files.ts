// `rg --files`: the walk, then ripgrep's ordering (rules W5/W6).
import { compareUtf8, type FileSystem } from "../../fs/mod.ts";
import type { FilesRequest, ResultSink } from "../backend.ts";
import { type Budget, deliver, keepPace } from "./budget.ts";
import { utf8Length } from "./text.ts";
import { walk } from "./walk.ts";

// Sorted paths go to the sink in batches of this many between backpressure checks.
const BATCH = 1024;

/** Hands the listing to `sink`: during the walk when unsorted or in walk order, after it when sorted. */
export async function listFiles(fs: FileSystem, request: FilesRequest, budget: Budget, problems: string[], sink: ResultSink<string>): Promise<void> {
  const sort = request.sort;
  // ripgrep's path sort is the walk's own order; only the reverse needs the whole list.
  if (sort === undefined || (sort.by === "path" && !sort.reverse)) {
    let n = 0;
    await walk(fs, request, budget, problems, async (file) => {
      budget.spend(utf8Length(file.path) + 1);
      deliver(sink, file.path);
      if (++n % BATCH === 0) await keepPace(sink);
    });
    return;
  }
  // Like ripgrep, a sorted listing is known only once the walk is over.
  const found: { path: string; mtimeMs: number }[] = [];
  await walk(fs, request, budget, problems, (file) => {
    budget.spend(utf8Length(file.path) + 1);
    found.push({ path: file.path, mtimeMs: file.mtimeMs });
  });
  if (sort.by === "modified") {
    // Stable, so ties keep the walk order (names in byte order), in both directions.
    const sign = sort.reverse ? -1 : 1;
    found.sort((a, b) => sign * (a.mtimeMs - b.mtimeMs));
  } else {
    found.sort((a, b) => comparePaths(b.path, a.path));
  }
  for (let i = 0; i < found.length; i++) {
    deliver(sink, (found[i] as { path: string }).path);
    if ((i + 1) % BATCH === 0) await keepPace(sink);
  }
}

/**
 * Rust's Path ordering, which is ripgrep's `--sort path` and the walk's own order: component by component, a
 * leading `/` or `.` before any name, names by bytes.
 */
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
