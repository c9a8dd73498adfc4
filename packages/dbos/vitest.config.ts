import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Starts a throwaway PostgreSQL cluster and builds the source for the application processes.
      globalSetup: ["test/pg-server.ts"],
    },
  }),
);
