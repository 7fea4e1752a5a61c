/**
 * The shape every error family of toolfs shares: a class per family with a closed set of codes, structured
 * details, a chained cause, and a guard that recognises the family by name and code rather than by
 * `instanceof`, so errors from another copy of the library (another realm or bundle) are recognised too.
 *
 * @module
 */

export interface CodedErrorOptions<Details> {
  readonly cause?: unknown;
  readonly details?: Details;
}

/** Characters of one piece of user input (a path, a pattern, an argument) that a message quotes at most. */
export const QUOTED_INPUT_MAX = 1024;

/** Characters a message keeps at most; a longer one keeps its start and its end (see boundMessage). */
export const MESSAGE_MAX = 8192;

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

/** `value` cut to its first QUOTED_INPUT_MAX characters, with the count of the rest when it was longer. */
export function cutInput(value: string): { readonly text: string; readonly omitted: number } {
  if (value.length <= QUOTED_INPUT_MAX) return { text: value, omitted: 0 };
  const end = isHighSurrogate(value.charCodeAt(QUOTED_INPUT_MAX - 1)) ? QUOTED_INPUT_MAX - 1 : QUOTED_INPUT_MAX;
  return { text: value.slice(0, end), omitted: value.length - end };
}

/**
 * `value` quoted for a message, cut to its first QUOTED_INPUT_MAX characters with a count of the rest: a
 * 10 MB path must not make a 10 MB message. `"json"` quotes with JSON.stringify, which shows control
 * characters.
 */
export function quoteInput(value: string, quote: '"' | "'" | "json" = '"'): string {
  const { text, omitted } = cutInput(value);
  const shown = quote === "json" ? JSON.stringify(text) : `${quote}${text}${quote}`;
  return omitted === 0 ? shown : `${shown.slice(0, -1)}…${shown.slice(-1)} (${omitted} more characters)`;
}

/**
 * A message cut to MESSAGE_MAX characters: its start and its end (where the advice is) with a count of what
 * was left out between them. Every coded error's message goes through it, so no input quoted whole, and no
 * text from elsewhere (a native error, a process's output), can make a message unbounded.
 */
export function boundMessage(message: string): string {
  if (message.length <= MESSAGE_MAX) return message;
  let head = (MESSAGE_MAX * 3) / 4;
  let tail = message.length - MESSAGE_MAX / 4;
  if (isHighSurrogate(message.charCodeAt(head - 1))) head--;
  if (isHighSurrogate(message.charCodeAt(tail - 1))) tail++;
  return `${message.slice(0, head)}…[${tail - head} characters left out]…${message.slice(tail)}`;
}

/** Base of the error families: a stable `code` plus a message that says what to do next. */
export abstract class CodedError<Code extends string, Details extends Readonly<Record<string, unknown>> = Readonly<Record<string, unknown>>> extends Error {
  readonly code: Code;
  readonly details: Details;

  constructor(code: Code, message: string, options?: CodedErrorOptions<Details>) {
    super(boundMessage(message), options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details ?? ({} as Details);
  }
}

/** A guard for one family: true for an error of that name carrying one of its codes (or exactly `code`). */
export function codedErrorGuard<E extends { readonly code: string }>(
  name: string,
  codes: readonly E["code"][],
): (value: unknown, code?: E["code"]) => value is E {
  const known: ReadonlySet<string> = new Set(codes);
  return (value: unknown, code?: E["code"]): value is E => {
    if (typeof value !== "object" || value === null) return false;
    const candidate = value as { name?: unknown; code?: unknown };
    if (candidate.name !== name || typeof candidate.code !== "string" || !known.has(candidate.code)) return false;
    return code === undefined || candidate.code === code;
  };
}
