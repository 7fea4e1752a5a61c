// Finding and signalling a process tree. A child started in its own session (setsid: Node's `detached`, the
// `setsid` program under Deno) leads a process group that its descendants inherit, and one group signal
// reaches them all at once, without a race against them forking. The process table (Linux's /proc, or `ps`
// where /proc may not be read) adds what a group signal cannot: whether anything of the tree still runs, not
// counting zombies (orphans are reparented to PID 1, and a PID 1 that does not reap them leaves zombies that a
// `kill(-pgid, 0)` probe still sees), and members that moved to another group of the session (job control) or,
// for a child without a session of its own, descendants by parentage. A descendant that starts a new session
// of its own has left the tree on purpose and is out of reach.
import type { KillSignal } from "./types.ts";

/** The fields of `/proc/<pid>/stat` the tree needs. */
export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  /** One letter: R, S, D, Z (zombie), X (dead), T, ... */
  readonly state: string;
}

/** Parses one `/proc/<pid>/stat` line; undefined when it does not look like one. */
export function parseProcStat(text: string): ProcEntry | undefined {
  // The command name sits in parentheses and may itself contain spaces and parentheses: split after the last ")".
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const [state, ppid, pgrp, session] = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const numbers = [pid, Number(ppid), Number(pgrp), Number(session)];
  if (state === undefined || !numbers.every(Number.isInteger)) return undefined;
  return { pid, ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session), state };
}

/**
 * The live members of the tree rooted at `root`: every process of its session when it leads one, and its
 * descendants by parentage. Zombies and dead entries have exited and do not count.
 */
export function liveTree(table: readonly ProcEntry[], root: number, leadsSession: boolean): ProcEntry[] {
  const children = new Map<number, ProcEntry[]>();
  for (const entry of table) {
    const siblings = children.get(entry.ppid);
    if (siblings) siblings.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const members = new Map<number, ProcEntry>();
  const stack = table.filter((entry) => entry.pid === root || (leadsSession && entry.session === root));
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if (members.has(entry.pid)) continue;
    members.set(entry.pid, entry);
    stack.push(...(children.get(entry.pid) ?? []));
  }
  return [...members.values()].filter((entry) => entry.state !== "Z" && entry.state !== "X");
}

/** Whom to signal: the root's group when it leads one, plus each member outside that group. */
export interface SignalTargets {
  readonly groups: readonly number[];
  readonly pids: readonly number[];
}

/** What an adapter provides so the tree can be found and signalled. */
export interface ProcessTreeHost {
  /** The pid the spawned program runs as. */
  readonly root: number;
  /** True when the root leads its own session and process group. */
  readonly leadsGroup: boolean;
  /** Every process of the system, or undefined where they cannot be listed (see {@link readProcTable}). */
  table(): Promise<readonly ProcEntry[] | undefined>;
  /** Delivers the signal to whole groups (by group id) and single processes; ignores those already gone. */
  send(signal: KillSignal, targets: SignalTargets): Promise<void>;
  /** Whether anything of the tree is left, where the processes cannot be listed. */
  fallbackAlive(): Promise<boolean>;
  /**
   * A cheap proof that nothing of the tree is left, such as an empty process group; false when it cannot
   * tell. Checked before listing every process of the system, which costs milliseconds on each run.
   */
  gone?(): boolean;
}

/** The `alive` and `signal` halves of a SpawnedProcess. */
export interface ProcessTree {
  alive(): Promise<boolean>;
  signal(signal: KillSignal): Promise<void>;
}

export function processTree(host: ProcessTreeHost): ProcessTree {
  const members = async (): Promise<ProcEntry[] | undefined> => {
    const table = await host.table().catch(() => undefined);
    return table && liveTree(table, host.root, host.leadsGroup);
  };
  return {
    async alive() {
      if (host.gone?.()) return false;
      const live = await members();
      return live === undefined ? host.fallbackAlive() : live.length > 0;
    },
    async signal(signal) {
      const live = await members();
      const groups = host.leadsGroup ? [host.root] : [];
      const outside = (live ?? []).filter((entry) => !(host.leadsGroup && entry.pgrp === host.root)).map((entry) => entry.pid);
      const pids = live === undefined && !host.leadsGroup ? [host.root] : outside;
      await host.send(signal, { groups, pids });
    },
  };
}

/** Directory listing and text reads, as a runtime offers them. */
export interface ProcIo {
  readDir(path: string): Promise<readonly string[]>;
  readText(path: string): Promise<string>;
}

/** The process table from Linux's `/proc`; undefined where there is none or it may not be read. */
export async function readProcTable(io: ProcIo): Promise<ProcEntry[] | undefined> {
  let names: readonly string[];
  try {
    names = await io.readDir("/proc");
  } catch {
    return undefined;
  }
  const pids = names.filter((name) => /^\d+$/.test(name));
  if (pids.length === 0) return undefined;
  // A process may exit between the listing and the read; it is simply not part of the table.
  const entries = await Promise.all(pids.map((pid) => io.readText(`/proc/${pid}/stat`).then(parseProcStat, () => undefined)));
  return entries.filter((entry): entry is ProcEntry => entry !== undefined);
}

/** The arguments that make `ps` print the table {@link parsePsTable} reads. */
export const PS_TABLE_ARGS: readonly string[] = ["-e", "-o", "pid=,ppid=,pgid=,sid=,stat="];

/** Parses the output of `ps` run with {@link PS_TABLE_ARGS}; undefined when it is not that table. */
export function parsePsTable(text: string): ProcEntry[] | undefined {
  const entries: ProcEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const [pid, ppid, pgrp, session, stat] = line.trim().split(/\s+/);
    const numbers = [pid, ppid, pgrp, session].map(Number);
    if (stat === undefined || !numbers.every(Number.isInteger)) return undefined;
    entries.push({ pid: numbers[0]!, ppid: numbers[1]!, pgrp: numbers[2]!, session: numbers[3]!, state: stat.charAt(0) });
  }
  return entries.length > 0 ? entries : undefined;
}
