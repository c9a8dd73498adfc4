// 200 runs that ask and are answered, with the service process SIGKILLed at random moments and
// started again: every run finishes, every answer is applied, and the tool executions per step
// show Restate's guarantees (a step whose result was recorded never runs again; a step in flight
// at a crash may run again, with ctx.attempt 2 or more).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startWorker, stopWorkers, type Worker } from "@toolnexus/chaos-kit";
import type { RunResult } from "@toolnexus/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerRun, attachRun, submitRun, waitingRequests } from "./ingress.js";
import { freePort, type RestateServer, startRestate } from "./test-support.js";

const RUNS = 200;
const SERVICE = join(import.meta.dirname, "fixtures", "chaos-service.ts");

interface Exec {
  step: string;
  tool: string;
  exec: string;
  attempt: number;
  at: number;
}

function readExecs(dir: string): Exec[] {
  const execs: Exec[] = [];
  for (const name of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, name), "utf8").split("\n")) {
      try {
        if (line !== "") execs.push(JSON.parse(line) as Exec);
      } catch {
        // A line torn by a SIGKILL.
      }
    }
  }
  return execs;
}

describe("Restate under SIGKILL of the service", () => {
  let restate: RestateServer;
  let logDir: string;
  let service: Worker | undefined;
  let port: number;

  async function startService(): Promise<void> {
    service = startWorker(SERVICE, [String(port), logDir], {
      env: { ...process.env, NODE_OPTIONS: "--import tsx" },
    });
    await service.line((value: { ready?: boolean }) => value.ready === true);
  }

  beforeAll(async () => {
    logDir = mkdtempSync(join(tmpdir(), "toolnexus-restate-chaos-"));
    restate = await startRestate();
    port = await freePort();
    await startService();
    await restate.register(`http://127.0.0.1:${port}`);
  }, 60_000);
  afterAll(async () => {
    await stopWorkers();
    await restate?.stop();
    rmSync(logDir, { recursive: true, force: true });
  });

  it("every run finishes with its answer applied; a recorded step never runs again", async () => {
    const runIds = Array.from({ length: RUNS }, (_, i) => `chaos-${i}`);
    for (const runId of runIds) await submitRun(restate.ingress, runId, { prompt: "go" });

    // The killer: after a random number of new tool executions, SIGKILL the service and start it
    // again on the same port (Restate retries the invocations it cut).
    let finished = false;
    let kills = 0;
    const killer = (async () => {
      let seen = 0;
      while (!finished) {
        const goal = seen + 20 + Math.floor(Math.random() * 60);
        // Polls the log for the executions the kill waits for (a condition, not a fixed delay).
        while (!finished && readExecs(logDir).length < goal) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        if (finished) break;
        seen = readExecs(logDir).length;
        await service!.kill("SIGKILL");
        kills++;
        await startService();
      }
    })();

    // The answerer: each run's question, answered once it is asked (from this process, through
    // the ingress); the prompt names the execution whose pending result Restate recorded.
    const recordedPending = new Map<string, string>();
    const answering = new Set(runIds);
    while (answering.size > 0) {
      await Promise.all(
        [...answering].map(async (runId) => {
          const [waiting] = await waitingRequests(restate.ingress, runId).catch(() => []);
          if (waiting === undefined) return;
          recordedPending.set(runId, waiting.request.prompt.split(" ")[1]!);
          await answerRun(restate.ingress, runId, {
            id: waiting.request.id,
            ok: true,
            data: { value: `v-${runId}` },
          });
          answering.delete(runId);
        }),
      );
    }
    const results = new Map<string, RunResult>();
    await Promise.all(
      runIds.map(async (runId) => results.set(runId, await attachRun(restate.ingress, runId))),
    );
    finished = true;
    await killer;

    // Every run finished, with its own answer applied.
    for (const runId of runIds) {
      const result = results.get(runId)!;
      expect(result.status).toBe("done");
      expect(result.text).toMatch(new RegExp(`applied v-${runId} `));
    }

    // Executions per step (a call's first execution, and its execution with the answer).
    const execs = readExecs(logDir);
    const bySteps = new Map<string, Exec[]>();
    for (const exec of execs) bySteps.set(exec.step, [...(bySteps.get(exec.step) ?? []), exec]);
    const recorded = new Map<string, string>();
    for (const runId of runIds) {
      const result = results.get(runId)!;
      for (const message of result.messages) {
        if (message.role !== "tool") continue;
        const exec = message.content.split(" ").at(-1)!;
        const phase = message.content.startsWith("applied") ? "answered" : "first";
        recorded.set(`${runId}/${message.callId}/${phase}`, exec);
        if (phase === "answered")
          recorded.set(`${runId}/${message.callId}/first`, recordedPending.get(runId)!);
      }
    }
    let rerunAfterRecord = 0;
    let lowAttempt = 0;
    const histogram: Record<number, number> = {};
    for (const [step, list] of bySteps) {
      histogram[list.length] = (histogram[list.length] ?? 0) + 1;
      const sorted = list.sort((a, b) => a.at - b.at);
      const kept = recorded.get(step);
      // The recorded execution is the last one: nothing ran that step after its result was kept.
      if (kept === undefined || sorted.at(-1)!.exec !== kept) rerunAfterRecord++;
      sorted.forEach((exec, i) => {
        if (i > 0 && exec.attempt < 2) lowAttempt++;
      });
    }
    const report = {
      runs: RUNS,
      kills,
      steps: bySteps.size,
      executions: execs.length,
      stepsByExecutions: histogram,
      reExecutions: execs.length - bySteps.size,
      rerunAfterRecord,
      reExecutionWithAttempt1: lowAttempt,
    };
    console.log(`restate chaos: ${JSON.stringify(report)}`);
    expect(bySteps.size).toBe(RUNS * 3);
    expect(kills).toBeGreaterThan(0);
    expect(rerunAfterRecord).toBe(0);
    expect(lowAttempt).toBe(0);
  }, 600_000);
});
