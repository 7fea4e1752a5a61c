// The optional peer dependencies the CLI loads on demand (memfs for --backend memory, the ACP SDK for `toolfs
// acp`, the MCP SDK for `toolfs mcp`), and the one way a missing one is reported: the package to install, not a
// stack trace.

/** The packages, by what needs them. */
export const PEERS = {
  memory: "memfs",
  acp: "@agentclientprotocol/sdk",
  mcp: "@modelcontextprotocol/server",
} as const;

/** Whether `error` is the runtime failing to find `pkg` (Node: ERR_MODULE_NOT_FOUND; Deno names it too). */
export function isMissingPackage(error: unknown, pkg: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return error.message.includes(pkg) && (code === "ERR_MODULE_NOT_FOUND" || /not find|cannot find|not found/i.test(error.message));
}

/** The line that names the package to install. */
export function peerHint(what: string, pkg: string, error: unknown): string {
  return `toolfs: ${what} needs the optional dependency ${pkg}: npm i ${pkg} (${error instanceof Error ? error.message.split("\n")[0] : String(error)})\n`;
}

/**
 * Runs `load` (an import of a module that needs `pkg`, or anything that loads one); when `pkg` is missing, says
 * which package to install on `err` and resolves to undefined. Other failures are not this helper's to hide.
 */
export async function withPeer<T>(err: (text: string) => void, what: string, pkg: string, load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, pkg)) throw error;
    err(peerHint(what, pkg, error));
    return undefined;
  }
}
