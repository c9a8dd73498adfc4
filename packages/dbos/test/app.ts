// DBOS application processes for the tests: a fixture script (test/fixtures/<script>) started
// with the test's database and options, read line by line, SIGKILLed and started again by the
// chaos kit's worker helpers (each in a process group the watchdog ends if the test dies).
import { fileURLToPath } from "node:url";
import { startWorker, type Worker } from "@toolnexus/chaos-kit";

/** Starts `node test/fixtures/<script> <args…>`. */
export function startApp(script: string, args: readonly string[]): Worker {
  return startWorker(fileURLToPath(new URL(`./fixtures/${script}`, import.meta.url)), args);
}
