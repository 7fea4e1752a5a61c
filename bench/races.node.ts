// The issue 9 figures on Node and in memory (see bench/races.ts). Run: npx tsx bench/races.node.ts
import { createMemorySubject } from "../adapters/memory/subject.ts";
import { createNodeSubject } from "../adapters/node/subject.ts";
import { measureRaces } from "./races.ts";

for (const [name, create] of [
  ["node", () => createNodeSubject()],
  ["memory", () => createMemorySubject()],
] as const) {
  console.log(JSON.stringify(await measureRaces(name, create)));
}
