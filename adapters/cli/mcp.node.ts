// `toolfs mcp` on Node: the runtime's workspaces, stdio, and the web-standard handler bound to node:http.
import { once } from "node:events";
import { mkdir } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { homedir } from "node:os";
import process from "node:process";
import { Readable } from "node:stream";
import {
  createEngineBackend,
  createFsSpillStore,
  createOverlayProvider,
  createOverlaySearchBackend,
  type ProcessRunner,
  type ShellConfinement,
} from "../../core/mod.ts";
import type { McpHttpHandler, McpRuntime, McpWorkspace } from "../mcp/mod.ts";
import { createNodeProvider, createNodeSearchBackend } from "../node/mod.ts";
import type { McpHost } from "./host.ts";

export interface NodeMcpHostOptions {
  readonly runner: ProcessRunner;
  readonly tempRoots: readonly string[];
  readonly spillDirectory: string;
  realDirectory(path: string): Promise<string | { error: string }>;
  /** Detects how bash can be confined (detectBubblewrap); run at most once per host, when a sandbox needs it. */
  confinement?(): Promise<ShellConfinement>;
  /**
   * Stop once the process that started this one is gone. For a server started by npm (npx, npm exec, npm run),
   * which passes SIGTERM only to the shell it starts, and that shell does not pass it on: without this, the
   * server outlives `kill <npx pid>`.
   */
  readonly watchParent?: boolean;
}

/** Signals that stop the server: Ctrl-C, a supervisor's stop, the terminal closing. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Resolves once the process is asked to stop: a stop signal, or (watchParent) its parent gone. */
export function stopRequested(watchParent: boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const parent = process.ppid;
    const timer = watchParent ? setInterval(() => process.ppid !== parent && stop(), 1000) : undefined;
    timer?.unref();
    const stop = () => {
      clearInterval(timer);
      for (const name of STOP_SIGNALS) process.off(name, stop);
      resolve();
    };
    for (const name of STOP_SIGNALS) process.once(name, stop);
  });
}

/** The Node side of `toolfs mcp`. */
export function nodeMcpHost(options: NodeMcpHostOptions): McpHost {
  // Once per process: every session of every runtime shares the answer (a bubblewrap start costs ~100 ms).
  let detected: Promise<ShellConfinement> | undefined;
  const detect = options.confinement;
  const confinement = detect ? () => (detected ??= detect()) : undefined;
  return {
    runtime: (backend) => runtime(backend, options, confinement),
    async stdio(session, limits) {
      const { serveMcpStdio } = await import("../mcp/mod.ts");
      // A stop closes the session first, which aborts running calls, so no command's process tree outlives it.
      void stopRequested(options.watchParent ?? false).then(() => session.server.close());
      await serveMcpStdio(session, { input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>, output: process.stdout, ...limits });
    },
    http: (handler, host, port, listening) => serveHttp(handler, host, port, listening, options.watchParent ?? false),
    env: (name) => process.env[name],
  };
}

