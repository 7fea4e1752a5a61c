import { createToolkit, type Toolkit, type ToolkitOptions, type ToolResult } from "../../core/mod.ts";
import { assert, AssertionError } from "../assert.ts";
import type { Subject } from "../harness.ts";

/** A toolkit over the subject's provider, rooted at the probe's workspace. */
export function toolkit(subject: Subject, options?: Omit<ToolkitOptions, "fs">): Toolkit {
  return createToolkit({ fs: subject.provider, workspace: subject.probe.root, ...options });
}

/** Calls a tool and expects success; returns the text. */
export async function ok(kit: Toolkit, tool: string, args: unknown, options?: Parameters<Toolkit["call"]>[2]): Promise<ToolResult> {
  const result = await kit.call(tool, args, options);
  if (result.isError) throw new AssertionError(`${tool} ${JSON.stringify(args)} failed: ${result.error?.code} ${result.content}`);
  return result;
}

/** Calls a tool and expects a failure with `code`; returns the result. */
export async function fails(kit: Toolkit, tool: string, args: unknown, code: string, options?: Parameters<Toolkit["call"]>[2]): Promise<ToolResult> {
  const result = await kit.call(tool, args, options);
  if (!result.isError) throw new AssertionError(`${tool} ${JSON.stringify(args)} succeeded, expected ${code}: ${result.content}`);
  assert(result.error?.code === code, `${tool} ${JSON.stringify(args)}: expected ${code}, got ${result.error?.code}: ${result.content}`);
  return result;
}

/** Expects `text` to contain every fragment. */
export function includes(text: string, ...fragments: string[]): void {
  for (const fragment of fragments) {
    if (!text.includes(fragment)) throw new AssertionError(`expected ${JSON.stringify(fragment)} in:\n${text}`);
  }
}

/** Expects `text` to contain none of the fragments. */
export function excludes(text: string, ...fragments: string[]): void {
  for (const fragment of fragments) {
    if (text.includes(fragment)) throw new AssertionError(`did not expect ${JSON.stringify(fragment)} in:\n${text}`);
  }
}

/** `count` lines "line 1".."line N", newline-terminated. */
export function numbered(count: number, prefix = "line"): string {
  let out = "";
  for (let i = 1; i <= count; i++) out += `${prefix} ${i}\n`;
  return out;
}
