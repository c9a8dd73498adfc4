import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Cross-process tests start Node processes; they live in test/, beside the package source.
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // Builds the source for the child processes of test/*.test.ts.
      globalSetup: ["test/global-setup.ts"],
    },
  }),
);
