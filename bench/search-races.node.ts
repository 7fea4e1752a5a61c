// Run: npx tsx bench/search-races.node.ts [runs]
import { createNodeSubject } from "../adapters/node/subject.ts";
import { measureSearchRaces } from "./search-races.ts";

for (const run of await measureSearchRaces(() => createNodeSubject(), Number(process.argv[2] ?? 3))) console.log(JSON.stringify(run));
