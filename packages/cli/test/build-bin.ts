// vitest global setup: builds the `toolnexus` bin from the current source, as the package's
// build does (tsup, ESM, dependencies left to node_modules), into a folder of this test run
// under test-output/, so the tests run the built command in real child processes without
// racing a build of dist or another test run. The folder is removed at the end.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "tsup";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The built bin the tests run. */
    cliBin: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const root = fileURLToPath(new URL("..", import.meta.url));
  mkdirSync(`${root}test-output`, { recursive: true });
  const outDir = mkdtempSync(`${root}test-output/build-`);
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
  project.provide("cliBin", `${outDir}/bin.js`);
  return () => rmSync(outDir, { recursive: true, force: true });
}
