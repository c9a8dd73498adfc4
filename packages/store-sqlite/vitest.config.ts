import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Every commit is synced to disk and the cross-process tests start Node processes: both are
    // slow on a busy CI machine. No test asserts a duration.
    testTimeout: 30_000,
    // Builds the source for the child processes of test/*.test.ts.
    globalSetup: ["test/global-setup.ts"],
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"] },
  },
});
