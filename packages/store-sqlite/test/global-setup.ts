import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "tsup";

/**
 * The cross-process tests run fixture scripts in child Node processes, which cannot load
 * TypeScript. Build this package's current source once into `test-output/build` (ignored by git
 * and Biome) so the children import exactly the code under test, without depending on (or
 * racing with) a `pnpm build` of `dist`.
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
    external: ["better-sqlite3", "@toolnexus/core"],
  });
}
