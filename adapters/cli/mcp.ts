// `toolfs mcp`: the MCP server on stdio, or on Streamable HTTP with --http. The MCP SDK is an optional peer
// dependency, so it is loaded only here, when the command runs.
import type { ToolfsMcpSession } from "../mcp/mod.ts";
import { oneOf, type OptionSpec, positiveFlag, readArgs, SANDBOX_OPTIONS, type SandboxFlags, sandboxFlags, stringFlag, UsageError } from "./flags.ts";
import type { CliHost } from "./host.ts";
import { PEERS, withPeer } from "./peers.ts";
import { TOKEN_VARIABLE, USAGE, usage as usageError } from "./usage.ts";

export type { McpHost } from "./host.ts";
export { TOKEN_VARIABLE } from "./usage.ts";

const LOOPBACK = ["127.0.0.1", "localhost", "[::1]", "::1"];

interface McpArgs {
  readonly roots: string[];
  readonly flags: SandboxFlags;
  readonly backend: "node" | "memory" | "overlay";
  readonly http: { host: string; port: number } | undefined;
  readonly maxMessageBytes: number | undefined;
  readonly maxSessions: number | undefined;
  readonly idleTimeoutSeconds: number | undefined;
}

/** Runs `toolfs mcp`; resolves to the exit status. */
export async function runMcp(argv: readonly string[], host: CliHost): Promise<number> {
  const usage = (message: string) => usageError(host, message);
  let args: McpArgs;
  try {
    const parsed = parse(argv);
    if (parsed === "help") {
      // On stderr, as for acp: stdout is the protocol's.
      host.err(`${USAGE}\n`);
      return 0;
    }
    args = parsed;
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    throw error;
  }
  if (!host.mcp) {
    host.err("toolfs: mcp cannot run on this runtime\n");
    return 2;
  }
  const mcpHost = host.mcp();
  const roots: string[] = [];
  for (const root of args.roots) {
    const real = await host.realDirectory(root);
    if (typeof real !== "string") {
      host.err(`toolfs: --root ${root}: ${real.error}\n`);
      return 2;
    }
    if (!roots.includes(real)) roots.push(real);
  }
  const token = args.http ? undefinedIfBlank(mcpHost.env(TOKEN_VARIABLE)) : undefined;
  if (args.http && !LOOPBACK.includes(args.http.host) && token === undefined) {
    host.err(`toolfs: --http on ${args.http.host} is reachable from other machines; set ${TOKEN_VARIABLE} to a secret first\n`);
    return 2;
  }
  const mcp = await withPeer(
    (text) => host.err(text),
    "mcp",
    PEERS.mcp,
    () => import("../mcp/mod.ts"),
  );
  if (!mcp) return 2;
  const runtime = mcpHost.runtime(args.backend);
  const log = (line: string) => host.err(`${line}\n`);
  const { flags } = args;
  const options = {
    runtime,
    log,
    ...(roots.length > 0 ? { roots } : {}),
    ...(flags.sandbox ? { sandbox: flags.sandbox } : {}),
    ...(flags.readScope ? { readScope: flags.readScope } : {}),
    ...(flags.deny.length > 0 ? { deny: flags.deny } : {}),
    ...(flags.network ? { network: true } : {}),
    ...(flags.bashEnv.length > 0 ? { bashEnv: flags.bashEnv } : {}),
  };
  const session = () => mcp.createToolfsMcpSession(options);
  // The first session is built now, before any client: a bad --deny is a usage error, bubblewrap is detected
  // once, and what is withheld is said once, on stderr (the tool list simply leaves it out).
  let first: ToolfsMcpSession | undefined;
  try {
    // The memory backend loads memfs with its first workspace.
    first = await withPeer((text) => host.err(text), "--backend memory", PEERS.memory, session);
    if (!first) return 2;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return usage(error.message);
  }
  for (const reason of Object.values(first.withheld)) log(`toolfs mcp: ${reason}`);
  // Said because nothing else would: the tool list of a session without roots quietly leaves bash out.
  if (roots.length === 0)
    log("toolfs mcp: no --root given: the tools work in the roots the client names (MCP roots); until it names one, every call fails and bash is not offered");
  if (!args.http) {
    await mcpHost.stdio(first, { log, ...(args.maxMessageBytes === undefined ? {} : { maxMessageBytes: args.maxMessageBytes }) });
    return 0;
  }
  let spare: ToolfsMcpSession | undefined = first;
  const next = async (): Promise<ToolfsMcpSession> => {
    const given = spare;
    spare = undefined;
    return given ?? (await session());
  };
  const { host: name, port } = args.http;
  const hostname = name === "::1" ? "[::1]" : name;
  const allowed = LOOPBACK.includes(name) ? ["localhost", "127.0.0.1", "[::1]"] : [hostname];
  const handler = mcp.createMcpHttpHandler({
    session: next,
    allowedHosts: allowed,
    allowedOrigins: allowed,
    token,
    log,
    ...(args.maxMessageBytes === undefined ? {} : { maxBodyBytes: args.maxMessageBytes }),
    ...(args.maxSessions === undefined ? {} : { maxSessions: args.maxSessions }),
    ...(args.idleTimeoutSeconds === undefined ? {} : { idleTimeoutMs: args.idleTimeoutSeconds * 1000 }),
  });
  await mcpHost.http(handler, name, port, (url) => log(`toolfs mcp: listening on ${url}`));
  await handler.close();
  return 0;
}

function undefinedIfBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

const OPTIONS: OptionSpec = {
  ...SANDBOX_OPTIONS,
  root: { type: "string", multiple: true },
  backend: { type: "string" },
  http: { type: "string" },
  "max-message-bytes": { type: "string" },
  "max-sessions": { type: "string" },
  "idle-timeout": { type: "string" },
};

function parse(argv: readonly string[]): McpArgs | "help" {
  const args = readArgs(argv, OPTIONS, (arg) => `mcp does not take ${arg}`);
  if (args.help) return "help";
  const [extra] = args.positionals;
  if (extra !== undefined) throw new UsageError(`mcp does not take ${extra}`);
  const flags = sandboxFlags(args);
  const text = (name: string) => stringFlag(args, name);
  const positive = (name: string) => {
    const value = text(name);
    return value === undefined ? undefined : positiveFlag(`--${name}`, value);
  };
  const chosen = text("backend");
  const backend = chosen === undefined ? "node" : oneOf("--backend", chosen, ["node", "memory", "overlay"] as const, "node, memory or overlay");
  const given = text("http");
  const http = given === undefined ? undefined : address(given);
  const maxMessageBytes = positive("max-message-bytes");
  const maxSessions = positive("max-sessions");
  const idleTimeoutSeconds = positive("idle-timeout");
  if (!http && maxSessions !== undefined) throw new UsageError("--max-sessions goes with --http");
  if (!http && idleTimeoutSeconds !== undefined) throw new UsageError("--idle-timeout goes with --http");
  return { roots: [...((args.values.root as string[] | undefined) ?? [])], flags, backend, http, maxMessageBytes, maxSessions, idleTimeoutSeconds };
}

function address(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text) ?? /^()()(\d+)$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--http takes HOST:PORT or PORT (such as 127.0.0.1:8765), got "${text}"`);
  }
  return { host: match[1] ?? (match[2] || "127.0.0.1"), port };
}
