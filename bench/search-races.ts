// The search race of note 0016 on any subject: each race case of the conformance group that searches, run
// several times, with the number of results that showed the outside folder's bytes or names (from the case's
// own count) and how many searches reached the subject's backend (a guard that moved them to the engine
// leaves it at 0). Used by bench/search-races.node.ts and bench/search-races.deno.ts.
import type { CreateSubject, Subject } from "../conformance/mod.ts";
import type { SearchBackend } from "../core/mod.ts";
import { raceGroup } from "../conformance/groups/race.ts";

export interface SearchRaceRun {
  readonly case: string;
  readonly leaked: number | "pass" | string;
  /** Searches the subject's backend ran (glob and grep calls that reached it). */
  readonly backendSearches: number;
}

/** Runs the cases whose names contain `filter` `runs` times each on fresh subjects. */
export async function measureSearchRaces(create: CreateSubject, runs: number, filter = "racing a swapped directory"): Promise<SearchRaceRun[]> {
  const out: SearchRaceRun[] = [];
  for (const testCase of raceGroup.cases.filter((c) => c.name.includes(filter) || c.name.includes("reads and listings"))) {
    for (let i = 0; i < runs; i++) {
      const subject = await create();
      let searches = 0;
      const counted = subject.search && count(subject.search, () => searches++);
      const wrapped: Subject = { ...subject, ...(counted ? { search: counted } : {}) };
      if (
        testCase.skip?.({
          ...subject.provider.capabilities,
          search: subject.search?.name,
          races: { sibling: true, swapper: subject.races?.swapper !== undefined, spawn: true },
          overlay: false,
          confinement: subject.confinement,
        }) !== undefined
      ) {
        await subject.dispose();
        continue;
      }
      let leaked: SearchRaceRun["leaked"] = "pass";
      try {
        await testCase.run(wrapped, { stress: 1, rounds: (count) => count });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const counted = /(\d+) of \d+ results showed/.exec(message);
        leaked = counted ? Number(counted[1]) : message.split("\n")[0]!.slice(0, 300);
      } finally {
        await subject.dispose();
      }
      out.push({ case: testCase.name.replace(/.*racing a swapped directory,? ?/, "").slice(0, 80) || "engine", leaked, backendSearches: searches });
    }
  }
  return out;
}

function count(backend: SearchBackend, tick: () => void): SearchBackend {
  return {
    get name() {
      return backend.name;
    },
    ...(backend.readableGuard ? { readableGuard: backend.readableGuard } : {}),
    streamFiles: (request, sink) => (tick(), backend.streamFiles(request, sink)),
    streamGrep: (request, sink) => (tick(), backend.streamGrep(request, sink)),
  };
}
