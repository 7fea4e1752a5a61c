// Toolkit configurations for the guidance tests: the full product the statement checks run over, and the few
// whose rendered guidance and definitions are pinned under fixtures/guidance/.
import { createMemoryProvider } from "../adapters/memory/mod.ts";
import {
  type ApprovalOutcome,
  createMemorySpillStore,
  createToolkit,
  type ProcessRunner,
  type SandboxMode,
  fromWholeResults,
  type SearchBackend,
  type Toolkit,
  type ToolkitOptions,
  type ToolLimits,
  type ToolName,
} from "../core/mod.ts";

export type RunnerKind = "none" | "complete" | "gapped";

/** One configuration as data, so that each statement can be checked against what produced it. */
export interface GuidanceConfig {
  readonly tools: readonly ToolName[] | undefined;
  readonly policy: "read-before-write" | "none";
  readonly sandbox: SandboxMode | undefined;
  readonly writableRoots: readonly string[];
  readonly approver: boolean;
  /** Reads limited to the workspace, and a deny list: both make bash need OS confinement, which none has here. */
  readonly readScope: "anywhere" | "workspace";
  readonly deny: readonly string[];
  readonly search: boolean;
  readonly spill: boolean;
  readonly runner: RunnerKind;
  readonly overCap: "sample" | "head";
  readonly limits: Partial<ToolLimits>;
  /** Workspace roots after the first (WORKSPACE). */
  readonly roots: readonly string[];
}

export const WORKSPACE = "/ws";
export const GAP = "Deno is not permitted to run kill, ps; grant --allow-run=kill,ps as well";

const search: SearchBackend = fromWholeResults({
  name: "stub",
  files: async () => ({ paths: [], problems: [] }),
  grep: async () => ({ files: [], problems: [] }),
});

function runner(kind: RunnerKind): ProcessRunner | undefined {
  if (kind === "none") return undefined;
  const run: ProcessRunner["run"] = async () => ({ exitCode: 0, signal: null, forced: false });
  return kind === "complete" ? { run } : { run, treeStopGap: () => GAP };
}

/** The options a configuration stands for. */
// Guidance and definitions never touch the provider; one serves every configuration.
const fs = createMemoryProvider({ cwd: WORKSPACE, files: {} });

export function toolkitOptions(config: GuidanceConfig): ToolkitOptions {
  const processes = runner(config.runner);
  const approve = async (): Promise<ApprovalOutcome> => "rejected";
  return {
    fs,
    workspace: config.roots.length === 0 ? WORKSPACE : [WORKSPACE, ...config.roots],
    policy: config.policy,
    overCap: config.overCap,
    limits: config.limits,
    ...(config.tools ? { tools: config.tools } : {}),
    ...(config.search ? { search } : {}),
    ...(config.spill ? { spill: createMemorySpillStore() } : {}),
    ...(processes ? { runner: processes } : {}),
    ...(config.sandbox
      ? {
          sandbox: {
            mode: config.sandbox,
            writableRoots: config.writableRoots,
            readScope: config.readScope,
            ...(config.deny.length > 0 ? { deny: config.deny } : {}),
            ...(config.approver ? { approve } : {}),
          },
        }
      : {}),
  };
}

export function build(config: GuidanceConfig): Toolkit {
  return createToolkit(toolkitOptions(config));
}

const BASE: GuidanceConfig = {
  tools: undefined,
  policy: "read-before-write",
  sandbox: undefined,
  writableRoots: [],
  approver: false,
  readScope: "anywhere",
  deny: [],
  search: true,
  spill: true,
  runner: "complete",
  overCap: "sample",
  limits: {},
  roots: [],
};

const TOOL_SETS: readonly (readonly ToolName[] | undefined)[] = [
  undefined,
  ["read"],
  ["write"],
  ["edit"],
  ["write", "edit"],
  ["read", "write", "edit"],
  ["read", "grep"],
  ["glob", "grep"],
  ["bash", "glob", "grep"],
  ["read", "write", "edit", "glob", "grep", "bash"],
];

