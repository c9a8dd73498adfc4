import { configDefaults, defineConfig, type ViteUserConfig } from "vitest/config";

// The settings every package's tests share. Timeouts are generous because CI runs every
// package's tests at once on a busy 2-core machine; no test asserts a duration.
//
// Two suites: `pnpm test` runs every `*.test.ts` except the long ones (`*.long.test.ts`: chaos
// with many SIGKILLs, a real browser); `pnpm test:long` runs only those (TOOLNEXUS_LONG=1, set
// by each package's `test:long` script).
const long = process.env.TOOLNEXUS_LONG === "1";
const LONG_FILES = "**/*.long.test.ts";
const include = long
  ? [`src/${LONG_FILES}`, `test/${LONG_FILES}`]
  : ["src/**/*.test.ts", "test/**/*.test.ts"];
const exclude = long ? configDefaults.exclude : [...configDefaults.exclude, LONG_FILES];

// Type tests (`*.test-d.ts`) are tsc's: each package's `typecheck` task (`tsc --noEmit` over
// src/, which holds them) fails on any of them, so `vitest run` does not run tsc over them a
// second time (`vitest --typecheck` still runs them as tests).

const shared = defineConfig({
  test: {
    // test/: tests that start real processes, beside the package source (the stores).
    include,
    exclude,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A package's test files run one after another in one worker process, not each in a fresh
    // one: a fresh process per file (vitest's default) re-imports the package's source for every
    // file, and that was 40% of the CPU of all the suites (`pnpm test`'s test tasks: 679 s of CPU
    // isolated, 404 s shared, on two cores). So a test file restores what it changes in the
    // process (environment variables, the working directory, globals). A file that needs a
    // process of its own (V8's state, global providers) is named by the package's
    // `isolatedFiles(...)`, or the package sets `isolate: true`.
    isolate: false,
    typecheck: { include: ["src/**/*.test-d.ts"] },
  },
});

export default shared;

/**
 * The shared settings, with `files` (globs under the package) run each in a fresh process of its
 * own, for tests of process-wide state (V8's optimized code across a GC, a module's first use).
 * Two vitest projects: the isolated files, and the rest in one shared worker. (Each project
 * states its files whole: a project that extends the root config would add to its `include`.)
 */
export function isolatedFiles(files: string[]): ViteUserConfig {
  // The long suite (`*.long.test.ts`) has no such file.
  if (long) return shared;
  const { include: _include, exclude: _exclude, ...common } = shared.test ?? {};
  return defineConfig({
    test: {
      projects: [
        { test: { ...common, name: "isolated", include: files, exclude, isolate: true } },
        { test: { ...common, name: "shared", include, exclude: [...exclude, ...files] } },
      ],
    },
  });
}
