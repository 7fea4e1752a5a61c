// The suite's own assertions, so it runs under any test runner on any runtime without node:assert or a
// runner's expect().
import { type FsErrorCode, isFsError } from "../core/mod.ts";

/** Thrown when a conformance expectation does not hold. */
export class AssertionError extends Error {
  override readonly name = "AssertionError";
}

/** Fails with `message` unless `condition` holds. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

/** Deep structural equality for plain data: primitives, arrays, plain objects and byte arrays. */
export function assertEquals(actual: unknown, expected: unknown, message?: string): void {
  if (!deepEqual(actual, expected)) {
    throw new AssertionError(`${message ? `${message}: ` : ""}expected ${show(expected)}, got ${show(actual)}`);
  }
}

/** Fails when the two values are deeply equal. */
export function assertNotEquals(actual: unknown, unexpected: unknown, message?: string): void {
  if (deepEqual(actual, unexpected)) {
    throw new AssertionError(`${message ? `${message}: ` : ""}expected a value other than ${show(unexpected)}`);
  }
}

/** Byte-exact comparison; the message names the first differing offset. */
export function assertBytes(actual: Uint8Array | undefined, expected: Uint8Array | string, message?: string): void {
  const want = typeof expected === "string" ? new TextEncoder().encode(expected) : expected;
  const prefix = message ? `${message}: ` : "";
  if (actual === undefined) throw new AssertionError(`${prefix}expected ${want.length} bytes, got nothing (missing)`);
  const n = Math.min(actual.length, want.length);
  for (let i = 0; i < n; i++) {
    if (actual[i] !== want[i]) {
      throw new AssertionError(`${prefix}bytes differ at offset ${i}: expected 0x${hex(want[i])}, got 0x${hex(actual[i])}`);
    }
  }
  if (actual.length !== want.length) {
    throw new AssertionError(`${prefix}expected ${want.length} bytes, got ${actual.length}`);
  }
}

/** Awaits `promise` and expects it to reject with an FsError carrying `code`; returns the error. */
export async function assertRejectsCode(
  promise: Promise<unknown> | (() => Promise<unknown>),
  code: FsErrorCode,
  message?: string,
): Promise<Error & { code: FsErrorCode; details: Record<string, unknown> }> {
  const prefix = message ? `${message}: ` : "";
  let outcome: unknown;
  try {
    outcome = await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    if (isFsError(error, code)) return error as Error & { code: FsErrorCode; details: Record<string, unknown> };
    const got = isFsError(error) ? `FsError ${error.code} (${error.message})` : show(error);
    throw new AssertionError(`${prefix}expected FsError ${code}, got ${got}`);
  }
  throw new AssertionError(`${prefix}expected FsError ${code}, but it resolved with ${show(outcome)}`);
}

/** Expects `work` to throw (or reject with) an error of class `type`, such as TypeError or RangeError. */
export async function assertThrowsType(work: () => unknown, type: new (...args: never[]) => Error, message?: string): Promise<void> {
  const prefix = message ? `${message}: ` : "";
  try {
    await work();
  } catch (error) {
    if (error instanceof type) return;
    throw new AssertionError(`${prefix}expected ${type.name}, got ${show(error)}`);
  }
  throw new AssertionError(`${prefix}expected ${type.name}, but nothing was thrown`);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    return a.length === b.length && a.every((value, i) => value === b[i]);
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((value, i) => deepEqual(value, b[i]));
  }
  if (isPlain(a) && isPlain(b)) {
    const ka = Object.keys(a)
      .filter((k) => a[k] !== undefined)
      .sort();
    const kb = Object.keys(b)
      .filter((k) => b[k] !== undefined)
      .sort();
    return deepEqual(ka, kb) && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function show(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}

function hex(byte: number | undefined): string {
  return (byte ?? 0).toString(16).padStart(2, "0");
}
