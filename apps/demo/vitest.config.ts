import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Every test starts real processes (and one a real browser) on a machine that may be busy:
    // they wait for conditions, never for fixed times, with generous limits.
    testTimeout: 90_000,
    hookTimeout: 60_000,
  },
});
