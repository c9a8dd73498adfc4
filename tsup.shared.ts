import { defineConfig, type Options } from "tsup";

/**
 * How every published package builds: ESM + CJS + `.d.ts` for Node 20, with source maps.
 * A package passes only what differs (more entry points, externals).
 */
export function libraryConfig(overrides: Options = {}) {
  return defineConfig({
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
    ...overrides,
  });
}
