import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Starts a throwaway PostgreSQL cluster and builds the source for the application processes.
      globalSetup: ["test/pg-server.ts"],
      // DBOS is one runtime per process (DBOS.launch), and a file registers OpenTelemetry's
      // global providers: a process per file (vitest's default, which the shared settings
      // turn off).
      isolate: true,
    },
  }),
);
