import { CodedError, codedErrorGuard } from "../core/errors/mod.ts";

/**
 * The closed set of conformance usage error codes: the suite was bound wrongly, before any case ran (a failing
 * case is the runner's failure, not one of these).
 */
export const CONFORMANCE_ERROR_CODES = ["CONFORMANCE_BAD_HARNESS", "CONFORMANCE_NOT_A_FACTORY", "CONFORMANCE_NOT_A_SUBJECT"] as const;

export type ConformanceErrorCode = (typeof CONFORMANCE_ERROR_CODES)[number];

/** runConformance or registerGroups was handed something it cannot use; the message names the mistake. */
export class ConformanceError extends CodedError<ConformanceErrorCode> {
  override readonly name = "ConformanceError";
}

/** True for a ConformanceError, also one built by another copy of this library. */
export const isConformanceError: (value: unknown, code?: ConformanceErrorCode) => value is ConformanceError = codedErrorGuard<ConformanceError>(
  "ConformanceError",
  CONFORMANCE_ERROR_CODES,
);

const isThenable = (value: unknown): boolean =>
  (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";

function described(value: unknown): string {
  if (value === null) return "null";
  if (isThenable(value)) return "a Promise";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}

/** Throws when the harness has no `test` function or `createSubject` is not a function. */
export function checkBinding(harness: unknown, createSubject: unknown): void {
  if (typeof (harness as { test?: unknown } | null | undefined)?.test !== "function") {
    const handed = typeof harness === "function" ? "a function (pass { test }, not test)" : described(harness);
    throw new ConformanceError(
      "CONFORMANCE_BAD_HARNESS",
      `The conformance suite needs a harness object with a test(name, fn) function, such as { test } from vitest or node:test; it was handed ${handed}.`,
    );
  }
  if (typeof createSubject === "function") return;
  // The likely mistake: calling a subject factory such as createMemorySubject(wrap) instead of passing a function.
  const handed = isThenable(createSubject)
    ? "a Promise (a subject already being built, such as createMemorySubject(wrap)): every case builds its own subject, " +
      "so pass a function that builds one, such as () => createMemorySubject(wrap)"
    : `${described(createSubject)}: pass a function that builds a fresh subject, such as () => createMemorySubject()`;
  throw new ConformanceError("CONFORMANCE_NOT_A_FACTORY", `The conformance suite's createSubject must be a function; it was handed ${handed}.`);
}

/** Throws when what a subject factory resolved to is not a subject (no provider, probe or dispose). */
export function checkSubject(subject: unknown): void {
  const missing = ["provider", "probe", "dispose"].filter((key) => (subject as Record<string, unknown> | null | undefined)?.[key] === undefined);
  if (missing.length === 0) return;
  const what =
    typeof subject === "function" ? "a function (return the subject it builds, not the function)" : `${described(subject)} without ${missing.join(", ")}`;
  throw new ConformanceError(
    "CONFORMANCE_NOT_A_SUBJECT",
    `The conformance suite's createSubject must resolve to a subject ({ provider, probe, dispose }); it resolved to ${what}.`,
  );
}
