// What the CLI's commands share: the usage error, one reader of command lines (node:util's parseArgs, which
// Deno serves too: `--flag value`, `--flag=value`, repeats, `--` and positionals), and the sandbox flags every
// surface takes (the tool-call commands, `acp` and `mcp`), parsed one way.
import { parseArgs } from "node:util";
import { READ_SCOPES, type ReadScope, SANDBOX_MODES, type SandboxMode, type SandboxOptions } from "../../core/mod.ts";
import type { CliHost } from "./host.ts";

/** Bad command-line usage: the message is printed with the usage text, and the status is 2. */
export class UsageError extends Error {}

/** The options a command takes, as parseArgs takes them. */
export type OptionSpec = Readonly<Record<string, { readonly type: "string" | "boolean"; readonly multiple?: boolean; readonly short?: string }>>;

/** A command line read against its options: strings (arrays where repeatable) and booleans, in one record. */
export interface ReadArgs {
  readonly values: Readonly<Record<string, string | string[] | boolean | undefined>>;
  readonly positionals: readonly string[];
  /** --help or -h came before any mistake. */
  readonly help: boolean;
}

/**
 * Reads argv against `spec` (plus --help/-h). parseArgs runs non-strict, so that its tokens, checked here in
 * order, give the house's messages: `unknown(arg)` for an option not in spec, "--x needs a value", "--x takes
 * no value". Non-strict also keeps a value that starts with a dash (`--max-sessions -1`), which strict mode
 * would refuse as ambiguous before the value's own check could say what is wrong with it.
 */
export function readArgs(argv: readonly string[], spec: OptionSpec, unknown: (arg: string) => string): ReadArgs {
  const options: OptionSpec = { ...spec, help: { type: "boolean", short: "h" } };
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, string | string[] | boolean | undefined> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value);
    if (token.kind !== "option") continue;
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    // A short flag other than -h arrives under its own letter as its name; rawName is what the user typed.
    if (!option || (token.rawName.length === 2 && token.rawName !== `-${option.short}`)) throw new UsageError(unknown(token.rawName));
    if (token.name === "help") {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
      return { values, positionals, help: true };
    }
    if (option.type === "boolean") {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
      values[token.name] = true;
    } else if (token.value === undefined) throw new UsageError(`${token.rawName} needs a value`);
    else if (option.multiple) values[token.name] = [...((values[token.name] as string[] | undefined) ?? []), token.value];
    else values[token.name] = token.value;
  }
  return { values, positionals, help: false };
}

/** A string option's value, if given. */
export const stringFlag = (args: ReadArgs, name: string): string | undefined => args.values[name] as string | undefined;

/** A value that must be one of `values`; `list` words them in the message. */
export function oneOf<T extends string>(flag: string, text: string, values: readonly T[], list = `one of ${values.join(", ")}`): T {
  if (!(values as readonly string[]).includes(text)) throw new UsageError(`${flag} must be ${list}, got "${text}"`);
  return text as T;
}

/** The sandbox flags, as given (undefined where a flag was not). */
export interface SandboxFlags {
  sandbox: SandboxMode | undefined;
  readScope: ReadScope | undefined;
  readonly deny: string[];
  network: boolean;
  /** Variables bash inherits besides the default allow-list (ToolkitOptions.bashEnv). */
  readonly bashEnv: string[];
}

/** The sandbox flags' options, for a command's OptionSpec. */
export const SANDBOX_OPTIONS: OptionSpec = {
  sandbox: { type: "string" },
  "read-scope": { type: "string" },
  deny: { type: "string", multiple: true },
  network: { type: "boolean" },
  "bash-env": { type: "string", multiple: true },
};

/** The sandbox flags of a command line read with SANDBOX_OPTIONS. */
export function sandboxFlags(args: ReadArgs): SandboxFlags {
  const sandbox = stringFlag(args, "sandbox");
  const readScope = stringFlag(args, "read-scope");
  return {
    sandbox: sandbox === undefined ? undefined : oneOf("--sandbox", sandbox, SANDBOX_MODES),
    readScope: readScope === undefined ? undefined : oneOf("--read-scope", readScope, READ_SCOPES),
    deny: [...((args.values.deny as string[] | undefined) ?? [])],
    network: args.values.network === true,
    bashEnv: [...((args.values["bash-env"] as string[] | undefined) ?? [])],
  };
}

/** A flag's value that must be a positive whole number. */
export function positiveFlag(flag: string, text: string): number {
  if (!/^[1-9]\d*$/.test(text) || !Number.isSafeInteger(Number(text))) throw new UsageError(`${flag} takes a positive whole number, got "${text}"`);
  return Number(text);
}

/**
 * The toolkit's sandbox options for the flags, or undefined when none was given. A read scope, a deny list or
 * the network flag without --sandbox means full-access writes with those limits.
 */
export async function sandboxOptions(flags: SandboxFlags, host: CliHost, withBash: boolean): Promise<Omit<SandboxOptions, "approve"> | undefined> {
  if (!flags.sandbox && !flags.readScope && flags.deny.length === 0 && !flags.network) return undefined;
  const mode = flags.sandbox ?? "full-access";
  const confine = withBash && host.confinement && (mode !== "full-access" || flags.deny.length > 0 || flags.readScope === "workspace");
  return {
    mode,
    writableRoots: host.tempRoots,
    ...(flags.readScope ? { readScope: flags.readScope } : {}),
    ...(flags.deny.length > 0 ? { deny: flags.deny } : {}),
    ...(host.home ? { home: host.home } : {}),
    network: flags.network,
    ...(confine ? { confinement: await host.confinement!() } : {}),
  };
}
