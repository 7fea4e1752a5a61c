// The syntax tree of a ripgrep (Rust regex) pattern, after flags have been applied to every node.

/** Which zero-width test an assertion makes. */
export type AssertionKind =
  | "lineStart" // `^` (ripgrep's default multi-line mode)
  | "textStart" // `\A`, or `^` under (?-m)
  | "textEnd" // `$`, `\z`: the end of the line content
  | "boundary" // `\b`
  | "notBoundary" // `\B`
  | "wordStart" // `\<`, `\b{start}`
  | "wordEnd" // `\>`, `\b{end}`
  | "wordStartHalf" // `\b{start-half}`
  | "wordEndHalf"; // `\b{end-half}`

/** One member of a bracket class. */
export type ClassItem =
  | { readonly kind: "range"; readonly lo: number; readonly hi: number }
  | { readonly kind: "perl"; readonly which: "d" | "s" | "w"; readonly negated: boolean }
  | { readonly kind: "property"; readonly name: string; readonly negated: boolean }
  | { readonly kind: "posix"; readonly name: string; readonly negated: boolean }
  | { readonly kind: "nested"; readonly negated: boolean; readonly items: readonly ClassItem[] };

export type Node =
  | { readonly kind: "empty" }
  | { readonly kind: "literal"; readonly cp: number; readonly fold: boolean; readonly unicode: boolean }
  /** A raw byte from `\xNN` under (?-u), NN ≥ 0x80. */
  | { readonly kind: "byte"; readonly byte: number }
  | { readonly kind: "dot"; readonly unicode: boolean }
  | {
      readonly kind: "class";
      readonly negated: boolean;
      readonly items: readonly ClassItem[];
      readonly fold: boolean;
      readonly unicode: boolean;
    }
  | { readonly kind: "assertion"; readonly assertion: AssertionKind; readonly unicode: boolean }
  /** `capture` for a capturing group, which regex-syntax keeps as a node of its own. */
  | { readonly kind: "group"; readonly node: Node; readonly capture?: boolean }
  | { readonly kind: "concat"; readonly nodes: readonly Node[] }
  | { readonly kind: "alternation"; readonly nodes: readonly Node[] }
  | { readonly kind: "repeat"; readonly node: Node; readonly min: number; readonly max: number; readonly greedy: boolean };
