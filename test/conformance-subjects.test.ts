// The ready subjects toolfs/conformance ships for the built-in backends: certifying a wrapper of one takes a
// provider factory and no hand-written probe. Imported through the package's exports, as a user would.
import { expect, test } from "vitest";
import type { FileSystem } from "toolfs";
import { registerGroups, toolsEditGroup, versionGuardGroup, writeGroup } from "toolfs/conformance";
import { createMemorySubject } from "toolfs/conformance/memory";
import { createNodeSubject } from "toolfs/conformance/node";
import { createMemoryProvider } from "toolfs/memory";
import { createNodeProvider } from "toolfs/node";

// A pass-through wrapper, such as a tracing layer, counting the calls that reach it.
let calls = 0;
function traced(inner: FileSystem): FileSystem {
  return new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

const groups = [writeGroup, versionGuardGroup, toolsEditGroup];
await registerGroups(groups, { test }, () => createNodeSubject((cwd) => traced(createNodeProvider({ cwd }))), { prefix: "traced node: " });
await registerGroups(groups, { test }, () => createMemorySubject((volume, cwd) => traced(createMemoryProvider({ volume, cwd }))), {
  prefix: "traced memory: ",
});

// Registered last, so it runs after the cases above (vitest runs a file's tests in order).
test("the cases ran through the wrapper", () => {
  expect(calls).toBeGreaterThan(100);
});
