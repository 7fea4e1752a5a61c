// Materializes a scenario's workspace, modification times included: `npm run scenario -- glob-sampling DIR`.
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { nodeProbe } from "../adapters/node/subject.ts";
import { codingTree, type FixtureTree, globSamplingTree, seedTree } from "../fixtures/mod.ts";

const SCENARIOS: Record<string, FixtureTree> = { "glob-sampling": globSamplingTree, coding: codingTree };

const [name, dir] = process.argv.slice(2);
const tree = name === undefined ? undefined : SCENARIOS[name];
if (!tree || dir === undefined) {
  console.error(`usage: npm run scenario -- <${Object.keys(SCENARIOS).join("|")}> DIR`);
  process.exit(2);
}
mkdirSync(resolve(dir), { recursive: true });
const root = realpathSync(resolve(dir));
// Files left from something else would join the listing and change what the scenario shows.
const clash = [...new Set(tree.files.map((f) => f.path.split("/")[0]!))].filter((top) => existsSync(resolve(root, top)));
if (clash.length > 0) {
  console.error(`scenario: ${clash.map((c) => resolve(root, c)).join(", ")} already exists; remove it or choose another directory`);
  process.exit(1);
}
await seedTree(nodeProbe(root, root), tree);
console.log(`${tree.name}: wrote ${tree.files.length} files with pinned modification times under ${root}`);
