// Worker scripts run in plain Node processes, which cannot load TypeScript: a package's tests
// build its current source once (in vitest's global setup) into `test-output/build` (ignored by
// git and Biome), so the workers import exactly the code under test, without depending on (or
// racing with) a build of `dist`.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "tsup";

/** Builds `<packageRoot>/src/index.ts` into `<packageRoot>/test-output/build/index.js`. */
export async function buildForWorkers(
  packageRoot: string,
  external: readonly string[],
): Promise<void> {
  const outDir = join(packageRoot, "test-output", "build");
  rmSync(outDir, { recursive: true, force: true });
  await build({
    config: false,
    entry: { index: join(packageRoot, "src", "index.ts") },
    outDir,
    format: ["esm"],
    target: "node20",
    dts: false,
    sourcemap: false,
    silent: true,
    external: [...external],
  });
}
