/**
 * The conformance suite: one runner-agnostic set of cases that every FileSystem backend must pass. Bind it
 * to any runner whose `test(name, fn)` fits {@link Harness}:
 *
 * ```ts
 * import { test } from "vitest"; // or node:test's test, or a wrapper around Deno's test registration
 * import { runConformance } from "toolfs/conformance";
 * await runConformance({ test }, createMySubject);
 * ```
 *
 * @module
 */
import { abortGroup } from "./groups/abort.ts";
import { capabilitiesGroup } from "./groups/capabilities.ts";
import { encodingGroup } from "./groups/encoding.ts";
import { errorsGroup } from "./groups/errors.ts";
import { listGroup } from "./groups/list.ts";
import { mutationsGroup } from "./groups/mutations.ts";
import { mutationsRaceGroup } from "./groups/mutations-race.ts";
import { overlayGroup } from "./groups/overlay.ts";
import { overlayMutationsGroup } from "./groups/overlay-mutations.ts";
import { raceGroup } from "./groups/race.ts";
import { readBytesGroup } from "./groups/read-bytes.ts";
import { readGroup } from "./groups/read.ts";
import { resolveGroup } from "./groups/resolve.ts";
import { searchDifferentialGroup } from "./groups/search-differential.ts";
import { spillGroup } from "./groups/spill.ts";
import { statGroup } from "./groups/stat.ts";
import { symlinksGroup } from "./groups/symlinks.ts";
import { toolsAccessGroup } from "./groups/tools-access.ts";
import { toolsEditGroup } from "./groups/tools-edit.ts";
import { toolsPatchGroup } from "./groups/tools-patch.ts";
import { toolsPolicyGroup } from "./groups/tools-policy.ts";
import { toolsReadGroup } from "./groups/tools-read.ts";
import { toolsReadMediaGroup } from "./groups/tools-read-media.ts";
import { toolsReadPdfGroup } from "./groups/tools-read-pdf.ts";
import { toolsRootsGroup } from "./groups/tools-roots.ts";
import { toolsSandboxGroup } from "./groups/tools-sandbox.ts";
import { toolsSearchGroup } from "./groups/tools-search.ts";
import { toolsToolkitGroup } from "./groups/tools-toolkit.ts";
import { toolsWriteGroup } from "./groups/tools-write.ts";
import { versionGuardGroup } from "./groups/version-guard.ts";
import { writeGroup } from "./groups/write.ts";
import type { CreateSubject, Harness } from "./harness.ts";
import { type ConformanceGroup, type ConformanceOptions, type ConformanceReport, registerGroups } from "./suite.ts";

export { AssertionError, assert, assertBytes, assertEquals, assertNotEquals, assertRejectsCode, assertThrowsType } from "./assert.ts";
export type { CreateSubject, Harness, Probe, ProbeInfo, RaceHooks, RemoteWriter, Subject, WorkerJob } from "./harness.ts";
export { appendRounds, editRounds, parseWorkerJob, runWorkerJob } from "./worker.ts";
export type { WorkerChannel } from "./worker.ts";
export { CONFORMANCE_ERROR_CODES, ConformanceError, type ConformanceErrorCode, isConformanceError } from "./errors.ts";
export { registerGroups } from "./suite.ts";
export type { CaseContext, ConformanceCase, ConformanceGroup, ConformanceOptions, ConformanceReport, SubjectTraits } from "./suite.ts";
export {
  abortGroup,
  capabilitiesGroup,
  encodingGroup,
  errorsGroup,
  listGroup,
  mutationsGroup,
  mutationsRaceGroup,
  overlayGroup,
  overlayMutationsGroup,
  raceGroup,
  readBytesGroup,
  readGroup,
  resolveGroup,
  searchDifferentialGroup,
  spillGroup,
  statGroup,
  symlinksGroup,
  toolsAccessGroup,
  toolsEditGroup,
  toolsPatchGroup,
  toolsPolicyGroup,
  toolsReadGroup,
  toolsReadMediaGroup,
  toolsReadPdfGroup,
  toolsRootsGroup,
  toolsSandboxGroup,
  toolsSearchGroup,
  toolsToolkitGroup,
  toolsWriteGroup,
  versionGuardGroup,
  writeGroup,
};

/** The provider seam's groups, in the order they run. */
export const seamGroups: readonly ConformanceGroup[] = [
  capabilitiesGroup,
  resolveGroup,
  statGroup,
  readGroup,
  readBytesGroup,
  listGroup,
  writeGroup,
  versionGuardGroup,
  mutationsGroup,
  encodingGroup,
  symlinksGroup,
  errorsGroup,
  abortGroup,
];

/** The search backend's groups; their cases skip subjects without one. */
export const searchGroups: readonly ConformanceGroup[] = [searchDifferentialGroup];

/**
 * The model-facing tools' groups: the toolkit, several roots, read, write, edit, the policy, the sandbox, the read scope and
 * deny list, glob and grep.
 */
export const toolGroups: readonly ConformanceGroup[] = [
  toolsToolkitGroup,
  toolsRootsGroup,
  toolsReadGroup,
  toolsReadMediaGroup,
  toolsReadPdfGroup,
  toolsWriteGroup,
  toolsEditGroup,
  toolsPatchGroup,
  toolsPolicyGroup,
  toolsSandboxGroup,
  toolsAccessGroup,
  toolsSearchGroup,
  spillGroup,
];

/** Races against other providers, other processes and a directory swapper; cases skip subjects without the hooks. */
export const raceGroups: readonly ConformanceGroup[] = [raceGroup, mutationsRaceGroup];

/** The overlay's own group; its cases skip subjects that are not overlays (see createOverlaySubject). */
export const overlayGroups: readonly ConformanceGroup[] = [overlayGroup, overlayMutationsGroup];

/** Every group, in the order they run. */
export const allGroups: readonly ConformanceGroup[] = [...seamGroups, ...searchGroups, ...toolGroups, ...raceGroups];

/**
 * Registers the whole suite with `harness`, building a fresh subject for every case. Await it at the top
 * level of the test module: it builds one subject first to read the backend's capabilities.
 */
export function runConformance(harness: Harness, createSubject: CreateSubject, options?: ConformanceOptions): Promise<ConformanceReport> {
  return registerGroups(allGroups, harness, createSubject, options);
}
export { createOverlaySubject, overlayProbe } from "./overlay.ts";
