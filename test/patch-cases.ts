// Random files and random edits to them, rendered as apply_patch hunks with just enough context to be
// unique, for the property test and the comparison with git apply. Seeded: a failure names its seed.

export interface PatchCase {
  readonly seed: number;
  readonly original: string;
  /** The original with the edits applied, written as the file writes its lines. */
  readonly expected: string;
  /** The `*** Update File` body: hunks only, one line each. */
  readonly body: readonly string[];
}

export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = ["}", "", "  return x;", "{", "// comment", "    pass"];

interface Region {
  readonly start: number;
  readonly removed: number;
  readonly added: readonly string[];
}

/** A case, or undefined when no unique rendering was found for some edit (the caller draws another). */
export function patchCase(seed: number): PatchCase | undefined {
  const rnd = random(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const line = () => (rnd() < 0.3 ? (COMMON[int(COMMON.length)] as string) : `${" ".repeat(int(3) * 2)}let v${int(500)} = "${int(50)}\u2019";`);
  const n = int(40);
  const lines = Array.from({ length: n }, line);
  const eol = rnd() < 0.3 ? "\r\n" : "\n";
  const finalNewline = n === 0 || rnd() < 0.8;
  const bom = rnd() < 0.15 ? "\ufeff" : "";
  // Without a final newline, an empty last line would be no line at all.
  if (!finalNewline && lines.at(-1) === "") lines[n - 1] = "last";

  const regions: Region[] = [];
  for (let at = int(4); at <= n && regions.length < 5; at += 2 + int(8)) {
    const removed = Math.min(int(4), n - at);
    const added = Array.from({ length: int(4) }, () => `new ${int(10_000)}`);
    if (removed === 0 && added.length === 0) continue;
    regions.push({ start: at, removed, added });
    at += removed;
  }
  if (regions.length === 0) return undefined;

  const after: string[] = [];
  let read = 0;
  for (const r of regions) {
    after.push(...lines.slice(read, r.start), ...r.added);
    read = r.start + r.removed;
  }
  after.push(...lines.slice(read));
  const write = (ls: readonly string[]) => bom + (ls.length === 0 ? "" : ls.join(eol) + (finalNewline ? eol : ""));

  const body: string[] = [];
  let cursor = 0;
  for (const [i, r] of regions.entries()) {
    const limit = i + 1 < regions.length ? (regions[i + 1] as Region).start : n;
    const atEnd = r.start + r.removed === n;
    let lead = Math.min(1 + int(3), r.start - cursor);
    let trail = Math.min(1 + int(3), limit - r.start - r.removed);
    const old = () => lines.slice(r.start - lead, r.start + r.removed + trail);
    const eof = () => atEnd && trail === 0 && rnd() < 0.5;
    const unique = () => {
      const block = old();
      if (block.length === 0) return r.start === n; // an insertion with no context goes at the end
      let count = 0;
      for (let s = cursor; s + block.length <= n; s++) if (block.every((l, k) => lines[s + k] === l)) count++;
      return count === 1;
    };
    while (!unique()) {
      if (lead < r.start - cursor) lead++;
      else if (trail < limit - r.start - r.removed) trail++;
      else return undefined;
    }
    body.push("@@");
    for (const l of lines.slice(r.start - lead, r.start)) body.push(` ${l}`);
    for (const l of lines.slice(r.start, r.start + r.removed)) body.push(`-${l}`);
    for (const l of r.added) body.push(`+${l}`);
    for (const l of lines.slice(r.start + r.removed, r.start + r.removed + trail)) body.push(` ${l}`);
    if (eof()) body.push("*** End of File");
    cursor = r.start + r.removed + trail;
  }
  return { seed, original: write(lines), expected: write(after), body };
}
