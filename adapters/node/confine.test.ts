// bash confined by bubblewrap on the Node runner: the shared cases, with a host listener from node:net.
import { createServer } from "node:net";
import { test } from "vitest";
import { registerConfineCases } from "../../test/confine-cases.ts";
import { createNodeProcessRunner, createNodeProvider, createNodeSearchBackend } from "./mod.ts";

await registerConfineCases(
  test,
  (name, reason) => test.skip(`${name} (${reason})`, () => {}),
  {
    runner: createNodeProcessRunner(),
    provider: (cwd) => createNodeProvider({ cwd }),
    search: createNodeSearchBackend(),
    hostPid: process.pid,
    async listen() {
      let accepted = 0;
      const server = createServer((socket) => {
        accepted++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no port");
      return {
        port: address.port,
        accepted: () => accepted,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    },
  },
  "node",
);
