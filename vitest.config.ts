import { defineConfig, type ViteUserConfig } from "vitest/config";

const config: ViteUserConfig = defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**", ".tmp/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});

export default config;
