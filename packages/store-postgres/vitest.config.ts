import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Cross-process tests start Node processes; they live in test/, beside the package source.
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // Starts a throwaway PostgreSQL cluster and builds the source for the child processes.
      globalSetup: ["test/pg-server.ts"],
    },
  }),
);
