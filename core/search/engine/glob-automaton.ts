// The glob automaton: a parsed glob's tokens become a small program (a Thompson NFA over bytes) that is run
// as a lazily built DFA, as globset's regex engine does, so matching is linear in the path length whatever
// the glob (a backtracking RegExp needed exponential time for `*a*a*a*a*a*a*a*a*a*a*c`, docs/notes/0014).
import { encodeUtf8 } from "../../text/mod.ts";
import { literalEnds, minLength, sequenceShape, type Token } from "./glob-tokens.ts";

/** A compiled glob. */
export interface GlobMatcher {
  /** True when the whole byte string `path` matches. Linear in its length. */
  test(path: string): boolean;
}

// Instructions: BYTE (consume a byte of a set, go on), SPLIT (go both ways), MATCH. The
// program is built from the last token to the first, each token given the instruction that follows it, so
// loops and alternatives need no patching beyond the loop head. The DFA is built lazily, a state per set of
// NFA states reached, with its transitions cached per byte class; past a cap the cache is dropped and built
// again, so memory stays bounded and each path still costs at most its length times the program size.

const K_BYTE = 0;
const K_SPLIT = 1;
const K_MATCH = 2;

/** DFA states kept before the cache is cleared. */
const MAX_DFA_STATES = 4096;

let totalSteps = 0;

/**
 * Work done by every glob matcher so far, in steps: an NFA state visited while building a DFA state, or a
 * cached transition taken. The walk reads it to pace itself; tests read it to bound the work a match takes.
 */
export function globSteps(): number {
  return totalSteps;
}

const SLASH = 0x2f;

export class GlobAutomaton implements GlobMatcher {
  readonly #kind: number[] = [];
  readonly #a: number[] = [];
  readonly #b: number[] = [];
  readonly #set: number[] = [];
  readonly #fold: boolean;
  // Distinct byte sets, each 256 flags, deduplicated by content.
  readonly #sets: Uint8Array[] = [];
  readonly #setIds = new Map<string, number>();
  readonly #names = new Map<string, number>();
  readonly #minLength: number;
  // Bytes every match starts or ends with (as byte strings), checked before the automaton runs.
  readonly #prefix: string;
  readonly #suffix: string;
  // Filled by #finish.
  #classOf = new Uint8Array(256);
  #classes = 0;
  /** accepts[setId * classes + class]. */
  #accepts = new Uint8Array(0);
  #start = 0;
  // Closure scratch.
  #mark = new Int32Array(0);
  #stamp = 0;
  #stack: number[] = [];
  // The DFA: the NFA states (BYTE ones) of each state, whether it matches, and its transitions (0: not built
  // yet; otherwise the target's index + 1).
  #dfaStates: Int32Array[] = [];
  #dfaMatch: boolean[] = [];
  #dfaIds = new Map<string, number>();
  #trans = new Int32Array(0);
  #dfaStart = 0;
  /** The state with no way forward and no match, once it exists. */
  #dead = -1;

  constructor(tokens: readonly Token[], fold: boolean, everything: boolean) {
    this.#fold = fold;
    const match = this.#inst(K_MATCH, 0, 0, 0);
    const any = this.#named("any", () => true);
    this.#start = everything ? this.#loop(any, match) : this.#sequence(tokens, match);
    this.#minLength = everything ? 0 : minLength(tokens);
    const [prefix, suffix] = everything || fold ? ["", ""] : literalEnds(tokens);
    this.#prefix = prefix;
    this.#suffix = suffix;
    this.#finish();
  }

