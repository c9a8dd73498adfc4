// vitest global setup: builds the `toolnexus` bin from the current source, as the package's
// build does (tsup, ESM, dependencies left to node_modules), into test-output/build/bin.js, so
// the tests run the built command in real child processes without racing a build of dist.
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "tsup";

export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const outDir = `${root}test-output/build`;
  rmSync(outDir, { recursive: true, force: true });
  await build({
    config: false,
    entry: { bin: `${root}src/bin.ts` },
    outDir,
    format: ["esm"],
    target: "node20",
    dts: false,
    sourcemap: false,
    silent: true,
  });
}
