// Test support: an MCP runtime over one shared memfs volume, and a v2 client paired with a session in
// memory. Runs unchanged under vitest and deno test.
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { Volume } from "memfs";
import { createEngineBackend, createMemorySpillStore, type FileSystem } from "../../core/mod.ts";
import { createMemoryProvider, createMemoryVolume } from "../memory/mod.ts";
import { createToolfsMcpSession, type McpRuntime, type McpWorkspace, type ToolfsMcpOptions, type ToolfsMcpSession } from "./mod.ts";

/** A runtime whose workspaces all share one volume, as sessions of one server share one disk. */
export function memoryRuntime(volume: Volume = createMemoryVolume()): McpRuntime & { readonly volume: Volume } {
  const workspaces = new Map<string, McpWorkspace>();
  return {
    volume,
    async workspace(roots) {
      const key = roots.join("\0");
      let workspace = workspaces.get(key);
      if (!workspace) {
        const fs: FileSystem = createMemoryProvider({ volume, cwd: roots[0] ?? "/" });
        workspace = { fs, search: createEngineBackend(fs), spill: createMemorySpillStore() };
        workspaces.set(key, workspace);
      }
      return workspace;
    },
    async realDirectory(path) {
      try {
        return volume.statSync(path).isDirectory() ? String(volume.realpathSync(path)) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

export interface Paired {
  readonly client: Client;
  readonly session: ToolfsMcpSession;
  close(): Promise<void>;
}

/** A v2 client connected in memory to a fresh session; `configure` registers client handlers before connecting. */
export async function pair(
  options: ToolfsMcpOptions,
  clientOptions?: ConstructorParameters<typeof Client>[1],
  configure?: (client: Client) => void,
): Promise<Paired> {
  const session = await createToolfsMcpSession(options);
  const client = new Client({ name: "toolfs-test", version: "1.0.0" }, clientOptions);
  configure?.(client);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    session,
    async close() {
      await client.close();
      await session.server.close();
    },
  };
}
