import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// The takeover test's child process imports this package built from source (test-output). Each
// file registers OpenTelemetry's global providers and reads one in-memory exporter: a process
// per file (vitest's default, which the shared settings turn off).
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ["./src/test-global-setup.ts"], isolate: true } }),
);
