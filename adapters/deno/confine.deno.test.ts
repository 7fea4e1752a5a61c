// bash confined by bubblewrap on the Deno runner: the shared cases, with a host listener from Deno.listen.
import { registerConfineCases } from "../../test/confine-cases.ts";
import { createDenoProcessRunner, createDenoProvider, createDenoSearchBackend } from "./mod.ts";
import type { DenoCommandOptions } from "./deno-api.ts";
import { denoProcessRunnerOver } from "./process.ts";

const runner = createDenoProcessRunner();

await registerConfineCases(
  (name, fn) => Deno.test(name, fn),
  (name, reason) => Deno.test({ name: `${name} (${reason})`, ignore: true, fn() {} }),
  {
    runner,
    provider: (cwd) => createDenoProvider({ cwd }),
    search: createDenoSearchBackend({ runner }),
    hostPid: Deno.pid,
    runnerWithEnv(vars) {
      // The Deno namespace with a Command that adds `vars` to every child's environment.
      // A function, not an arrow: the runner constructs it with `new`, as it does Deno.Command.
      // biome-ignore lint/complexity/useArrowFunction: an arrow function cannot be called with new.
      const Command = function (command: string, options?: DenoCommandOptions) {
        return new Deno.Command(command, { ...options, env: { ...options?.env, ...vars } } as Deno.CommandOptions);
      };
      return denoProcessRunnerOver(Object.create(Deno, { Command: { value: Command } }));
    },
    // No listenUnix: Deno asks for net permission on a Unix socket's path, which a temp path cannot be given
    // ahead of time; the filter that refuses such sockets is the same argv on both runtimes.
    listen() {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      let accepted = 0;
      const serving = (async () => {
        for await (const connection of listener) {
          accepted++;
          connection.close();
        }
      })();
      return Promise.resolve({
        port: listener.addr.port,
        accepted: () => accepted,
        async close() {
          listener.close();
          await serving.catch(() => undefined);
        },
      });
    },
  },
  "deno",
);
