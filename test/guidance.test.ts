// The model is told only what is true: every statement of the guidance and of the tool definitions is checked
// against the configuration that produced it, over a product of configurations, and a few configurations'
// rendered texts are pinned (fixtures/guidance/; `npm run fixtures:update` rewrites them).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { DEFAULT_LIMITS, type Toolkit, type ToolName } from "../core/mod.ts";
import { allConfigs, build, GAP, type GuidanceConfig, guidanceDir, PINNED, renderPinned } from "./guidance-configs.ts";

// Whether bash may be offered: none of these configurations has OS confinement, so only an unconfining one.
function bashAllowed(config: GuidanceConfig): boolean {
  return config.sandbox === undefined || (config.sandbox === "full-access" && config.deny.length === 0 && config.readScope === "anywhere");
}

// The tools a configuration registers: the listed ones, or the defaults its options make possible.
function registered(config: GuidanceConfig): readonly ToolName[] {
  if (config.tools) return config.tools;
  return [
    "read",
    "write",
    "edit",
    ...(config.search ? (["glob", "grep"] as const) : []),
    ...(config.runner !== "none" && bashAllowed(config) ? (["bash"] as const) : []),
  ];
}

interface Facts {
  readonly has: (tool: ToolName) => boolean;
  readonly guarded: boolean;
  readonly confining: boolean;
  readonly mutating: boolean;
  readonly bashRuns: boolean;
  readonly limits: typeof DEFAULT_LIMITS;
}

function facts(config: GuidanceConfig): Facts {
  const tools = registered(config);
  const has = (tool: ToolName) => tools.includes(tool);
  const confining = config.sandbox !== undefined && config.sandbox !== "full-access";
  return {
    has,
    guarded: config.policy === "read-before-write",
    confining,
    mutating: has("write") || has("edit"),
    bashRuns: has("bash") && config.runner === "complete",
    limits: { ...DEFAULT_LIMITS, ...config.limits },
  };
}

/** A statement a model may read, and exactly when it may appear. */
interface Statement {
  readonly says: string;
  /** Where it is looked for: the guidance, or one tool's description plus its schema. */
  readonly in: "guidance" | ToolName;
  readonly when: (config: GuidanceConfig, f: Facts) => boolean;
}

const STATEMENTS: readonly Statement[] = [
  // read
  { says: "Read a file before changing it.", in: "guidance", when: (_, f) => f.has("read") && f.guarded && f.mutating },
  // write
  { says: "to replace an existing file, read it first", in: "guidance", when: (_, f) => f.has("write") && f.guarded },
  { says: "requires having read it in this session", in: "write", when: (_, f) => f.guarded },
  { says: "Use edit to change part of a file.", in: "guidance", when: (_, f) => f.has("write") && f.has("edit") },
  // edit
  { says: "file read in this session", in: "edit", when: (_, f) => f.guarded },
  { says: "copied from read output", in: "edit", when: (_, f) => f.has("read") },
  { says: "Copy old_string from read output", in: "guidance", when: (_, f) => f.has("edit") && f.has("read") },
  // glob and grep
  { says: "the footer says where the complete list is", in: "glob", when: (c) => c.spill },
  { says: "the footer says where the rest is", in: "grep", when: (c) => c.spill },
  { says: "sampled across the top-level entries", in: "glob", when: (c) => c.overCap === "sample" },
  { says: "a larger result shows the", in: "glob", when: (c) => c.overCap === "head" },
  { says: "use ls in bash", in: "guidance", when: (c, f) => f.has("glob") && c.search && f.bashRuns },
  { says: "read a match's file", in: "guidance", when: (c, f) => f.has("grep") && c.search && f.has("read") },
  { says: "the footer says where the full list is", in: "guidance", when: (c, f) => f.has("glob") && c.search && c.spill },
  { says: "glob lists files", in: "guidance", when: (c, f) => f.has("glob") && c.search },
  { says: "glob cannot run in this session: no search backend was configured.", in: "guidance", when: (c, f) => f.has("glob") && !c.search },
  { says: "grep searches contents", in: "guidance", when: (c, f) => f.has("grep") && c.search },
  { says: "grep cannot run in this session: no search backend was configured.", in: "guidance", when: (c, f) => f.has("grep") && !c.search },
  // bash
  { says: "Background jobs are killed", in: "guidance", when: (_, f) => f.bashRuns },
  { says: "[exit code: N]", in: "guidance", when: (_, f) => f.bashRuns },
  { says: `bash cannot run in this session: ${GAP}.`, in: "guidance", when: (c, f) => f.has("bash") && c.runner === "gapped" },
  { says: "bash cannot run in this session: no process runner was configured.", in: "guidance", when: (c, f) => f.has("bash") && c.runner === "none" },
  // the sandbox
  { says: "sandbox", in: "guidance", when: (_, f) => f.confining && f.mutating },
  { says: "The read-only sandbox refuses every write", in: "guidance", when: (c, f) => c.sandbox === "read-only" && f.mutating },
  { says: "The workspace-write sandbox refuses writes outside the workspace", in: "guidance", when: (c, f) => c.sandbox === "workspace-write" && f.mutating },
  { says: "/tmp", in: "guidance", when: (c, f) => c.sandbox === "workspace-write" && f.mutating && c.writableRoots.includes("/tmp") },
  { says: "/var/cache/build", in: "guidance", when: (c, f) => c.sandbox === "workspace-write" && f.mutating && c.writableRoots.includes("/var/cache/build") },
  { says: ", and to .git", in: "guidance", when: (c, f) => c.sandbox === "workspace-write" && f.mutating },
  { says: "see only the workspace", in: "guidance", when: (c, f) => c.readScope === "workspace" && (f.has("read") || f.has("glob") || f.has("grep")) },
  { says: 'Paths matching ".env", "*.pem" are refused to every tool.', in: "guidance", when: (c) => c.deny.length > 0 },
  { says: "ask the user", in: "guidance", when: (c, f) => f.confining && f.mutating && c.approver },
  {
    says: "ask the user to allow one call, except for a path no tool may read.",
    in: "guidance",
    when: (c, f) => f.confining && f.mutating && c.approver && (c.readScope === "workspace" || c.deny.length > 0),
  },
  { says: "sandbox_permissions", in: "write", when: (c, f) => f.confining && c.approver },
  { says: "sandbox_permissions", in: "edit", when: (c, f) => f.confining && c.approver },
  // several roots
  {
    says: "Workspace roots: /ws, where relative paths start; lib (/other/lib); lib-2 (/more/lib). A path that starts",
    in: "guidance",
    when: (c) => c.roots.length > 0,
  },
  ...(["read", "write", "edit", "glob", "grep"] as const).map((tool) => ({
    says: "a path in another root starts with its name (lib, lib-2)",
    in: tool,
    when: (c: GuidanceConfig) => c.roots.length > 0,
  })),
  {
    says: "refuses writes outside the workspace, lib, lib-2 and /tmp",
    in: "guidance",
    when: (c, f) => c.sandbox === "workspace-write" && f.mutating && c.roots.length > 0,
  },
  // Never true of any configuration: the toolkit cannot know that a writable root is a temp directory.
  { says: "temp director", in: "guidance", when: () => false },
];

