import type { FsVersion, FsWriteGuard } from "../fs/types.ts";

/** What an actor last saw of a file: present at a version, or confirmed absent. */
export type Observation = { readonly kind: "present"; readonly version: FsVersion } | { readonly kind: "absent" };

/**
 * Remembers, per actor and canonical key, what the actor last observed. It decides nothing about
 * freshness itself: it turns an observation into the guard the publication enforces, so staleness is judged
 * by the provider at the moment of publication and never by a separate, racy check.
 */
export class ObservationLedger {
  readonly #byActor = new Map<unknown, Map<string, Observation>>();

  record(actor: unknown, key: string, observation: Observation): void {
    let seen = this.#byActor.get(actor);
    if (!seen) this.#byActor.set(actor, (seen = new Map()));
    seen.set(key, observation);
  }

  observed(actor: unknown, key: string): Observation | undefined {
    return this.#byActor.get(actor)?.get(key);
  }

  /** A write may replace only what the actor saw; anything else must still be absent. */
  writeGuard(actor: unknown, key: string): FsWriteGuard {
    const seen = this.observed(actor, key);
    return seen?.kind === "present" ? { kind: "replaceIfVersion", version: seen.version } : { kind: "createIfAbsent" };
  }

  /** Drops what one actor (or every actor) has seen. */
  forget(actor?: unknown): void {
    if (actor === undefined) this.#byActor.clear();
    else this.#byActor.delete(actor);
  }
}
