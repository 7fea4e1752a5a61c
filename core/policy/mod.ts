/**
 * Policy: the observation ledger behind read-before-write, and the sandbox — one policy (modes, writable and
 * readable roots, protected paths, the deny list, the network) from which the file tools' fence, their read
 * checks, the search filter and the confined shell's view are all derived.
 *
 * @module
 */
export { ObservationLedger } from "./ledger.ts";
export type { Observation } from "./ledger.ts";
export { readAccess } from "./access.ts";
export type { ReadAccess } from "./access.ts";
export { DenyList } from "./deny.ts";
export type { DenyListOptions } from "./deny.ts";
export {
  accessWords,
  checkReadable,
  DEFAULT_PROTECTED_PATHS,
  isWiderMode,
  READ_SCOPES,
  readableFilter,
  resolveSandbox,
  rulesFence,
  SANDBOX_MODES,
  sandboxFence,
  sandboxMarker,
  sandboxPolicy,
  widerModes,
} from "./sandbox.ts";
export type { ReadScope, SandboxMode, SandboxPolicy, SandboxRule, SandboxRules } from "./sandbox.ts";
export { guardSearch } from "./search.ts";
export { DEFAULT_DENY_SCAN_LIMIT, shellView } from "./shell.ts";
export type { ShellViewOptions } from "./shell.ts";
