import { describe, expect, test } from "vitest";
import { type Envelope, LineLimiter, type OversizedLine, readEnvelope } from "./framing.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const text = (chunks: readonly Uint8Array[]) => chunks.map((c) => decoder.decode(c)).join("");

/** Feeds `input` to a limiter cut into chunks at `cuts`; returns what passed and what was reported. */
function feed(input: string, max: number, cuts: readonly number[] = [], replace?: (line: OversizedLine) => Uint8Array | undefined) {
  const reported: OversizedLine[] = [];
  const limiter = new LineLimiter(max, (line) => {
    reported.push(line);
    return replace?.(line);
  });
  const bytes = encoder.encode(input);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(...limiter.push(bytes.subarray(at, cut)));
    at = cut;
  }
  out.push(...limiter.end());
  return { passed: text(out), reported };
}

describe("LineLimiter", () => {
  test("lines up to the limit pass unchanged, whatever the chunking; longer ones are dropped and reported", () => {
    const input = `${"a".repeat(10)}\n${"b".repeat(11)}\n\n${"c".repeat(10)}\n${"d".repeat(25)}\nlast`;
    const expected = `${"a".repeat(10)}\n\n${"c".repeat(10)}\nlast`;
    for (let cut = 0; cut <= input.length; cut++) {
      for (const second of [cut, Math.min(input.length, cut + 7)]) {
        const { passed, reported } = feed(input, 10, [cut, second]);
        expect(passed, `cut at ${cut}, ${second}`).toBe(expected);
        expect(reported.map((r) => r.bytes)).toEqual([11, 25]);
      }
    }
  });

  test("an over-long last line without a line break is reported at the end", () => {
    const { passed, reported } = feed(`ok\n${"z".repeat(50)}`, 10, [5, 20]);
    expect(passed).toBe("ok\n");
    expect(reported.map((r) => r.bytes)).toEqual([50]);
  });

  test("a replacement takes the dropped line's place", () => {
    const { passed } = feed(`one\n${"x".repeat(20)}\ntwo\n`, 10, [6], () => encoder.encode("stand-in\n"));
    expect(passed).toBe("one\nstand-in\ntwo\n");
  });

  test("the report reads the envelope from the line's start", () => {
    const line = `{"jsonrpc":"2.0","id":42,"method":"session/prompt","params":{"text":"${"p".repeat(100)}"}}`;
    const { reported } = feed(`${line}\n`, 50, [10, 30]);
    expect(reported[0]?.envelope).toEqual({ id: 42, method: true, response: false });
  });
});

describe("readEnvelope", () => {
  const read = (json: string): Envelope => readEnvelope(encoder.encode(json));

  test.each([
    ['{"jsonrpc":"2.0","id":7,"method":"x","params":{}}', { id: 7, method: true, response: false }],
    ['{"method":"x","params":{"id":99,"a":[1,{"id":3}]},"id":"abc"}', { id: "abc", method: true, response: false }],
    ['{ "id" : -1.5e2 , "result" : {"big": "…"} }', { id: -150, method: false, response: true }],
    ['{"jsonrpc":"2.0","id":3,"error":{"code":1}}', { id: 3, method: false, response: true }],
    ['{"id":"a\\"b\\u0041","method":"m"}', { id: 'a"bA', method: true, response: false }],
    ['{"id":null,"method":"m"}', { method: true, response: false }],
    ['{"id":[1],"method":"m"}', { method: true, response: false }],
    ['{"params":{"deep":"unterminated', { method: false, response: false }],
    ['{"id":12', { method: false, response: false }],
    ['{"id":123,"params":"cut here', { id: 123, method: false, response: false }],
    ["[1,2,3]", { method: false, response: false }],
    ["not json", { method: false, response: false }],
  ])("%s", (json, envelope) => {
    expect(read(json)).toEqual(envelope);
  });
});
