import { fileURLToPath } from "node:url";
import { buildForWorkers } from "../src/build.js";

/** The fixture scripts (src/fixtures/*.mjs) import the kit's current source, built. */
export default async function setup(): Promise<void> {
  await buildForWorkers(fileURLToPath(new URL("..", import.meta.url)), [
    "@toolnexus/core",
    "@toolnexus/client",
  ]);
}
