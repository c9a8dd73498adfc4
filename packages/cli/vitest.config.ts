import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Builds the bin the tests run in child processes.
      globalSetup: ["test/build-bin.ts"],
    },
  }),
);
