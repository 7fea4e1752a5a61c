// Literal strings a match must contain, so the grep loop can skip to lines holding one of them with a fast
// byte search instead of running the regex on every line (ripgrep does the same with its inner literals).
import { encodeUtf8 } from "../../../text/mod.ts";
import type { Node } from "./ast.ts";

const MAX_SET = 16;

/**
 * Strings one of which occurs in every match, or undefined when no useful set is known. Case-insensitive
 * letters end a literal: their variants are not enumerated.
 */
export function requiredLiterals(node: Node): string[] | undefined {
  const found = required(node);
  return found?.every((s) => s !== "") ? found : undefined;
}

/**
 * The string the pattern is, when it is nothing but literal characters (no classes, no assertions, no
 * case folding): every occurrence is then a match, and the regex need not run.
 */
export function plainLiteral(node: Node): string | undefined {
  switch (node.kind) {
    case "literal":
      return node.fold ? undefined : String.fromCodePoint(node.cp);
    case "group":
      return plainLiteral(node.node);
    case "concat": {
      let out = "";
      for (const child of node.nodes) {
        const part = plainLiteral(child);
        if (part === undefined) return undefined;
        out += part;
      }
      return out;
    }
    default:
      return undefined;
  }
}

// The strings a node matches exactly (it matches one of them and nothing else), when few.
function exact(node: Node): string[] | undefined {
  switch (node.kind) {
    case "empty":
    case "assertion":
      return [""];
    case "literal":
      return isFixed(node) ? [String.fromCodePoint(node.cp)] : undefined;
    case "group":
      return exact(node.node);
    case "concat": {
      let out: string[] = [""];
      for (const child of node.nodes) {
        const set = exact(child);
        if (!set) return undefined;
        out = cross(out, set);
        if (out.length > MAX_SET) return undefined;
      }
      return out;
    }
    case "alternation": {
      const out = new Set<string>();
      for (const child of node.nodes) {
        const set = exact(child);
        if (!set) return undefined;
        for (const s of set) out.add(s);
      }
      return out.size > MAX_SET ? undefined : [...out];
    }
    case "repeat":
      if (node.min === node.max && node.min <= 4) {
        const set = exact(node.node);
        if (!set) return undefined;
        let out: string[] = [""];
        for (let i = 0; i < node.min; i++) out = cross(out, set);
        return out.length > MAX_SET ? undefined : out;
      }
      return undefined;
    default:
      return undefined;
  }
}

function required(node: Node): string[] | undefined {
  switch (node.kind) {
    case "group":
      return required(node.node);
    case "repeat":
      return node.min >= 1 ? required(node.node) : undefined;
    case "alternation": {
      const out = new Set<string>();
      for (const child of node.nodes) {
        const set = required(child);
        if (!set) return undefined;
        for (const s of set) out.add(s);
      }
      return out.size > MAX_SET ? undefined : [...out];
    }
    case "concat": {
      // Runs of exact children concatenate into longer literals; any other child contributes what it
      // requires on its own. The best candidate has the longest shortest string.
      const candidates: string[][] = [];
      let run: string[] = [""];
      const close = () => {
        if (run.some((s) => s !== "")) candidates.push(run);
        run = [""];
      };
      for (const child of node.nodes) {
        const set = exact(child);
        if (set) {
          const joined = cross(run, set);
          if (joined.length <= MAX_SET) {
            run = joined;
            continue;
          }
        }
        close();
        if (set) run = set;
        else {
          const inner = required(child);
          if (inner) candidates.push(inner);
        }
      }
      close();
      return best(candidates);
    }
    default: {
      const set = exact(node);
      return set?.every((s) => s !== "") ? set : undefined;
    }
  }
}

function isFixed(node: Extract<Node, { kind: "literal" }>): boolean {
  if (!node.fold) return true;
  // ASCII characters without case; anything else may have case variants.
  return node.cp < 0x80 && !/[A-Za-z]/.test(String.fromCharCode(node.cp));
}

function cross(a: readonly string[], b: readonly string[]): string[] {
  const out = new Set<string>();
  for (const x of a) for (const y of b) out.add(x + y);
  return [...out];
}

function best(candidates: string[][]): string[] | undefined {
  let pick: string[] | undefined;
  let score = -1;
  for (const set of candidates) {
    if (set.some((s) => s === "")) continue;
    const shortest = Math.min(...set.map((s) => encodeUtf8(s).length));
    const value = shortest * 100 - set.length;
    if (value > score) {
      score = value;
      pick = set;
    }
  }
  return pick;
}
