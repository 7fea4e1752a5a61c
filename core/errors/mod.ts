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

/** Base of the error families: a stable `code` plus a message that says what to do next. */
export abstract class CodedError<Code extends string, Details extends Readonly<Record<string, unknown>> = Readonly<Record<string, unknown>>> extends Error {
  readonly code: Code;
  readonly details: Details;

  constructor(code: Code, message: string, options?: CodedErrorOptions<Details>) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
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
