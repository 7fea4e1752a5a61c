// What the CLI's commands share: the usage error, and the sandbox flags every surface takes (the tool-call
// commands, `acp` and `mcp`), parsed one way.
import { READ_SCOPES, type ReadScope, SANDBOX_MODES, type SandboxMode } from "../../core/mod.ts";

/** Bad command-line usage: the message is printed with the usage text, and the status is 2. */
export class UsageError extends Error {}

/** The sandbox flags, as given (undefined where a flag was not). */
export interface SandboxFlags {
  sandbox: SandboxMode | undefined;
  readScope: ReadScope | undefined;
  readonly deny: string[];
  network: boolean;
  /** Variables bash inherits besides the default allow-list (ToolkitOptions.bashEnv). */
  readonly bashEnv: string[];
}

export const noFlags = (): SandboxFlags => ({ sandbox: undefined, readScope: undefined, deny: [], network: false, bashEnv: [] });

/** Reads one sandbox flag at argv[i]; returns how many arguments it took (0 when it is not one). */
export function sandboxFlag(argv: readonly string[], i: number, flags: SandboxFlags): number {
  const arg = argv[i] as string;
  if (arg === "--network") {
    flags.network = true;
    return 1;
  }
  if (arg !== "--sandbox" && arg !== "--read-scope" && arg !== "--deny" && arg !== "--bash-env") return 0;
  const value = argv[i + 1];
  if (value === undefined) throw new UsageError(`${arg} needs a value`);
  if (arg === "--sandbox") {
    if (!(SANDBOX_MODES as readonly string[]).includes(value)) throw new UsageError(`--sandbox must be one of ${SANDBOX_MODES.join(", ")}, got "${value}"`);
    flags.sandbox = value as SandboxMode;
  } else if (arg === "--read-scope") {
    if (!(READ_SCOPES as readonly string[]).includes(value)) throw new UsageError(`--read-scope must be one of ${READ_SCOPES.join(", ")}, got "${value}"`);
    flags.readScope = value as ReadScope;
  } else if (arg === "--bash-env") flags.bashEnv.push(value);
  else flags.deny.push(value);
  return 2;
}

/** A flag's value that must be a positive whole number. */
export function positiveFlag(flag: string, text: string): number {
  if (!/^[1-9]\d*$/.test(text) || !Number.isSafeInteger(Number(text))) throw new UsageError(`${flag} takes a positive whole number, got "${text}"`);
  return Number(text);
}
