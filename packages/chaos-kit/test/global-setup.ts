import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "tsup";

/**
 * The fixture scripts (src/fixtures/*.mjs) run in child Node processes, which cannot load
 * TypeScript: build the current source once into `test-output/build` (ignored by git) so they
 * import exactly the code under test.
 */
export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const outDir = fileURLToPath(new URL("../test-output/build", import.meta.url));
  rmSync(outDir, { recursive: true, force: true });
  await build({
    config: false,
    entry: { index: `${root}src/index.ts` },
    outDir,
    format: ["esm"],
    target: "node20",
    dts: false,
    sourcemap: false,
    silent: true,
    external: ["@toolnexus/core", "@toolnexus/client"],
  });
}
