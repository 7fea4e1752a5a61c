import { describe, expect, test } from "vitest";
import { serveAcp } from "./serve.ts";
import { COMPOSITIONS } from "./mod.ts";
import { nodeRuntime } from "../../test/acp-driver.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

describe("serveAcp's input", () => {
  test("an input that fails ends serveAcp with an error saying so, after shutting the agent down", async () => {
    const input = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } })}\n`));
      },
      pull(controller) {
        controller.error(new Error("read failed"));
      },
    });
    const written: string[] = [];
    const output = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(decoder.decode(chunk)) });
    await expect(serveAcp({ input, output, composition: COMPOSITIONS["bash-glob-grep"]!, runtime: nodeRuntime(), model: undefined })).rejects.toThrow(
      "the client's input failed: read failed",
    );
    // The output is released for its owner to close.
    await output.close();
  });

  test("the input ending is not a failure", async () => {
    const input = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    const output = new WritableStream<Uint8Array>();
    await expect(serveAcp({ input, output, composition: COMPOSITIONS["bash-glob-grep"]!, runtime: nodeRuntime(), model: undefined })).resolves.toBeUndefined();
  });
});
