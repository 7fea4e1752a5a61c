import type { FsCapabilities, ShellConfinement } from "../core/mod.ts";
import { checkBinding, checkSubject } from "./errors.ts";
import type { CreateSubject, Harness, Subject } from "./harness.ts";

/** One behaviour, checked on a fresh subject. */
export interface ConformanceCase {
  readonly name: string;
  /** The reason this case does not apply to this subject; undefined when it does. */
  readonly skip?: (traits: SubjectTraits) => string | undefined;
  run(subject: Subject, context: CaseContext): Promise<void>;
}

/** What a case is told about the run: how hard to press its stress loops. */
export interface CaseContext {
  /** The run's stress factor (`ConformanceOptions.stress`); 1 by default. */
  readonly stress: number;
  /** A stress loop's count at this factor: `count` itself at 1, rounded up, never below 1. */
  rounds(count: number): number;
}

/**
 * What a case may depend on: the provider's capabilities, the subject's search backend by name, its race
 * hooks, and whether it is an overlay with a probe of its base.
 */
export interface SubjectTraits extends FsCapabilities {
  readonly search: string | undefined;
  readonly races: { readonly sibling: boolean; readonly swapper: boolean; readonly spawn: boolean };
  readonly overlay: boolean;
  /** The subject's OS confinement, as detected; undefined when it has none to offer. */
  readonly confinement: ShellConfinement | undefined;
}

/** Cases about one concern, exported so an adapter author can run a single group while debugging. */
export interface ConformanceGroup {
  readonly name: string;
  readonly cases: readonly ConformanceCase[];
}

export interface ConformanceOptions {
  /** Prefix for every case name, such as the subject's name. */
  readonly prefix?: string;
  /** Register only these groups (by name); a name that is no group's is a RangeError, not an empty run. */
  readonly groups?: readonly string[];
  /**
   * A factor for the stress cases' loop counts (races, rewrites, repeated reads, killed writers). At 1 (the
   * default) each case runs the count its name states, sized so that the bug it was written for fails it; 0.25
   * is a quicker pass while developing, 4 a harsher one. At any other factor than 1 the case names say so.
   */
  readonly stress?: number;
}

/**
 * What was registered: the case names, and every case of the chosen groups that was not, with its reason
 * (also handed to the harness's `skip`, when it has one). Together they are every case of those groups.
 */
export interface ConformanceReport {
  readonly registered: readonly string[];
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * Registers every case of `groups` with the harness. One subject is built first to read the backend's
 * capabilities, so call it with `await` at the top level of a test module.
 */
export async function registerGroups(
  groups: readonly ConformanceGroup[],
  harness: Harness,
  createSubject: CreateSubject,
  options?: ConformanceOptions,
): Promise<ConformanceReport> {
  checkBinding(harness, createSubject);
  const known = new Set(groups.map((group) => group.name));
  const unknown = (options?.groups ?? []).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new RangeError(`No conformance group is named ${unknown.map((name) => JSON.stringify(name)).join(", ")}; the groups are ${[...known].join(", ")}`);
  }
  const stress = options?.stress ?? 1;
  if (!Number.isFinite(stress) || stress <= 0) {
    throw new RangeError(`The stress factor must be a positive number, such as 0.25, 1 or 4; got ${String(options?.stress)}`);
  }
  const context: CaseContext = { stress, rounds: (count) => Math.max(1, Math.ceil(count * stress)) };
  const first = await createSubject();
  checkSubject(first);
  const races = first.races;
  const traits: SubjectTraits = {
    ...first.provider.capabilities,
    search: first.search?.name,
    races: { sibling: races?.sibling !== undefined, swapper: races?.swapper !== undefined, spawn: races?.spawn !== undefined },
    overlay: first.baseProbe !== undefined && typeof (first.provider as { commit?: unknown }).commit === "function",
    confinement: first.confinement,
  };
  await first.dispose();
  const registered: string[] = [];
  const skipped: { name: string; reason: string }[] = [];
  const prefix = options?.prefix ? `${options.prefix} ` : "";
  for (const group of groups) {
    if (options?.groups && !options.groups.includes(group.name)) continue;
    for (const testCase of group.cases) {
      const name = `${prefix}${group.name}: ${testCase.name}${stress === 1 ? "" : ` [stress x${stress}]`}`;
      const reason = testCase.skip?.(traits);
      if (reason !== undefined) {
        skipped.push({ name, reason });
        harness.skip?.(name, reason);
        continue;
      }
      registered.push(name);
      harness.test(name, async () => {
        const subject = await createSubject();
        try {
          await testCase.run(subject, context);
        } finally {
          await subject.dispose();
        }
      });
    }
  }
  return { registered, skipped };
}
