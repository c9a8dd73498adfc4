// The handler over a SQLite file while a worker in another process continues the runs: the
// handler only records answers and follows the file, and HttpAgent sees every event in order.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { RunFinishedEvent } from "@ag-ui/core";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { expect, it, onTestFinished } from "vitest";
import { agentClient } from "./fixtures/agent.mjs";
import { outline, serve, Thread, testHandlerOptions } from "./test-kit.js";

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-ag-ui-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "runs.db");
}

/** A worker process on the file, until the test ends; resolves once it works. */
async function workerProcess(path: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [new URL("./fixtures/worker.mjs", import.meta.url).pathname, path],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const exited = once(child, "exit");
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) if (line === "ready") break;
  return child;
}

function interruptOf(events: readonly { type: string }[]) {
  const outcome = (events.at(-1) as RunFinishedEvent).outcome;
  if (outcome?.type !== "interrupt") throw new Error("expected the run to end on an interrupt");
  return outcome.interrupts[0]!;
}

it("follows runs a worker in another process continues, over one thread", async () => {
  const path = tempDb();
  const store = sqliteStore({ path });
  onTestFinished(() => store.close());
  const worker = await workerProcess(path);
  // This process only starts runs (to their first halt), records answers and follows the file.
  const url = await serve(testHandlerOptions(store, agentClient(store)));
  const thread = new Thread(url, "token-alice", "T-sqlite");

  thread.say("deploy");
  const asked = await thread.run();
  expect(outline(asked).at(-1)).toBe("RUN_FINISHED interrupt");
  const approval = interruptOf(asked);
  const deployed = await thread.run({
    resume: [{ interruptId: approval.id, status: "resolved", payload: { approved: true } }],
  });
  expect(outline(deployed)).toEqual([
    "RUN_STARTED",
    "CUSTOM toolnexus.answered",
    "TOOL_CALL_RESULT deployed to staging",
    "STEP_STARTED turn 2",
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT Finished: deployed to staging",
    "TEXT_MESSAGE_END",
    "STEP_FINISHED turn 2",
    "RUN_FINISHED success",
  ]);

  // The same thread goes on with a new run: an input question, a bad answer, a good one.
  thread.say("scale");
  const question = interruptOf(await thread.run());
  const refusal = await thread
    .run({
      resume: [{ interruptId: question.id, status: "resolved", payload: { replicas: "many" } }],
    })
    .then(
      () => undefined,
      (error: { status?: number; payload?: unknown }) => error,
    );
  expect(refusal?.status).toBe(400);
  expect(JSON.stringify(refusal?.payload)).toContain(
    "resume[0].payload.replicas: expected integer",
  );
  const scaled = await thread.run({
    resume: [{ interruptId: question.id, status: "resolved", payload: { replicas: 2 } }],
  });
  expect((scaled.at(-1) as RunFinishedEvent).result).toBe("Finished: scaled to 2 replicas");

  expect(thread.invalid).toEqual([]);
  // Who answered is the caller the handler identified, kept in the file the worker used.
  expect(store.getRequest(approval.id)).toMatchObject({ answeredBy: "alice", state: "applied" });
  expect(store.getRequest(question.id)).toMatchObject({ answeredBy: "alice", state: "applied" });
  // The worker, not this process, continued both runs.
  const runs = [approval, question].map((i) => store.getRequest(i.id)!.runId);
  for (const runId of runs) {
    const continued = store.readEvents(runId, 0, 1000).filter((e) => e.type === "continued");
    expect(continued.length).toBeGreaterThan(0);
  }
  expect(worker.exitCode).toBeNull();
});
