// Counting line feeds in bulk: reading the last window of a large file is almost all counting, and a search for
// one newline at a time costs a call per line (tens of nanoseconds for a line of a hundred bytes, more than
// reading it). A WebAssembly function compares sixteen bytes at a time (SIMD); where WebAssembly or its SIMD
// is not available, a loop over indexOf gives the same counts.

/**
 * The counter, assembled by hand (WebAssembly text below); memory is one 64 KiB page, filled from JS:
 *
 *   (func (export "count") (param $len i32) (result i32) (local $i i32) (local $n i32) (local $end i32) (local $lf v128)
 *     (local.set $lf (i8x16.splat (i32.const 10)))
 *     (local.set $end (i32.and (local.get $len) (i32.const -16)))
 *     (block (loop (br_if 1 (i32.ge_u (local.get $i) (local.get $end)))
 *       (local.set $n (i32.add (local.get $n) (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load (local.get $i)) (local.get $lf))))))
 *       (local.set $i (i32.add (local.get $i) (i32.const 16))) (br 0)))
 *     (block (loop (br_if 1 (i32.ge_u (local.get $i) (local.get $len)))
 *       (local.set $n (i32.add (local.get $n) (i32.eq (i32.load8_u (local.get $i)) (i32.const 10))))
 *       (local.set $i (i32.add (local.get $i) (i32.const 1))) (br 0)))
 *     (local.get $n))
 */
const MODULE_HEX =
  "0061736d0100000001060160017f017f030201000503010001071202066d656d6f7279020005" +
  "636f756e7400000a62016002037f017b410afd0f21042000417071210302400340200120034f" +
  "0d0120022001fd0000002004fd23fd64696a2102200141106a21010c000b0b02400340200120" +
  "004f0d01200220012d0000410a466a2102200141016a21010c000b0b20020b";

const LF = 0x0a;
const PAGE = 64 * 1024;

type Counter = (bytes: Uint8Array) => number;

/** Counts line feeds with a loop over indexOf: the reference, and the fallback without WebAssembly SIMD. */
export function countLineFeedsByIndexOf(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) count++;
  return count;
}

function simdCounter(): Counter | undefined {
  try {
    const hex = MODULE_HEX;
    const code = new Uint8Array(hex.length / 2);
    for (let i = 0; i < code.length; i++) code[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
    const instance = new WebAssembly.Instance(new WebAssembly.Module(code));
    const memory = instance.exports.memory as WebAssembly.Memory;
    const count = instance.exports.count as (length: number) => number;
    const page = new Uint8Array(memory.buffer, 0, PAGE);
    return (bytes) => {
      let total = 0;
      for (let at = 0; at < bytes.length; at += PAGE) {
        const part = bytes.length <= PAGE ? bytes : bytes.subarray(at, at + PAGE);
        page.set(part);
        total += count(part.length);
      }
      return total;
    };
  } catch {
    // No WebAssembly, no SIMD, or compilation refused (a content security policy): count with indexOf.
    return undefined;
  }
}

let counter: Counter | undefined;

/** The number of line feeds (0x0A) in `bytes`. */
export function countLineFeeds(bytes: Uint8Array): number {
  counter ??= simdCounter() ?? countLineFeedsByIndexOf;
  return counter(bytes);
}

/** Whether {@link countLineFeeds} runs on WebAssembly SIMD here (for tests and benchmarks). */
export function lineFeedCounterKind(): "simd" | "indexOf" {
  counter ??= simdCounter() ?? countLineFeedsByIndexOf;
  return counter === countLineFeedsByIndexOf ? "indexOf" : "simd";
}
