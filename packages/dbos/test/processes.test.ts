// Real processes: a DBOS application process runs the agent's workflows, another process (with
// only a DBOSClient) answers, and this test reads results through a DBOSClient of its own. The
// application is SIGKILLed while a run waits and started again with the same executor id: DBOS
// recovers the run, which goes on with the answer sent while no process ran it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import { guard, readLogs, stopWorkers } from "@toolnexus/chaos-kit";
import type { RunResult } from "@toolnexus/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp } from "./app.js";
import { dbosClient, freshDatabase, waitingFor } from "./dbos.js";

const dir = mkdtempSync(join(tmpdir(), "toolnexus-dbos-processes-"));
const releaseDir = guard({ remove: dir });
let url: string;
let client: DBOSClient;

beforeAll(async () => {
  url = freshDatabase("processes");
}, 60_000);
afterAll(async () => {
  await stopWorkers();
  await client?.destroy();
  rmSync(dir, { recursive: true, force: true });
  releaseDir();
});

/** Answers `runId` from a process of its own (a DBOSClient, no workflows). */
async function answerFromProcess(runId: string, answer: unknown) {
  const answerer = startApp("answerer.mjs", [url, runId, JSON.stringify(answer)]);
  const receipt = await answerer.line<{ requestId?: string; waiting?: boolean; pid: number }>();
  await answerer.exited;
  return receipt;
}

describe("runs on DBOS across processes", () => {
  it("halts in the application process, is answered from another process, and continues there", async () => {
    const app = startApp("app.mjs", [url, dir, "app-a"]);
    await app.line((line: { ready?: boolean }) => line.ready === true);
    client = await dbosClient(url);
    app.send(JSON.stringify({ start: ["p1"] }));
    await app.line((line: { started?: number }) => line.started === 1);
    const [awaited] = await waitingFor(client, "p1");
    expect(awaited?.request).toMatchObject({ id: "p1/approve", kind: "input" });

    const receipt = await answerFromProcess("p1", {
      id: "p1/approve",
      ok: true,
      data: { token: "from-elsewhere" },
    });
    expect(receipt).toMatchObject({ requestId: "p1/approve", waiting: true });
    expect(receipt.pid).not.toBe(app.child.pid);
    const result = await client.retrieveWorkflow<RunResult>("p1").getResult();
    expect(result.text).toBe("finished: prepared#1 | applied from-elsewhere#1");
    await app.kill();
  });

  it("recovers a waiting run in a restarted process, with the answer sent while none ran", async () => {
    const first = startApp("app.mjs", [url, dir, "app-b"]);
    await first.line((line: { ready?: boolean }) => line.ready === true);
    first.send(JSON.stringify({ start: ["p2"] }));
    await waitingFor(client, "p2");
    await first.kill("SIGKILL");

    const receipt = await answerFromProcess("p2", {
      id: "p2/approve",
      ok: true,
      data: { token: "while-down" },
    });
    expect(receipt.waiting).toBe(true);
    // The same executor id: DBOS recovers the workflows the killed process left pending.
    const second = startApp("app.mjs", [url, dir, "app-b"]);
    await second.line((line: { ready?: boolean }) => line.ready === true);
    const result = await client.retrieveWorkflow<RunResult>("p2").getResult();
    expect(result.text).toBe("finished: prepared#1 | applied while-down#1");
    // `prepare` ran once: its recorded result was replayed in the new process, not run again.
    const runs = readLogs(dir).execs.filter((e) => e.runId === "p2" && e.phase === "start");
    // (The two calls of the first turn run at once: their order varies.)
    expect(runs.map((e) => [e.tool, e.answered, e.attempt]).sort()).toEqual([
      ["approve", false, 1],
      ["approve", true, 1],
      ["prepare", false, 1],
    ]);
    await second.kill();
  });

  it("applies one of two different answers sent at once from two processes", async () => {
    const app = startApp("app.mjs", [url, dir, "app-c"]);
    await app.line((line: { ready?: boolean }) => line.ready === true);
    app.send(JSON.stringify({ start: ["p3"] }));
    await waitingFor(client, "p3");
    const receipts = await Promise.all(
      ["left", "right"].map((token) =>
        answerFromProcess("p3", { id: "p3/approve", ok: true, data: { token } }),
      ),
    );
    expect(receipts.map((receipt) => receipt.requestId)).toEqual(["p3/approve", "p3/approve"]);
    const result = await client.retrieveWorkflow<RunResult>("p3").getResult();
    const applied = /applied (left|right)#1$/.exec(result.text)?.[1];
    expect(applied).toBeDefined();
    // What the run applied is the answer DBOS delivered to its recv, the other one dropped.
    const steps = (await client.listWorkflowSteps("p3")) ?? [];
    const delivered = steps.filter((step) => step.name === "DBOS.recv" && step.output !== null);
    expect(
      delivered.map((step) => (step.output as { data: { token: string } }).data.token),
    ).toEqual([applied]);
    await app.kill();
  });

  it("refuses an answer to a run that does not exist, from another process", async () => {
    const receipt = await answerFromProcess("p-none", { id: "x", ok: true });
    expect(receipt).toMatchObject({ code: "run_not_found" });
  });
});
