// A parsed glob's tokens, and what the compiler and the parser need to know about them: how deep globset's
// regex for them nests (regex-syntax's count, which ripgrep's nest limit applies to), the fewest bytes a
// match needs, and the literal bytes a match starts and ends with.
import { encodeUtf8 } from "../../text/mod.ts";

export type Token =
  | { readonly kind: "literal"; readonly char: string }
  | { readonly kind: "any" }
  | { readonly kind: "star" }
  | { readonly kind: "recursivePrefix" }
  | { readonly kind: "recursiveSuffix" }
  | { readonly kind: "recursiveMiddle" }
  | { readonly kind: "class"; readonly negated: boolean; readonly ranges: readonly (readonly [string, string])[] }
  | Alternates;

/** A brace group; `shape` is how it appears in globset's regex, computed when the group closes. */
export interface Alternates {
  readonly kind: "alternates";
  readonly branches: readonly Token[][];
  readonly shape: Shape;
}

// Nesting, as regex-syntax counts it (its NestLimiter): a bracket class, a repetition, a group, an
// alternation and a concatenation of two or more items each add a level; literals, `.` and anchors do not.
// Each token becomes the items globset writes for it (tokens_to_regex); a brace group's shape is computed
// when it closes, from its branches, so nothing here recurses into nested groups.

export interface Shape {
  /** Regex items the token or sequence writes (0: it writes nothing). */
  readonly items: number;
  /** Deepest level among them, counted from the level that holds them. */
  readonly maxDepth: number;
}

function tokenShape(token: Token): Shape {
  switch (token.kind) {
    case "literal":
      // One literal per UTF-8 byte (`\xC3\xA9` for é).
      return { items: encodeUtf8(token.char).length, maxDepth: 0 };
    case "any": // [^/]
      return { items: 1, maxDepth: 1 };
    case "star": // [^/]*
      return { items: 1, maxDepth: 2 };
    case "recursivePrefix": // (?:/?|.*/)
    case "recursiveMiddle": // (?:/|/.*/)
      return { items: 1, maxDepth: 4 };
    case "recursiveSuffix": // /.*
      return { items: 2, maxDepth: 1 };
    case "class": {
      // Each range is its bytes, the last byte of its start and the first of its end sharing one range item;
      // two or more items make a union inside the brackets.
      let members = 0;
      for (const [a, b] of token.ranges) {
        members += a === b ? encodeUtf8(a).length : encodeUtf8(a).length + encodeUtf8(b).length - 1;
      }
      return { items: 1, maxDepth: members > 1 ? 2 : 1 };
    }
    case "alternates":
      return token.shape;
  }
}

export function sequenceShape(tokens: readonly Token[]): Shape {
  let items = 0;
  let maxDepth = 0;
  for (const token of tokens) {
    const shape = tokenShape(token);
    items += shape.items;
    if (shape.items > 0) maxDepth = Math.max(maxDepth, shape.maxDepth);
  }
  return { items, maxDepth };
}

/** A sequence's depth where it stands alone (a branch): a concatenation adds a level when it has two items. */
function standaloneDepth(shape: Shape): number {
  return shape.items > 1 ? 1 + shape.maxDepth : shape.maxDepth;
}

export function alternates(branches: Token[][]): Alternates {
  // Empty branches are dropped; a group left with none writes nothing (rule G4). Otherwise `(?:a|b)`: a
  // group, an alternation when two or more branches remain, and each branch.
  let parts = 0;
  let deepest = 0;
  for (const branch of branches) {
    const shape = sequenceShape(branch);
    if (shape.items === 0) continue;
    parts++;
    deepest = Math.max(deepest, standaloneDepth(shape));
  }
  const shape: Shape = parts === 0 ? { items: 0, maxDepth: 0 } : { items: 1, maxDepth: 1 + (parts > 1 ? 1 : 0) + deepest };
  return { kind: "alternates", branches, shape };
}

/** Minimum number of bytes a match needs, so that short paths are rejected without running the automaton. */
export function minLength(tokens: readonly Token[]): number {
  let n = 0;
  for (const token of tokens) {
    switch (token.kind) {
      case "literal":
        n += encodeUtf8(token.char).length;
        break;
      case "any":
      case "class":
      case "recursiveSuffix":
      case "recursiveMiddle":
        n += 1;
        break;
      case "alternates": {
        if (token.shape.items === 0) break;
        let least = Number.POSITIVE_INFINITY;
        for (const branch of token.branches) if (sequenceShape(branch).items > 0) least = Math.min(least, minLength(branch));
        n += least;
        break;
      }
      default:
        break;
    }
  }
  return n;
}

/** The literal bytes a match must start and end with, as byte strings (one character per byte). */
export function literalEnds(tokens: readonly Token[]): [string, string] {
  const text = (chars: string[]) => String.fromCharCode(...encodeUtf8(chars.join("")));
  const head: string[] = [];
  for (const token of tokens) {
    if (token.kind !== "literal") break;
    head.push(token.char);
  }
  const tail: string[] = [];
  for (let i = tokens.length - 1; i >= 0 && tokens[i]?.kind === "literal"; i--) tail.unshift((tokens[i] as { char: string }).char);
  // Long literal runs only need a bounded check here; the automaton checks the rest.
  return [text(head.slice(0, 64)), text(tail.slice(-64))];
}
