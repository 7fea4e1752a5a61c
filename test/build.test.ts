// The build runs once, before the tests (`npm ci` or `npm test`); no test may rebuild dist/ under the others.
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const build = (...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", join(root, "scripts/build.ts"), ...args], { cwd: root, encoding: "utf8", env: process.env });

test("dist/ is what the sources build to (npm test builds it first)", () => {
  const check = build("--check");
  expect(check.stdout + check.stderr).toContain("dist/ is up to date with the sources");
  expect(check.status).toBe(0);
});

test("inside a test run the build refuses to start, and dist/ stays as it is", () => {
  const stamp = join(root, "dist/.build-stamp");
  const before = { text: readFileSync(stamp, "utf8"), mtime: statSync(stamp).mtimeMs };
  expect(process.env.VITEST).toBeDefined();
  const forced = build();
  expect(forced.status).toBe(1);
  expect(forced.stderr).toContain("refusing to build inside a test run");
  expect({ text: readFileSync(stamp, "utf8"), mtime: statSync(stamp).mtimeMs }).toEqual(before);
});
