import { configDefaults, defineConfig } from "vitest/config";

// The settings every package's tests share. Timeouts are generous because CI runs every
// package's tests at once on a busy 2-core machine; no test asserts a duration.
//
// Two suites: `pnpm test` runs every `*.test.ts` except the long ones (`*.long.test.ts`: chaos
// with many SIGKILLs, a real browser); `pnpm test:long` runs only those (TOOLNEXUS_LONG=1, set
// by each package's `test:long` script).
const long = process.env.TOOLNEXUS_LONG === "1";
const LONG_FILES = "**/*.long.test.ts";

// Type tests (`*.test-d.ts`) are tsc's: each package's `typecheck` task (`tsc --noEmit` over
// src/, which holds them) fails on any of them, so `vitest run` does not run tsc over them a
// second time (`vitest --typecheck` still runs them as tests).

export default defineConfig({
  test: {
    // test/: tests that start real processes, beside the package source (the stores).
    include: long
      ? [`src/${LONG_FILES}`, `test/${LONG_FILES}`]
      : ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: long ? configDefaults.exclude : [...configDefaults.exclude, LONG_FILES],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    typecheck: { include: ["src/**/*.test-d.ts"] },
  },
});
