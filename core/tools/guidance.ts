// The toolkit's system-prompt guidance: each registered tool's paragraph, what the sandbox refuses, where the
// roots are, and what a confined bash may do.
import { resolvePath } from "../fs/paths.ts";
import type { FileSystem } from "../fs/types.ts";
import type { SandboxPolicy } from "../policy/sandbox.ts";
import type { DefinedTool } from "./define.ts";
import type { SandboxOptions } from "./options.ts";
import type { NamedRoot, WorkspaceRoots } from "./roots.ts";
import type { Tool } from "./tool.ts";

/** What the guidance is made from. */
export interface GuidanceInput {
  readonly tools: readonly { readonly entry: DefinedTool; readonly tool: Tool<Record<string, unknown>> }[];
  readonly policy: SandboxPolicy | undefined;
  readonly sandbox: SandboxOptions | undefined;
  readonly roots: WorkspaceRoots;
  readonly fs: FileSystem;
  readonly workspace: string;
}

export function toolkitGuidance(kit: GuidanceInput, confining: boolean, searching: boolean): string {
  const { tools, policy, sandbox: options, roots: workspaceRoots, fs, workspace } = kit;
  // A listed glob or grep without a backend fails every call; its guidance says so instead of how it works.
  const parts = tools
    .map((r) => (r.entry.needs === "search" && !searching ? `${r.tool.name} cannot run in this session: no search backend was configured.` : r.tool.guidance))
    .filter((guidance) => guidance !== "");
  if (confining && tools.some((r) => r.tool.mutates)) {
    const sandbox = options!;
    // The roots as the fence resolves them (against the provider's cwd): the workspace root (the workspace
    // unless set apart) and whatever further roots the host passed, which need not be temp directories.
    const others = workspaceRoots.named.map((root) => root.path);
    const roots = [sandbox.workspaceRoot ?? workspace, ...others, ...(sandbox.writableRoots ?? [])].map((root) => {
      const path = resolvePath(fs.cwd, root);
      return path === workspace ? "the workspace" : workspaceRoots.show(path);
    });
    const guarded = [...new Set([".git", ...(policy?.protectedPaths ?? [])])];
    const where = sandbox.mode === "read-only" ? "refuses every write" : `refuses writes outside ${listed([...new Set(roots)])}, and to ${listed(guarded)}`;
    // A path outside the read scope, or on the deny list, is refused before any mode is considered.
    const unreadable = policy !== undefined && (policy.readScope === "workspace" || !policy.deny.empty) ? ", except for a path no tool may read" : "";
    const unless = sandbox.approve ? `; a refusal says how to ask the user to allow one call${unreadable}` : "";
    parts.push(`The ${sandbox.mode} sandbox ${where}${unless}.`);
  }
  if (workspaceRoots.several) parts.unshift(rootsGuidance(workspaceRoots));
  // The tools that look at files (read, glob, grep, and a host's read-only ones).
  const readers = tools
    .filter(({ entry }) => entry.traits.readOnly && !entry.traits.openWorld && (entry.kind === "read" || entry.kind === "search"))
    .map(({ entry }) => entry.name);
  if (policy && readers.length > 0 && policy.readScope === "workspace") {
    parts.push(
      `${readers.join(", ")} see only the workspace, the writable roots${policy.readableRoots.length > 0 ? ` and ${policy.readableRoots.join(", ")}` : ""}.`,
    );
  }
  if (policy && !policy.deny.empty) {
    parts.push(`Paths matching ${policy.deny.patterns.map((p) => JSON.stringify(p)).join(", ")} are refused to every tool.`);
  }
  return parts.join("\n");
}

// What a confined bash may do, in the fewest words that are exactly true.
export function describeShell(policy: SandboxPolicy): string {
  const list = (paths: readonly string[]) => paths.join(", ");
  const parts: string[] = [];
  if (policy.mode === "read-only") parts.push("no file can be written");
  else if (policy.mode === "workspace-write") {
    const guarded = [...new Set([".git", ...policy.protectedPaths])];
    parts.push(`files can be written only in ${list([policy.workspace, ...policy.writableRoots])} (not in ${list(guarded)})`);
  }
  if (policy.readScope === "workspace") {
    const roots = [policy.workspace, ...policy.writableRoots, ...policy.readableRoots];
    const tmp = roots.includes("/tmp") ? "" : " and a private /tmp";
    parts.push(`only ${list(roots)}, the system directories${tmp} are visible`);
  }
  if (!policy.deny.empty) parts.push(`paths matching ${list(policy.deny.patterns.map((p) => JSON.stringify(p)))} are hidden`);
  parts.push(policy.network ? "the network is reachable" : "there is no network");
  return `sandboxed: ${parts.join("; ")}.`;
}

// Said only when there are several roots: where each is, and how its paths are written and shown.
function rootsGuidance(roots: WorkspaceRoots): string {
  const [example] = roots.named as [NamedRoot, ...NamedRoot[]];
  const others = roots.named.map((root) => `; ${root.name} (${root.path})`).join("");
  const inside = `${example.path === "/" ? "" : example.path}/a.txt`;
  return (
    `Workspace roots: ${roots.first}, where relative paths start${others}. A path that starts with a root's name is in ` +
    `that root (${example.name}/a.txt is ${inside}), and results show paths there that way; ./ before a folder of ` +
    `${roots.first} with such a name keeps it in ${roots.first}.`
  );
}

// "a", "a and b", "a, b and c".
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
