// Serves a model script over a loopback fake of a provider's wire protocol, for trying the agent by hand:
// `npm run fake-model -- openai|anthropic SCRIPT.json [--port N]`. Stops on Ctrl-C.
import { readFileSync } from "node:fs";
import { type FakeTurn, type Protocol, startFakeModel } from "../test/fake-models.ts";

const [protocol, file, ...rest] = process.argv.slice(2);
const portAt = rest.indexOf("--port");
const port = portAt === -1 ? 0 : Number(rest[portAt + 1]);
if ((protocol !== "openai" && protocol !== "anthropic") || file === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error("usage: npm run fake-model -- openai|anthropic SCRIPT.json [--port N]");
  process.exit(2);
}
const script = JSON.parse(readFileSync(file, "utf8")) as { turns: FakeTurn[] };
const fake = await startFakeModel({ protocol: protocol as Protocol, script, port });
console.log(`fake ${protocol} server replaying ${script.turns.length} turns at ${fake.baseUrl} (Ctrl-C stops it)`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void fake.close().then(() => process.exit(0)));