const SANDBOXES: readonly Pick<GuidanceConfig, "sandbox" | "writableRoots" | "approver" | "readScope" | "deny">[] = [
  { sandbox: undefined, writableRoots: [], approver: false, readScope: "anywhere", deny: [] },
  ...(["read-only", "workspace-write", "full-access"] as const).flatMap((sandbox) =>
    [[], ["/tmp", "/var/cache/build"]].flatMap((writableRoots) =>
      [false, true].map((approver) => ({ sandbox, writableRoots, approver, readScope: "anywhere" as const, deny: [] })),
    ),
  ),
  ...(["read-only", "workspace-write", "full-access"] as const).flatMap((sandbox) => [
    { sandbox, writableRoots: ["/tmp"], approver: true, readScope: "workspace" as const, deny: [] },
    { sandbox, writableRoots: [], approver: false, readScope: "anywhere" as const, deny: [".env", "*.pem"] },
  ]),
];

// Limits and the over-cap mode vary together: each is stated by its own tool, independently of the other.
const SHAPES: readonly Pick<GuidanceConfig, "overCap" | "limits">[] = [
  { overCap: "sample", limits: {} },
  {
    overCap: "head",
    limits: { readLines: 7, globMaxResults: 9, grepMaxMatches: 11, bashOutputBytes: 1234, bashTimeoutMs: 5000, bashMaxTimeoutMs: 60_000 },
  },
];

/**
 * Every tool set crossed with every value of the other dimensions in two products: the sandbox (with its roots
 * and approver) against the policy, and the services (search, spill, runner) against the policy and the limits.
 * Every statement depends on the tool set plus dimensions from one product; the full cross of all of them
 * (thousands of toolkits, each building its schemas) would cost seconds and check nothing more.
 */
export function allConfigs(): GuidanceConfig[] {
  const out: GuidanceConfig[] = [];
  for (const tools of TOOL_SETS) {
    for (const policy of ["read-before-write", "none"] as const) {
      for (const sandbox of SANDBOXES) out.push({ ...BASE, tools, policy, ...sandbox });
      // Several roots, with and without a sandbox that names them.
      for (const sandbox of [SANDBOXES[0]!, { ...SANDBOXES[0]!, sandbox: "workspace-write" as const, writableRoots: ["/tmp"] }]) {
        out.push({ ...BASE, tools, policy, ...sandbox, roots: ["/other/lib", "/more/lib"] });
      }
      for (const services of [
        { search: true, spill: true },
        { search: true, spill: false },
        { search: false, spill: false },
      ]) {
        for (const runnerKind of ["none", "complete", "gapped"] as const) {
          for (const shape of SHAPES) out.push({ ...BASE, tools, policy, ...services, runner: runnerKind, ...shape });
        }
      }
    }
  }
  return out;
}

/** Where the pinned renderings live. */
export const guidanceDir: string = new URL("../fixtures/guidance/", import.meta.url).pathname;

/** The pinned configurations: fixtures/guidance/<name>.expected.md each. */
export const PINNED: Readonly<Record<string, GuidanceConfig>> = {
  // `toolfs <tool>` on Node: every tool, search with a spill, no sandbox.
  "cli-node": { ...BASE, search: true, spill: true, runner: "complete" },
  // `toolfs --sandbox workspace-write --approve yes`: the temp root named, escalation offered.
  "workspace-write-approved": { ...BASE, sandbox: "workspace-write", writableRoots: ["/tmp"], approver: true, runner: "none" },
  // A read-only sandbox nobody can widen, without search.
  "read-only-unattended": { ...BASE, sandbox: "read-only", approver: false, search: false, spill: false, runner: "none" },
  // The bash-glob-grep composition under Deno without --allow-run=kill,ps.
  "deno-acp-without-tree-stop": { ...BASE, tools: ["bash", "glob", "grep"], spill: false, runner: "gapped", limits: { globMaxResults: 4 } },
  // No read-before-write policy, and no read tool.
  "unguarded-write-edit": { ...BASE, tools: ["write", "edit"], policy: "none", search: false, spill: false, runner: "none" },
  // `toolfs mcp --root /ws --root /other/lib --root /more/lib` (the default sandbox; bash not offered here).
  "mcp-three-roots": { ...BASE, sandbox: "workspace-write", writableRoots: ["/tmp"], approver: true, runner: "none", roots: ["/other/lib", "/more/lib"] },
};

/** A pinned file: the guidance and the definitions, as a model receives them. */
export function renderPinned(name: string, config: GuidanceConfig): string {
  const kit = build(config);
  return `# ${name}\n\n## Guidance\n\n${kit.guidance}\n\n## Tool definitions\n\n\`\`\`json\n${JSON.stringify(kit.definitions, null, 2)}\n\`\`\`\n`;
}
