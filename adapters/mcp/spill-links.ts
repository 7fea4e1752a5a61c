// The spill links an MCP session's glob and grep results gave its client, served back through resources/read.
// Only those: the URI must be one this session was given, exactly as given, and its store must have published
// it, so a client cannot read another session's spill, another user's, or any other file by naming it.
import { type CallToolResult, type ReadResourceResult, type Resource, ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { ContentPart, SpillStore, ToolResult } from "../../core/mod.ts";

export class SpillLinks {
  readonly #links = new Map<string, { readonly resource: Resource; readonly store: SpillStore }>();

  /** Remembers the spill link of a result of this session, when its store can read it back. */
  record(result: ToolResult, store: SpillStore | undefined): void {
    if (!store?.read || typeof result.meta.spill !== "string") return;
    for (const part of result.parts ?? []) {
      if (part.type === "resource_link") this.#links.set(part.uri, { resource: mcpResource(part), store });
    }
  }

  /** The links given so far, for resources/list. */
  resources(): Resource[] {
    return Array.from(this.#links.values(), (link) => link.resource);
  }

  /** The spill's text; a URI this session was not given is a resource not found, with what is served. */
  async read(uri: string, served: string, signal: AbortSignal): Promise<ReadResourceResult> {
    const link = this.#links.get(uri);
    if (!link) throw new ResourceNotFoundError(uri, `Unknown resource ${uri}: this server serves only ${served}`);
    let text: string;
    try {
      text = await link.store.read!(uri, { signal });
    } catch (error) {
      throw new ResourceNotFoundError(uri, `Cannot read ${uri}: ${(error as Error).message}`);
    }
    return { contents: [{ uri, mimeType: link.resource.mimeType ?? "text/plain", text }] };
  }
}

/** What resources/read serves of a session, in words, for its refusals. */
export function servedResources(overlayUri: string | undefined, spills: boolean): string {
  const spilled = spills ? "the spill files this session's glob and grep results linked to" : undefined;
  return [overlayUri, spilled].filter((s) => s !== undefined).join(" and ");
}

// MCP carries images and resource links in a tool result as they are.
export function mcpPart(part: ContentPart): CallToolResult["content"][number] {
  if (part.type === "image") return { type: "image", data: part.data, mimeType: part.mediaType };
  return { type: "resource_link", ...mcpResource(part) };
}

function mcpResource(part: ContentPart & { type: "resource_link" }): Resource {
  return {
    uri: part.uri,
    name: part.name,
    ...(part.mediaType === undefined ? {} : { mimeType: part.mediaType }),
    ...(part.description === undefined ? {} : { description: part.description }),
  };
}
