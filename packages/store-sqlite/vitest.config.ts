import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Builds the source for the child processes of test/*.test.ts.
      globalSetup: ["test/global-setup.ts"],
    },
  }),
);
