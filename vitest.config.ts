import { defineConfig, type ViteUserConfig } from "vitest/config";

const config: ViteUserConfig = defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**", ".tmp/**", "**/*.deno.test.ts"],
    // Hang guards, not speed limits: a test's outcome must not depend on how loaded the machine is, so the
    // guard sits far above any test's time on an idle machine (docs/notes/0011).
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

export default config;
