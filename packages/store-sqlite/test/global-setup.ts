import { fileURLToPath } from "node:url";
import { buildForWorkers } from "@toolnexus/chaos-kit/build";

/**
 * The cross-process tests run fixture scripts in child Node processes, which cannot load
 * TypeScript: build this package's current source into `test-output/build` for them.
 */
export default async function setup(): Promise<void> {
  await buildForWorkers(fileURLToPath(new URL("..", import.meta.url)), [
    "better-sqlite3",
    "@toolnexus/core",
  ]);
}
