// DBOS under SIGKILL: 200 runs that ask a human and are answered, on two application processes
// (two DBOS executors) that start their runs on a DBOS queue, each killed at random moments and
// started again with its executor id, so DBOS recovers what it left. Answers come from this
// process through a DBOSClient, some before the run asks. Every tool execution is logged; the
// chaos kit's verdict then counts executions per call from the logs, and checks each run's end
// against what DBOS recorded.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import { guard, judgeDurability, logWriter, stopWorkers, type Worker } from "@toolnexus/chaos-kit";
import type { RunResult } from "@toolnexus/client";
import type { Answer, RunInfo } from "@toolnexus/core";
import { afterAll, describe, expect, it } from "vitest";
import { answer, listWaiting, workflowNameOf } from "../src/index.js";
import { startApp } from "./app.js";
import { dbosClient, freshDatabase } from "./dbos.js";

const RUNS = 200;
const EXECUTORS = ["chaos-0", "chaos-1"];
const WORKFLOW = workflowNameOf("chaos");
const dir = mkdtempSync(join(tmpdir(), "toolnexus-dbos-chaos-"));
const releaseDir = guard({ remove: dir });
let client: DBOSClient | undefined;
afterAll(async () => {
  await stopWorkers();
  await client?.destroy();
  rmSync(dir, { recursive: true, force: true });
  releaseDir();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tokenOf = (runId: string) => `tok-${runId}`;

describe("runs on DBOS survive SIGKILLs of their application processes", () => {
  it(`${RUNS} runs that ask and are answered, application processes killed at random and restarted: every run finishes, every answer is applied, no recorded step runs again`, {
    timeout: 600_000,
  }, async () => {
    const url = freshDatabase("chaos");
    const logDir = join(dir, "logs");
    mkdirSync(logDir);
    const log = logWriter(logDir);
    const options = JSON.stringify({
      jitterMs: 40,
      // Ten runs at a time per process: the 200 runs then last long enough for the killer to
      // strike often (at 40, a faster client finished them between 5 kills).
      queue: { workerConcurrency: 10, minPollingIntervalMs: 50 },
    });
    const apps = new Map<string, Worker>();
    const launch = async (executor: string) => {
      const app = startApp("app.mjs", [url, logDir, executor, options]);
      apps.set(executor, app);
      await app.line((line: { ready?: boolean }) => line.ready === true);
      return app;
    };
    for (const executor of EXECUTORS) await launch(executor);
    client = await dbosClient(url);
    const via = client;

    // Each process starts half the runs, on the queue; every tenth is answered at once, before
    // its run can have asked.
    const runIds = Array.from({ length: RUNS }, (_, i) => `chaos-${i}`);
    const early: Promise<unknown>[] = [];
    EXECUTORS.forEach((executor, e) => {
      const mine = runIds.filter((_, i) => i % EXECUTORS.length === e);
      apps.get(executor)!.send(JSON.stringify({ start: mine }));
    });
    await Promise.all(
      EXECUTORS.map((executor) =>
        apps.get(executor)!.line((line: { started?: number }) => line.started !== undefined),
      ),
    );
    const send = async (runId: string) => {
      const given: Answer = { id: `${runId}/approve`, ok: true, data: { token: tokenOf(runId) } };
      await answer(via, runId, given);
      log({ answered: given.id, runId, token: tokenOf(runId), at: Date.now() });
    };
    for (const runId of runIds.filter((_, i) => i % 10 === 0)) early.push(send(runId));
    await Promise.all(early);

    // The answerer: whatever waits, in random order, until every run is done. A run still shown
    // waiting half a second after its answer (not recovered yet) is answered again: DBOS keeps
    // the first answer and drops the repeats.
    let finished = false;
    const sentAt = new Map<string, number>();
    const answering = (async () => {
      while (!finished) {
        const waiting = (await listWaiting(via, WORKFLOW, { limit: 1000 })).filter(
          (run) => Date.now() - (sentAt.get(run.runId) ?? 0) > 500,
        );
        waiting.sort(() => Math.random() - 0.5);
        for (const run of waiting.slice(0, 20)) {
          sentAt.set(run.runId, Date.now());
          await send(run.runId);
        }
        if (waiting.length === 0) await pause(20);
      }
    })();

    // The killer: after every few runs done, SIGKILL a random process at a random moment, and
    // start it again with its executor id.
    const done = async () =>
      (await via.listWorkflows({ workflowName: WORKFLOW, status: "SUCCESS" })).length;
    let kills = 0;
    let last = -1;
    for (let count = await done(); count < RUNS; count = await done()) {
      if (count === last) {
        await pause(50);
        continue;
      }
      last = count;
      if (count >= RUNS - 5) continue;
      await pause(Math.random() * 300);
      const executor = EXECUTORS[Math.floor(Math.random() * EXECUTORS.length)]!;
      await apps.get(executor)!.kill("SIGKILL");
      kills++;
      await launch(executor);
      // Wait for some progress before the next kill: a few runs, since runs finish in bursts
      // (a restarted process recovers many at once).
      const target = count + 2;
      while ((await done()) < Math.min(target, RUNS)) await pause(50);
    }
    finished = true;
    await answering;

    // Each run's end, and the answer DBOS delivered to it (the output of its recv).
    const infoOf = new Map<string, RunInfo>();
    for (const runId of runIds) {
      const result = await via.retrieveWorkflow<RunResult>(runId).getResult();
      const steps = (await via.listWorkflowSteps(runId)) ?? [];
      const delivered = steps.find((step) => step.name === "DBOS.recv" && step.output !== null);
      infoOf.set(runId, {
        runId,
        state: result.status === "done" ? "done" : "failed",
        result,
        requests: [{ answer: delivered?.output as Answer }],
      } as unknown as RunInfo);
    }
    const verdict = await judgeDurability({ runIds, logDir, getRun: (id) => infoOf.get(id) });
    console.log(JSON.stringify({ kills, ...verdict }));
    expect(kills).toBeGreaterThan(5);
    expect(verdict.finished).toBe(RUNS);
    expect(verdict.rerunAfterJournal).toBe(0);
    expect(verdict.repeatedAttempt).toBe(0);
    expect(verdict.lostAnswers).toBe(0);
    expect(verdict.answersKept).toBe(verdict.answersLogged);
  });
});
