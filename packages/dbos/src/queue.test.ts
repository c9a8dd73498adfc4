// Concurrency through a DBOS queue: runs enqueued on a queue with workerConcurrency 2 start two
// at a time, and a run that waits for a human keeps its slot until it is answered.
import { DBOS } from "@dbos-inc/dbos-sdk";
import { createClient, inProcessModel } from "@toolnexus/client";
import { pending, type Tool } from "@toolnexus/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, launchDbos } from "../test/dbos.js";
import { answer, listWaiting, registerAgent } from "./index.js";

const ask: Tool = {
  name: "ask",
  description: "Asks a human for a word",
  inputSchema: { type: "object", properties: {} },
  source: "custom",
  async execute(_args, ctx) {
    if (ctx?.answer === undefined) {
      return pending({ id: `${ctx?.runId}/word`, kind: "input", prompt: "A word?" });
    }
    return { output: String(ctx.answer.data?.word), isError: false };
  },
};

const agent = registerAgent({
  name: "queued",
  queue: "two-at-a-time",
  client: createClient({
    model: inProcessModel({
      id: "queued",
      generate: ({ messages }) => {
        const result = messages.find((m) => m.role === "tool");
        return result === undefined
          ? { toolCalls: [{ id: "c1", name: "ask" }] }
          : { content: `got ${result.content}` };
      },
    }),
    tools: [ask],
  }),
});

beforeAll(async () => {
  await launchDbos(freshDatabase("queue"));
  await DBOS.registerQueue("two-at-a-time", { workerConcurrency: 2, minPollingIntervalMs: 50 });
}, 120_000);
afterAll(() => DBOS.shutdown());

/** The runs of the queue that are in `status`. */
const inStatus = async (status: "ENQUEUED" | "PENDING") =>
  (await DBOS.listWorkflows({ workflowName: agent.workflowName, status }))
    .map((w) => w.workflowID)
    .sort();

/** Resolves with the runs that wait for answers, once `count` do (leaving out `seen`). */
async function waitingRuns(count: number, seen: readonly string[] = []): Promise<string[]> {
  for (;;) {
    const waiting = (await listWaiting(DBOS, agent.workflowName))
      .map((run) => run.runId)
      .filter((runId) => !seen.includes(runId));
    if (waiting.length >= count) return waiting.sort();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("runs on a DBOS queue", () => {
  it("run two at a time; a run waiting for its answer holds its slot until answered", async () => {
    const ids = ["q1", "q2", "q3", "q4"];
    const runs = await Promise.all(ids.map((runId) => agent.start("go", { runId })));
    const first = await waitingRuns(2);
    // Both slots wait for humans: the other two stay enqueued.
    expect(await inStatus("ENQUEUED")).toEqual(ids.filter((id) => !first.includes(id)));
    for (const runId of first) {
      await answer(DBOS, runId, { id: `${runId}/word`, ok: true, data: { word: runId } });
    }
    const second = await waitingRuns(2, first);
    expect([...first, ...second].sort()).toEqual(ids);
    for (const runId of second) {
      await answer(DBOS, runId, { id: `${runId}/word`, ok: true, data: { word: runId } });
    }
    const texts = await Promise.all(runs.map(async (run) => (await run.result()).text));
    expect(texts).toEqual(ids.map((id) => `got ${id}`));
  });
});
