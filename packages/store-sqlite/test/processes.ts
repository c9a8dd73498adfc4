import { fileURLToPath } from "node:url";
import { startWorker, type Worker } from "@toolnexus/chaos-kit";

/** A fixture script running in its own Node process (and process group), read line by line. */
export type Fixture = Worker;

/** Starts `node test/fixtures/<script> ...args` (ended by the chaos kit's watchdog if we die). */
export function startFixture(script: string, args: string[]): Fixture {
  return startWorker(fileURLToPath(new URL(`./fixtures/${script}`, import.meta.url)), args);
}
