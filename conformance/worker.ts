// The writer the race group starts in another process. A subject's `spawn` hook runs a small entry point
// of its own runtime (adapters/node/worker.ts, adapters/deno/worker.ts) that builds a provider of the backend
// under test and hands it here, with the job and a line-based channel to the case.
import { type FileSystem, FsError, isFsError } from "../core/mod.ts";
import type { WorkerJob } from "./harness.ts";

/** The worker's side of the channel: lines out, and the case's go-ahead in. */
export interface WorkerChannel {
  send(line: string): void;
  /** Resolves when the case says go. */
  readonly go: Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const forever = (): Promise<never> => new Promise<never>(() => {});

/** Runs one job; resolves when it is done (the stalling jobs never are: they wait to be killed). */
export async function runWorkerJob(provider: FileSystem, job: WorkerJob, channel: WorkerChannel): Promise<void> {
  const target = await provider.resolve(job.path);
  if (job.kind === "append") {
    channel.send("ready");
    await channel.go;
    const applied = await appendRounds(provider, job.path, job.tag, job.rounds);
    channel.send(JSON.stringify(applied));
    return;
  }
  if (job.kind === "stall-staging") {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield encoder.encode("staged bytes of a writer that will be killed\n");
      // The first chunk is in the staged file once the write asks for the next one.
      channel.send("staged");
      await forever();
    }
    await provider.write(target, chunks());
    return;
  }
  if (job.kind === "shuttle") {
    const names = [target, await provider.resolve(job.other)] as const;
    let from = (await provider.lstat(job.path)) ? 0 : 1;
    for (let round = 0; ; round++) {
      await provider.move(names[from]!, names[1 - from]!);
      from = 1 - from;
      if (round === 0) channel.send("moving");
    }
  }
  if (job.kind === "rewrite") {
    channel.send("writing");
    const block = encoder.encode(`${"x".repeat(16 * 1024 - 1)}\n`);
    async function* megabyte(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 64; i++) yield block;
    }
    for (;;) await provider.write(target, megabyte());
  }
  let checks = 0;
  await provider.write(target, encoder.encode("written by a writer that will be killed\n"), {
    fence: async () => {
      // The second check is the final one, made while the publication lock is held.
      if (++checks === 2) {
        channel.send("locked");
        await forever();
      }
    },
  });
}

/**
 * `rounds` times: read the file, append `<tag> <i>`, publish guarded by the version read. Returns the rounds
 * whose write reported success; a round refused as stale is simply not applied.
 */
export async function appendRounds(provider: FileSystem, path: string, tag: string, rounds: number): Promise<number[]> {
  const target = await provider.resolve(path);
  const applied: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const { bytes, version } = await provider.readBytes(target, { maxBytes: 1 << 20 });
    const next = encoder.encode(`${decoder.decode(bytes)}${tag} ${i}\n`);
    try {
      await provider.write(target, next, { guard: { kind: "replaceIfVersion", version } });
      applied.push(i);
    } catch (error) {
      if (!isFsError(error, "FS_STALE_VERSION")) throw error;
    }
  }
  return applied;
}

/** Parses a worker's job from its command line, or throws. */
export function parseWorkerJob(text: string): WorkerJob {
  const job = JSON.parse(text) as WorkerJob;
  if (!["append", "stall-staging", "stall-locked", "rewrite", "shuttle"].includes(job.kind)) {
    throw new FsError("FS_IO_ERROR", `unknown worker job ${JSON.stringify(text)}`);
  }
  return job;
}
