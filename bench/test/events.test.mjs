import { createClient, memoryRunStore } from "@toolnexus/client";
import { describe, expect, it } from "vitest";
import { countCalls, hideEvents, stampOf, stepModel, workTool } from "../events/common.mjs";

// What the events bench compares must be what it says: the hidden store really records none of
// the loop's events, and the real one records them all.
describe("events bench: the store with its event members hidden", () => {
  const run = async (runs) => {
    const client = createClient({ model: stepModel(3), tools: [workTool(0)], runs });
    const result = await client.run("go", { durable: true });
    expect(result.status).toBe("done");
    return result.runId;
  };

  it("leaves the loop no event member, so only the store's own events are recorded", async () => {
    const store = memoryRunStore();
    const hidden = hideEvents(store);
    expect(hidden.appendEvents).toBeUndefined();
    expect(hidden.readEvents).toBeUndefined();
    expect(hidden.watchEvents).toBeUndefined();
    const off = await run(hidden);
    const on = await run(store);
    const types = async (runId) => (await store.readEvents(runId, 0)).map((e) => e.type);
    expect(await types(off)).toEqual(["started", "done"]);
    const all = await types(on);
    expect(all.filter((t) => t === "tool_result")).toHaveLength(3);
    expect(all.at(0)).toBe("started");
    expect(all.at(-1)).toBe("done");
  });

  it("counts the store calls of a run, and each tool_result carries the worker's stamp", async () => {
    const store = memoryRunStore();
    const counts = {};
    const runId = await run(countCalls(store, counts));
    expect(counts.start).toBe(1);
    expect(counts.step).toBeGreaterThanOrEqual(3);
    expect(counts.appendEvents).toBeGreaterThan(0);
    const results = (await store.readEvents(runId, 0)).filter((e) => e.type === "tool_result");
    for (const event of results) {
      const stamp = stampOf(event);
      expect(stamp).toBeGreaterThan(performance.timeOrigin);
      expect(stamp).toBeLessThanOrEqual(performance.timeOrigin + performance.now());
    }
  });
});