  test(path: string): boolean {
    if (path.length < this.#minLength) return false;
    if (this.#prefix !== "" && !path.startsWith(this.#prefix)) return false;
    if (this.#suffix !== "" && !path.endsWith(this.#suffix)) return false;
    const classOf = this.#classOf;
    const k = this.#classes;
    let trans = this.#trans;
    let state = this.#dfaStart;
    let i = 0;
    for (; i < path.length; i++) {
      const c = classOf[path.charCodeAt(i) & 0xff] as number;
      let next = (trans[state * k + c] as number) - 1;
      if (next < 0) {
        // #step may grow the table or clear the cache (renumbering every state); its answer is valid either way.
        next = this.#step(state, c);
        trans = this.#trans;
      }
      state = next;
      if (state === this.#dead) break;
    }
    totalSteps += i;
    return i === path.length && (this.#dfaMatch[state] as boolean);
  }

  #inst(kind: number, a: number, b: number, set: number): number {
    this.#kind.push(kind);
    this.#a.push(a);
    this.#b.push(b);
    this.#set.push(set);
    return this.#kind.length - 1;
  }

  /** A byte set by a short name, so the common ones are built once per glob. */
  #named(name: string, member: (byte: number) => boolean): number {
    let id = this.#names.get(name);
    if (id === undefined) {
      id = this.#byteSet(member);
      this.#names.set(name, id);
    }
    return id;
  }

  #byteSet(member: (byte: number) => boolean): number {
    const flags = new Uint8Array(256);
    for (let byte = 0; byte < 256; byte++) if (member(byte)) flags[byte] = 1;
    const key = flags.join("");
    let id = this.#setIds.get(key);
    if (id === undefined) {
      id = this.#sets.length;
      this.#sets.push(flags);
      this.#setIds.set(key, id);
    }
    return id;
  }

  #byte(set: number, next: number): number {
    return this.#inst(K_BYTE, next, 0, set);
  }

  /** `set*` then `next`: a SPLIT whose first way consumes one byte and comes back. */
  #loop(set: number, next: number): number {
    const head = this.#inst(K_SPLIT, 0, next, 0);
    this.#a[head] = this.#byte(set, head);
    return head;
  }

  #literalByte(byte: number): number {
    const letter = (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
    if (this.#fold && letter) return this.#named(`fold ${byte | 0x20}`, (b) => (b | 0x20) === (byte | 0x20));
    return this.#named(`byte ${byte}`, (b) => b === byte);
  }

  #sequence(tokens: readonly Token[], next: number): number {
    for (let i = tokens.length - 1; i >= 0; i--) next = this.#token(tokens[i] as Token, next);
    return next;
  }