function text(kit: Toolkit, where: Statement["in"]): string | undefined {
  if (where === "guidance") return kit.guidance;
  const definition = kit.definitions.find((d) => d.name === where);
  return definition && `${definition.description}\n${JSON.stringify(definition.inputSchema)}`;
}

describe("every statement holds for the configuration that produced it", () => {
  const configs = allConfigs();

  test(`${configs.length} configurations: each statement appears exactly when it is true`, () => {
    const wrong: string[] = [];
    let built = 0;
    for (const config of configs) {
      const f = facts(config);
      // bash runs outside the fence: listed where only a confined one could be offered, it is a configuration error.
      if (!bashAllowed(config) && config.tools?.includes("bash")) {
        expect(() => build(config)).toThrow(/bash is not available/);
        continue;
      }
      const kit = build(config);
      built++;
      expect(kit.definitions.map((d) => d.name)).toEqual(registered(config));
      for (const statement of STATEMENTS) {
        const haystack = text(kit, statement.in);
        if (haystack === undefined) continue;
        const present = haystack.includes(statement.says);
        if (present !== statement.when(config, f)) {
          wrong.push(`${present ? "says" : "omits"} ${JSON.stringify(statement.says)} in ${statement.in} for ${JSON.stringify(config)}`);
        }
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(built).toBeGreaterThan(500);
  });

  test("each limit is stated as configured", () => {
    for (const config of configs) {
      if (!bashAllowed(config) && config.tools?.includes("bash")) continue;
      const kit = build(config);
      const { limits } = facts(config);
      const checks: [ToolName, number][] = [
        ["read", limits.readLines],
        ["glob", limits.globMaxResults],
        ["grep", limits.grepMaxMatches],
        ["bash", limits.bashOutputBytes],
        ["bash", limits.bashMaxTimeoutMs / 1000],
        ["bash", limits.bashTimeoutMs / 1000],
      ];
      for (const [tool, value] of checks) {
        const haystack = text(kit, tool);
        if (haystack !== undefined) expect(haystack, `${tool} ${JSON.stringify(config.limits)}`).toContain(String(value));
      }
    }
  });

  test("the guidance names no tool that is not registered", () => {
    for (const config of configs) {
      if (!bashAllowed(config) && config.tools?.includes("bash")) continue;
      const kit = build(config);
      const f = facts(config);
      for (const tool of ["glob", "grep", "bash", "edit"] as const) {
        if (!f.has(tool)) expect(kit.guidance, `${tool} in ${JSON.stringify(config)}`).not.toMatch(new RegExp(`\\b${tool}\\b`));
      }
    }
  });
});

describe("pinned renderings", () => {
  test.for(Object.entries(PINNED))("%s", ([name, config]) => {
    const pinned = readFileSync(join(guidanceDir, `${name}.expected.md`), "utf8");
    expect(renderPinned(name, config)).toBe(pinned);
  });
});
