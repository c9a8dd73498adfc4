import { LeaseLostError, type RunStore } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

// A durable run's writes go through its Journal: what the run rejects with when the store
// refuses a write, whether the store throws at once or answers with a rejected promise.

const status = nativeTool({ name: "status", description: "Reports status", run: () => "green" });

const model = () =>
  scriptedModel([{ toolCalls: [{ id: "c_status", name: "status" }] }, { content: "all green" }]);

/** A memory store whose `method` fails as `fail` says (the other methods are the store's own). */
function failing(
  method: "journal" | "finish" | "appendEvents",
  fail: "throw" | "reject" | "lost",
): RunStore {
  const store = memoryRunStore();
  const failure = (lease: { runId: string }) =>
    fail === "lost"
      ? new LeaseLostError(lease.runId, "another worker took it")
      : new Error(`disk full (${method})`);
  return {
    ...store,
    [method]: (lease: { runId: string }) => {
      if (fail === "throw" || fail === "lost") throw failure(lease);
      return Promise.reject(failure(lease));
    },
  } as RunStore;
}

describe("a durable run's writes", () => {
  for (const [method, what] of [
    ["journal", "journal a call"],
    ["finish", "save the result"],
    ["appendEvents", "record the events"],
  ] as const) {
    for (const fail of ["throw", "reject"] as const) {
      it(`a store whose ${method} ${fail}s fails the run with store_failed, naming the write`, async () => {
        const client = createClient({
          model: model(),
          tools: [status],
          runs: failing(method, fail),
        });
        const thrown = await client.run("status?", { durable: true }).catch((e: unknown) => e);
        expect(thrown).toMatchObject({
          code: "store_failed",
          message: expect.stringMatching(
            new RegExp(`^could not ${what} of run run_[0-9a-f]{32}: disk full \\(${method}\\)$`),
          ),
        });
        expect((thrown as Error).cause).toBeInstanceOf(Error);
      });
    }
  }

  it("a write that finds the lease taken fails the run with lease_lost", async () => {
    const client = createClient({
      model: model(),
      tools: [status],
      runs: failing("journal", "lost"),
    });
    const thrown = await client.run("status?", { durable: true }).catch((e: unknown) => e);
    expect(thrown).toMatchObject({
      code: "lease_lost",
      message: expect.stringContaining("another worker took it"),
    });
  });

  it("events written by a store that answers later keep their order, and each write waits for them", async () => {
    const inner = memoryRunStore();
    const log: string[] = [];
    // appendEvents answers on a later macrotask: a step or a journaled call written before it
    // settled would be out of order.
    const slow: RunStore = {
      ...inner,
      appendEvents: (lease, events) =>
        new Promise<number>((resolve) =>
          setImmediate(() => {
            log.push(`events ${events.length}`);
            resolve(inner.appendEvents(lease, events));
          }),
        ),
      step: (lease, checkpoint) => {
        log.push("step");
        return inner.step(lease, checkpoint);
      },
      journal: (lease, entry) => {
        log.push("journal");
        return inner.journal(lease, entry);
      },
      finish: (lease, outcome) => {
        log.push("finish");
        return inner.finish(lease, outcome);
      },
    };
    const quick = memoryRunStore();
    const slowRun = await createClient({ model: model(), tools: [status], runs: slow }).run(
      "status?",
      { durable: true },
    );
    const quickRun = await createClient({ model: model(), tools: [status], runs: quick }).run(
      "status?",
      { durable: true },
    );
    expect(slowRun.text).toBe("all green");
    // Every durable write came after the events recorded before it.
    expect(log.map((line) => line.split(" ")[0])).toEqual([
      "events",
      "step",
      "events",
      "journal",
      "events",
      "finish",
    ]);
    const types = (store: ReturnType<typeof memoryRunStore>, runId: string) =>
      store.readEvents(runId, 0).map((event) => event.type);
    expect(types(inner, slowRun.runId)).toEqual(types(quick, quickRun.runId));
    expect(types(inner, slowRun.runId)).toContain("tool_result");
  });
});