function runtime(backend: "node" | "memory" | "overlay", options: NodeMcpHostOptions, confinement: (() => Promise<ShellConfinement>) | undefined): McpRuntime {
  const workspaces = new Map<string, Promise<McpWorkspace>>();
  // One memory volume for the process, so every session sees the others' writes, as on a disk. memfs is an
  // optional peer dependency: loaded only for --backend memory.
  const memory = backend === "memory" ? Promise.all([import("../memory/mod.ts"), import("../memory/load.ts")]) : undefined;
  const volume = memory?.then(([{ createMemoryVolume }]) => createMemoryVolume());
  const loaded = new Set<string>();
  const open = async (roots: readonly string[]): Promise<McpWorkspace> => {
    const cwd = roots[0] ?? "/";
    // Made owner-only before the first session, so a confined shell keeps it read-only from its first command;
    // one that is there already is checked by the store on every save.
    await mkdir(options.spillDirectory, { mode: 0o700 }).catch(() => undefined);
    if (memory && volume) {
      const [[{ createMemoryProvider }, { loadDirectory }], shared] = await Promise.all([memory, volume]);
      for (const root of roots.filter((r) => !loaded.has(r))) {
        loaded.add(root);
        await loadDirectory(root, shared);
      }
      const fs = createMemoryProvider({ volume: shared, cwd });
      return { fs, search: createEngineBackend(fs), spill: createFsSpillStore(fs, options.spillDirectory) };
    }
    const fs = createNodeProvider({ cwd });
    if (backend === "overlay") {
      // One overlay per set of roots, shared by the sessions working there; bash would write past it.
      const overlay = createOverlayProvider({ base: fs });
      const search = createOverlaySearchBackend(overlay, createNodeSearchBackend({ engine: "fallback", runner: options.runner }));
      return { fs: overlay, overlay, search, spill: createFsSpillStore(fs, options.spillDirectory) };
    }
    return {
      fs,
      search: createNodeSearchBackend({ engine: "fallback", runner: options.runner }),
      spill: createFsSpillStore(fs, options.spillDirectory),
      runner: options.runner,
    };
  };
  return {
    tempRoots: options.tempRoots,
    home: homedir(),
    ...(confinement ? { confinement } : {}),
    workspace(roots) {
      const key = roots.join("\0");
      let workspace = workspaces.get(key);
      if (!workspace) workspaces.set(key, (workspace = open(roots)));
      return workspace;
    },
    async realDirectory(path) {
      const real = await options.realDirectory(path);
      return typeof real === "string" ? real : undefined;
    },
  };
}

async function serveHttp(handler: McpHttpHandler, host: string, port: number, listening: (url: string) => void, watchParent: boolean): Promise<void> {
  const server = createServer((req, res) => void bridge(handler, req, res));
  server.listen(port, host);
  await once(server, "listening");
  const address = server.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  listening(`http://${host.includes(":") ? `[${host}]` : host}:${bound}/mcp`);
  await stopRequested(watchParent);
  server.closeAllConnections();
  server.close();
}

// node:http to the web-standard handler and back, streaming both bodies; a client that goes away cancels
// the response stream (and with it the SSE stream of a running call).
async function bridge(handler: McpHttpHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  try {
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const method = req.method ?? "GET";
    const hasBody = method !== "GET" && method !== "HEAD";
    const request = new Request(new URL(req.url ?? "/", "http://toolfs.invalid"), {
      method,
      headers,
      signal: controller.signal,
      ...(hasBody ? { body: requestBody(req), duplex: "half" } : {}),
    } as RequestInit);
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!req.complete) lingerThenClose(req, res);
    if (!response.body) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    controller.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await once(res, "drain");
    }
    res.end();
  } catch {
    if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
    res.end();
  }
}

/** Bytes of an unread body discarded after the response, so the client reads the response before the close. */
const LINGER_BYTES = 1024 * 1024;

// The handler answered without reading the whole body (413). Closing a socket with unread input resets it,
// which can destroy the response before the client reads it; so once the response is sent, the rest is read
// and discarded, up to LINGER_BYTES (a body ending by then leaves the connection open for the next request),
// then the socket is destroyed whatever the client is doing.
function lingerThenClose(req: IncomingMessage, res: ServerResponse): void {
  res.once("finish", () => {
    let discarded = 0;
    req.removeAllListeners("data");
    req.on("data", (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > LINGER_BYTES) req.socket.destroy();
    });
    req.resume();
  });
}

// The request's body as a web stream. Cancelling it (the handler refusing a body over its limit) stops
// reading without destroying the socket, which Readable.toWeb would do before the 413 could be sent.
function requestBody(req: IncomingMessage): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on("data", (chunk: Buffer) => {
          if (cancelled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => {
          if (!cancelled) controller.close();
        });
        req.once("error", (error) => {
          if (!cancelled) controller.error(error);
        });
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        cancelled = true;
        req.pause();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}
