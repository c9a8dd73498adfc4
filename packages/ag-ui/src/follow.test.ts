import type { AGUIEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { RunStore, Tool } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { agentClient } from "./fixtures/agent.mjs";
import { followAsAgUi } from "./follow.js";
import { outline } from "./test-kit.js";

async function collect(events: AsyncIterable<AGUIEvent>): Promise<AGUIEvent[]> {
  const seen: AGUIEvent[] = [];
  for await (const event of events) {
    expect(EventSchemas.safeParse(event).error).toBeUndefined();
    seen.push(event);
  }
  return seen;
}

const echo: Tool = {
  name: "echo",
  description: "Says its turn back",
  inputSchema: { type: "object", properties: { n: { type: "number" } } },
  source: "custom",
  execute: async (args) => ({ output: `turn ${String(args.n)}`, isError: false }),
};

/** A finished durable run of `turns` tool-calling turns and a last answer. */
async function longRun(turns: number) {
  const store = memoryRunStore();
  const model = scriptedModel([
    ...Array.from({ length: turns }, (_, n) => ({
      toolCalls: [{ id: `c${n}`, name: "echo", arguments: { n } }],
    })),
    { content: "all turns done" },
  ]);
  const client = createClient({ model, tools: [echo], runs: store, maxTurns: turns + 2 });
  await client.run("go", { runId: "long", durable: true });
  return store;
}

/** A durable run `runId` on `store` that sits in a tool call until `release()`. */
async function busyRun(store: RunStore, runId: string) {
  const model = scriptedModel([
    { toolCalls: [{ id: "c1", name: "wait", arguments: {} }] },
    { content: "ok" },
  ]);
  let release: () => void = () => {};
  let running: Promise<unknown> = Promise.resolve();
  const started = new Promise<void>((resolve) => {
    const wait: Tool = {
      name: "wait",
      description: "Waits until released",
      inputSchema: { type: "object", properties: {} },
      source: "custom",
      execute: () => {
        resolve();
        return new Promise((done) => {
          release = () => done({ output: "released", isError: false });
        });
      },
    };
    running = createClient({ model, tools: [wait], runs: store }).run("go", {
      runId,
      durable: true,
    });
  });
  await started;
  return { release: () => release(), running };
}

describe("followAsAgUi", () => {
  it("maps a whole recorded run, from RUN_STARTED to RUN_FINISHED", async () => {
    const store = await longRun(2);
    const events = await collect(followAsAgUi(store, "long", { threadId: "T", runId: "R" }));
    expect(outline(events)).toEqual([
      "RUN_STARTED",
      "STEP_STARTED turn 1",
      "TOOL_CALL_START echo",
      'TOOL_CALL_ARGS {"n":0}',
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT turn 0",
      "STEP_FINISHED turn 1",
      "STEP_STARTED turn 2",
      "TOOL_CALL_START echo",
      'TOOL_CALL_ARGS {"n":1}',
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT turn 1",
      "STEP_FINISHED turn 2",
      "STEP_STARTED turn 3",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT all turns done",
      "TEXT_MESSAGE_END",
      "STEP_FINISHED turn 3",
      "RUN_FINISHED success",
    ]);
  });

  it("stops at its cap with RUN_ERROR stream_limit, never splitting a start from its end", async () => {
    const store = await longRun(30); // about 180 events
    const events = await collect(
      followAsAgUi(store, "long", { threadId: "T", runId: "R", maxEvents: 100 }),
    );
    expect(events.length).toBeLessThanOrEqual(100);
    expect(outline(events).at(-1)).toBe("RUN_ERROR stream_limit");
    const starts = events.filter((e) => e.type === "TOOL_CALL_START").length;
    expect(events.filter((e) => e.type === "TOOL_CALL_END")).toHaveLength(starts);
    const steps = events.filter((e) => e.type === "STEP_STARTED").length;
    expect(events.filter((e) => e.type === "STEP_FINISHED")).toHaveLength(steps);
  });

  it("goes past a halt whose questions were answered since: nobody is asked twice", async () => {
    const store = memoryRunStore();
    const client = agentClient(store);
    const halted = await client.run("both", { runId: "both", durable: true });
    if (halted.status !== "pending") throw new Error("expected a halt");
    const [approval, input] = (await store.getRun("both"))!.requests.map((r) => r.request.id);
    // One answer, then a worker goes on: the other call halts again, still unanswered…
    await client.answer({ id: approval!, ok: true }, { by: "alice" });
    await client.continueRun("both");
    // …and is answered before anyone follows the run.
    await client.resume({ id: input!, ok: true, data: { replicas: 2 } }, { by: "bob" });

    const firstHalt = store.readEvents("both", 0, 1000).find((e) => e.type === "suspended")!;
    const events = await collect(
      followAsAgUi(store, "both", { threadId: "T", runId: "R", after: firstHalt.offset }),
    );
    expect(outline(events).filter((e) => e.startsWith("RUN_"))).toEqual([
      "RUN_STARTED",
      "RUN_FINISHED success",
    ]);
    expect(outline(events)).toContain("TOOL_CALL_RESULT scaled to 2 replicas");
    expect((events.at(-1) as { result?: string }).result).toBe(
      "Finished: deployed to production; scaled to 2 replicas",
    );
  });

  it("ends with RUN_ERROR not_found when the run never appears", async () => {
    const events = await collect(
      followAsAgUi(memoryRunStore(), "nope", { threadId: "T", runId: "R", waitForRunMs: 0 }),
    );
    expect(outline(events)).toEqual(["RUN_STARTED", "RUN_ERROR not_found"]);
  });

  it("ends without a last event when its signal aborts", async () => {
    const store = memoryRunStore();
    const { release, running } = await busyRun(store, "busy");
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const event of followAsAgUi(store, "busy", {
      threadId: "T",
      runId: "R",
      signal: controller.signal,
      pollMs: 10,
    })) {
      seen.push(event.type);
      if (event.type === "TOOL_CALL_END") controller.abort();
    }
    release();
    await running;
    expect(seen.at(-1)).toBe("TOOL_CALL_END");
    expect(seen).not.toContain("RUN_FINISHED");
  });

  it("ends with RUN_ERROR stream_limit at its time cap while the run sits in a tool", async () => {
    const store = memoryRunStore();
    const { release, running } = await busyRun(store, "slow");
    try {
      const events = await collect(
        followAsAgUi(store, "slow", { threadId: "T", runId: "R", pollMs: 10, maxMs: 100 }),
      );
      expect(outline(events).at(-1)).toBe("RUN_ERROR stream_limit");
      expect(events.filter((e) => e.type === "TOOL_CALL_END")).toHaveLength(1);
    } finally {
      release();
      await running;
    }
    expect((await store.getRun("slow"))?.state).toBe("done"); // the run went on
  });
});
