import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Builds the source for the child processes of test/*.test.ts.
    globalSetup: ["test/global-setup.ts"],
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"] },
  },
});
