import { defineConfig } from "vitest/config";

// As in vitest.shared.ts: `test` runs every test but the long ones (`*.long.test.ts`: the real
// browser, the durable story's chain of processes), `test:long` (TOOLNEXUS_LONG=1) only those.
const long = process.env.TOOLNEXUS_LONG === "1";

export default defineConfig({
  test: {
    include: [long ? "test/**/*.long.test.ts" : "test/**/*.test.ts"],
    exclude: long ? [] : ["**/*.long.test.ts"],
    // Every test starts real processes (and one a real browser) on a machine that may be busy:
    // they wait for conditions, never for fixed times, with generous limits. A long file's test
    // chains a dozen processes (each a tsx start-up), hence its larger limit.
    testTimeout: long ? 300_000 : 90_000,
    hookTimeout: 60_000,
  },
});
