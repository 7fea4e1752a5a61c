// bash confined by bubblewrap on the Node runner: the shared cases, with host listeners (TCP and a Unix socket)
// from node:net.
import { createServer } from "node:net";
import { test } from "vitest";
import { createProcessRunner } from "../../core/mod.ts";
import { registerConfineCases } from "../../test/confine-cases.ts";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "./mod.ts";
import { nodeProcessDriver } from "./process.ts";

async function listen(path?: string) {
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => (path === undefined ? server.listen(0, "127.0.0.1", resolve) : server.listen(path, resolve)));
  const address = server.address();
  if (address === null) throw new Error("not listening");
  return {
    port: typeof address === "string" ? 0 : address.port,
    accepted: () => accepted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

await registerConfineCases(
  test,
  (name, reason) => test.skip(`${name} (${reason})`, () => {}),
  {
    runner: createNodeProcessRunner(),
    provider: (cwd) => createNodeProvider({ cwd }),
    search: createNodeSearchBackend(),
    hostPid: process.pid,
    listen: () => listen(),
    listenUnix: (path) => listen(path),
    node: process.execPath,
    runnerWithEnv: (vars) =>
      createProcessRunner({ ...nodeProcessDriver, spawn: (request) => nodeProcessDriver.spawn({ ...request, env: { ...request.env, ...vars } }) }),
  },
  "node",
);
