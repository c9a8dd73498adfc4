import { afterAll, describe, expect, it } from "vitest";
import { allGone, fixture } from "./test-support.js";
import { startWorker, stopWorkers } from "./worker.js";

afterAll(() => stopWorkers());

describe("startWorker", () => {
  it("reads JSON lines (skipping others), answers a line written before it was asked for, and writes stdin", async () => {
    const worker = startWorker(fixture("group.mjs"), []);
    const ready = await worker.line<{ ready: boolean; pid: number }>((v) => v.ready);
    expect(ready.pid).toBe(worker.child.pid);
    worker.send("hello");
    expect(await worker.line((v: { echo?: string }) => v.echo !== undefined)).toEqual({
      echo: "hello",
    });
    await worker.kill();
  });

  it("kill() SIGKILLs the worker's whole process group, its own children included", async () => {
    const worker = startWorker(fixture("group.mjs"), []);
    const { child } = await worker.line<{ child: number }>((v) => v.child !== undefined);
    expect(await worker.kill()).toBe("SIGKILL");
    expect(await allGone([worker.child.pid!, child])).toBe(true);
  });

  it("a worker that exits without the line asked for rejects with its exit and stderr, and its group goes with it", async () => {
    const worker = startWorker(fixture("group.mjs"), ["exit"]);
    await expect(worker.line((v: { ready?: boolean }) => v.ready === true)).rejects.toThrow(
      /group\.mjs exited \(3\) without the expected line/,
    );
    expect(await worker.exited).toBe(3);
  });

  it("stopWorkers() ends every worker still running", async () => {
    const workers = [0, 1, 2].map(() => startWorker(fixture("group.mjs"), []));
    const children = await Promise.all(
      workers.map((w) => w.line<{ child: number }>((v) => v.child !== undefined)),
    );
    await stopWorkers();
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([
      "SIGKILL",
      "SIGKILL",
      "SIGKILL",
    ]);
    expect(await allGone(children.map((c) => c.child))).toBe(true);
  });
});
