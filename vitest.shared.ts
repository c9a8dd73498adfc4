import { defineConfig } from "vitest/config";

// The settings every package's tests share. Timeouts are generous because CI runs every
// package's tests at once on a busy 2-core machine; no test asserts a duration.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"] },
  },
});
