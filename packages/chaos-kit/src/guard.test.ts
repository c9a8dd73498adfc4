import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { allGone, fixture, whenChanged } from "./test-support.js";
import { startWorker, stopWorkers } from "./worker.js";

const dir = mkdtempSync(join(tmpdir(), "toolnexus-chaos-guard-"));
afterAll(async () => {
  await stopWorkers();
  rmSync(dir, { recursive: true, force: true });
});

it("when the test process is SIGKILLed, the watchdog kills its workers' groups, runs the stop command and removes the files", async () => {
  const parent = startWorker(fixture("guarded.mjs"), [dir]);
  const pids = await parent.line<{ worker: number; child: number }>((v) => v.worker !== undefined);
  expect(existsSync(join(dir, "data"))).toBe(true);
  await parent.kill("SIGKILL");
  // The watchdog ends what was left in reverse order: the worker, then the command, then the files.
  await whenChanged(dir, () => !existsSync(join(dir, "data")));
  expect(existsSync(join(dir, "stopped"))).toBe(true);
  expect(await allGone([pids.worker, pids.child])).toBe(true);
});