  #token(token: Token, next: number): number {
    const notSlash = () => this.#named("not slash", (b) => b !== SLASH);
    const any = () => this.#named("any", () => true);
    const slash = () => this.#named(`byte ${SLASH}`, (b) => b === SLASH);
    switch (token.kind) {
      case "literal": {
        const bytes = encodeUtf8(token.char);
        for (let i = bytes.length - 1; i >= 0; i--) next = this.#byte(this.#literalByte(bytes[i] as number), next);
        return next;
      }
      case "any":
        return this.#byte(notSlash(), next);
      case "star":
        return this.#loop(notSlash(), next);
      case "recursivePrefix": {
        // (?:/?|.*/)
        const slashThen = this.#byte(slash(), next);
        return this.#inst(K_SPLIT, this.#inst(K_SPLIT, slashThen, next, 0), this.#loop(any(), slashThen), 0);
      }
      case "recursiveSuffix":
        // /.*
        return this.#byte(slash(), this.#loop(any(), next));
      case "recursiveMiddle": {
        // (?:/|/.*/)
        const slashThen = this.#byte(slash(), next);
        return this.#inst(K_SPLIT, slashThen, this.#byte(slash(), this.#loop(any(), slashThen)), 0);
      }
      case "class":
        return this.#byte(this.#classSet(token.negated, token.ranges), next);
      case "alternates": {
        // Empty branches are dropped; a group left with none disappears (rule G4). The nest limit keeps this
        // recursion shallow: every level of a group that writes anything counts against it.
        if (token.shape.items === 0) return next;
        let entry = -1;
        for (let i = token.branches.length - 1; i >= 0; i--) {
          const branch = token.branches[i] as Token[];
          if (sequenceShape(branch).items === 0) continue;
          const start = this.#sequence(branch, next);
          entry = entry === -1 ? start : this.#inst(K_SPLIT, start, entry, 0);
        }
        return entry;
      }
    }
  }

  // Each member contributes its UTF-8 bytes; a range spans from the last byte of its start to the first byte
  // of its end, with the other bytes of both ends as single members, the way globset writes a byte class.
  #classSet(negated: boolean, ranges: readonly (readonly [string, string])[]): number {
    const members = new Uint8Array(256);
    const add = (lo: number, hi: number) => {
      for (let b = lo; b <= hi; b++) members[b] = 1;
    };
    for (const [start, end] of ranges) {
      const a = encodeUtf8(start);
      const b = encodeUtf8(end);
      if (start === end) {
        for (const byte of a) add(byte, byte);
        continue;
      }
      for (let i = 0; i < a.length - 1; i++) add(a[i] as number, a[i] as number);
      add(a[a.length - 1] as number, b[0] as number);
      for (let i = 1; i < b.length; i++) add(b[i] as number, b[i] as number);
    }
    if (this.#fold) {
      for (let byte = 0; byte < 128; byte++) {
        const letter = (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
        if (members[byte] && letter) members[byte ^ 0x20] = 1;
      }
    }
    return this.#byteSet((byte) => (members[byte] === 1) !== negated);
  }

  // Bytes that every set treats alike share a class, so the DFA's rows are a few entries wide.
  #finish(): void {
    const signatures = new Map<string, number>();
    for (let byte = 0; byte < 256; byte++) {
      let signature = "";
      for (const set of this.#sets) signature += set[byte] as number;
      let id = signatures.get(signature);
      if (id === undefined) {
        id = signatures.size;
        signatures.set(signature, id);
      }
      this.#classOf[byte] = id;
    }
    this.#classes = signatures.size;
    this.#accepts = new Uint8Array(this.#sets.length * this.#classes);
    this.#sets.forEach((set, id) => {
      for (let byte = 0; byte < 256; byte++) if (set[byte]) this.#accepts[id * this.#classes + (this.#classOf[byte] as number)] = 1;
    });
    this.#mark = new Int32Array(this.#kind.length);
    this.#resetDfa();
  }

  #resetDfa(): void {
    this.#dfaStates = [];
    this.#dfaMatch = [];
    this.#dfaIds = new Map();
    this.#trans = new Int32Array(64 * this.#classes);
    this.#dead = -1;
    this.#dfaStart = this.#dfaState([this.#start]);
  }

  /** The DFA state for the closure of `seeds`, made if new. */
  #dfaState(seeds: readonly number[]): number {
    const stamp = ++this.#stamp;
    const mark = this.#mark;
    const stack = this.#stack;
    const found: number[] = [];
    let matches = false;
    let steps = 0;
    for (let i = seeds.length - 1; i >= 0; i--) stack.push(seeds[i] as number);
    while (stack.length > 0) {
      const s = stack.pop() as number;
      if (mark[s] === stamp) continue;
      mark[s] = stamp;
      steps++;
      const kind = this.#kind[s];
      if (kind === K_BYTE) found.push(s);
      else if (kind === K_MATCH) matches = true;
      else {
        stack.push(this.#b[s] as number);
        stack.push(this.#a[s] as number);
      }
    }
    totalSteps += steps;
    found.sort((x, y) => x - y);
    const key = `${matches ? "m" : ""}${found.join(",")}`;
    const known = this.#dfaIds.get(key);
    if (known !== undefined) return known;
    const id = this.#dfaStates.length;
    this.#dfaStates.push(Int32Array.from(found));
    this.#dfaMatch.push(matches);
    this.#dfaIds.set(key, id);
    if (found.length === 0 && !matches) this.#dead = id;
    if ((id + 1) * this.#classes > this.#trans.length) {
      const grown = new Int32Array(this.#trans.length * 2);
      grown.set(this.#trans);
      this.#trans = grown;
    }
    return id;
  }

  /** Builds and caches the transition of DFA state `state` on byte class `c`; returns the target. */
  #step(state: number, c: number): number {
    const from = this.#dfaStates[state] as Int32Array;
    const seeds: number[] = [];
    const k = this.#classes;
    for (const s of from) if (this.#accepts[(this.#set[s] as number) * k + c]) seeds.push(this.#a[s] as number);
    totalSteps += from.length;
    if (this.#dfaStates.length >= MAX_DFA_STATES) {
      this.#resetDfa();
      return this.#dfaState(seeds);
    }
    const target = this.#dfaState(seeds);
    this.#trans[state * k + c] = target + 1;
    return target;
  }
}
