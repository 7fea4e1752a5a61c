/**
 * Policy: the observation ledger behind read-before-write, and the sandbox fence for publications.
 *
 * @module
 */
export { ObservationLedger } from "./ledger.ts";
export type { Observation } from "./ledger.ts";
export { accessWords, isWiderMode, SANDBOX_MODES, sandboxFence, sandboxMarker, widerModes } from "./sandbox.ts";
export type { SandboxMode } from "./sandbox.ts";
