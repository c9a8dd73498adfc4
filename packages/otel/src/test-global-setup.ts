import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "tsup";

/**
 * The takeover test runs a fixture in a child Node process, which cannot load TypeScript: build
 * this package's current source once into `test-output/build` (ignored by git and Biome), so
 * the child runs exactly the code under test without depending on a `pnpm build` of `dist`.
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
    external: ["@opentelemetry/api"],
  });
}
