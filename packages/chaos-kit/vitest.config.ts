import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    // Builds the source for the fixture scripts, which run in plain Node processes.
    test: { globalSetup: ["test/global-setup.ts"] },
  }),
);
