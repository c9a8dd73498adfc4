import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// The takeover test's child process imports this package built from source (test-output).
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ["./src/test-global-setup.ts"] } }),
);
