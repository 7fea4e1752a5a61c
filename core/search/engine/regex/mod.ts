/**
 * ripgrep's regex dialect on re2js: a parser that reads patterns the way ripgrep does (rejecting what it
 * rejects, refusing what the engine cannot reproduce), a writer for re2js, and a matcher that works on a
 * line's UTF-8 bytes so offsets are ripgrep's byte offsets.
 *
 * @module
 */
import { MatcherInput, type MatcherInputBase, RE2JS } from "re2js";
import { encodeUtf8 } from "../../../text/mod.ts";
import { cutInput } from "../../../errors/mod.ts";
import { SearchError } from "../../errors.ts";
import { checkPatternSize } from "../../limits.ts";
import { errorMessage } from "../text.ts";
import { emit, hasBytes, hasTextStart, hasUnicodeBoundary } from "./emit.ts";
import { plainLiteral, requiredLiterals } from "./literals.ts";
import { parseRegex, RegexError, type RegexOptions, RegexRefusal } from "./parse.ts";
import { PikeVm } from "./vm.ts";

// re2js's anchor code for a search that may start anywhere.
const UNANCHORED = 0;

/** What the caller knows about a line, so the matcher can pick re2js's matcher or the VM. */
export interface LineInfo {
  /** The line is valid UTF-8. */
  readonly valid: boolean;
  /** The line is ASCII (only consulted when `LineRegex.needsAscii`). */
  readonly ascii: boolean;
}

/** A compiled pattern that matches one line's content (without its terminator) at a time. */
export interface LineRegex {
  /** Whether `find` and `test` need `LineInfo.ascii`. */
  readonly needsAscii: boolean;
  /** The pattern holds raw (?-u) bytes, which only match lines that are not valid UTF-8. */
  readonly matchesBytes: boolean;
  /** The pattern holds `\A`, which `test` and `find` treat differently. */
  readonly textStart: boolean;
  /** UTF-8 strings one of which every match contains, when known. */
  readonly literals: readonly Uint8Array[] | undefined;
  /** Set when the pattern is exactly this string: its occurrences are the matches. */
  readonly plain: Uint8Array | undefined;
  /** Whether the line matches at all, as ripgrep decides it (`\A` holds at the start of every line). */
  test(line: Uint8Array, info: LineInfo): boolean;
  /**
   * The leftmost-first match starting at or after byte `from`, as [start, end). `bufferStart` says the line
   * begins one of ripgrep's buffers, the only place its submatch search lets `\A` match.
   */
  find(line: Uint8Array, from: number, bufferStart: boolean, info: LineInfo): [number, number] | undefined;
}

/** Compiles a ripgrep pattern; fails SEARCH_INVALID_PATTERN with ripgrep's wording or a named refusal. */
export function compileRegex(pattern: string, options: RegexOptions = {}): LineRegex {
  checkPatternSize(pattern);
  let parsed: ReturnType<typeof parseRegex>;
  try {
    parsed = parseRegex(pattern, options);
  } catch (error) {
    if (error instanceof RegexError) throw invalid(pattern, error);
    throw error;
  }
  const { node, wrapped } = parsed;
  const compile = (source: string) => {
    try {
      return RE2JS.compile(source);
    } catch (cause) {
      const reason = `the pattern is too large or complex for the search engine (${errorMessage(cause)})`;
      throw invalid(pattern, new RegexRefusal(reason, 0, wrapped.length));
    }
  };
  const fastSource = emit(node, "fast");
  const fast = fastSource === undefined ? undefined : compile(fastSource);
  const vm = new PikeVm(compile(emit(node, "vm") as string));
  // re2js's RE2 object directly: its public matcher re-checks and re-wraps the input on every call.
  const re2 = fast?.re2();
  let inputLine: Uint8Array | undefined;
  let input: MatcherInputBase | undefined;
  const needsAscii = hasUnicodeBoundary(node);
  const textStart = hasTextStart(node);
  const literals = requiredLiterals(node)?.map((s) => encodeUtf8(s));
  const plainText = plainLiteral(node);

  const fastFits = (line: Uint8Array, from: number, info: LineInfo) =>
    info.valid && (!needsAscii || info.ascii) && (from === 0 || from >= line.length || ((line[from] as number) & 0xc0) !== 0x80);

  return {
    needsAscii,
    textStart,
    matchesBytes: hasBytes(node),
    literals,
    plain: plainText ? encodeUtf8(plainText) : undefined,
    test(line, info) {
      if (re2 && fastFits(line, 0, info)) return re2.matchUTF8(line);
      return vm.find(line, 0, true) !== undefined;
    },
    find(line, from, bufferStart, info) {
      if (re2 && fastFits(line, from, info) && (bufferStart || !textStart)) {
        if (line !== inputLine) {
          inputLine = line;
          input = MatcherInput.utf8(line);
        }
        const [found, groups] = re2.matchMachineInput(input, from, line.length, UNANCHORED, 1) as [boolean, number[] | null];
        return found && groups ? [groups[0] as number, groups[1] as number] : undefined;
      }
      return vm.find(line, from, bufferStart);
    },
  };
}

// ripgrep's framing: the wrapped pattern, a caret line under the offending span, then the reason.
function invalid(pattern: string, error: RegexError): SearchError {
  const details = { pattern, reason: error.reason, refused: error instanceof RegexRefusal };
  if (error.bare) return new SearchError("SEARCH_INVALID_PATTERN", error.reason, { details });
  let wrapped = `(?:${pattern})`;
  // A long pattern is quoted up to a bound; the caret line only when the span falls within it.
  const cut = cutInput(wrapped);
  const shown = cut.omitted === 0;
  if (!shown) wrapped = `${cut.text}… (${cut.omitted} more characters)`;
  let message = `regex parse error:\n    ${wrapped}\n`;
  if (!wrapped.includes("\n") && (shown || error.end <= cut.text.length)) {
    const width = Math.max(1, error.end - error.start);
    message += `    ${" ".repeat(error.start)}${"^".repeat(width)}\n`;
  }
  message += `error: ${error.reason}`;
  return new SearchError("SEARCH_INVALID_PATTERN", message, { details });
}
