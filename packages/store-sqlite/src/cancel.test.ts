// Cancel in SQLite beyond the shared contract: sub-agent ids matched by range (no LIKE
// wildcards), a claim that meets a cancel-requested run ends it instead of handing it out, and a
// halt under a cancel ends the run.
import { AnswerConflictError } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import type { SqliteStore } from "./store.js";
import { checkpoint, request, stepCheckpoint, storePerTest, thrown } from "./test-fixtures.js";

let store: SqliteStore;
storePerTest((s) => {
  store = s;
});

const halt = (runId: string) => store.halt(checkpoint([request()], { runId }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("cancel", () => {
  it("cancels sub-agents by id prefix, with % and _ in ids taken literally", () => {
    for (const runId of ["a%_1", "a%_1/c", "a%_1/c/d", "ab_1/c", "a%_10", "a%_1x/c", "aX_1/c"]) {
      halt(runId);
    }
    store.cancel("a%_1", { by: "bob" });
    const state = (runId: string) => store.getRun(runId)?.state;
    expect(["a%_1", "a%_1/c", "a%_1/c/d"].map(state)).toEqual([
      "cancelled",
      "cancelled",
      "cancelled",
    ]);
    expect(["ab_1/c", "a%_10", "a%_1x/c", "aX_1/c"].map(state)).toEqual([
      "waiting",
      "waiting",
      "waiting",
      "waiting",
    ]);
  });

  it("a claim never hands out a run asked to stop whose worker is gone: it ends it and takes the next", async () => {
    // A lease long enough that the cancel surely meets it live on a busy machine (a 50 ms one
    // once lapsed first, and the cancel then ended the run itself); then it is left to lapse.
    const lease = store.start(stepCheckpoint("run_1"), "w1", 1_000);
    store.cancel("run_1", { by: "ops", reason: "stuck" });
    expect(store.getRun("run_1")?.state).toBe("running");
    while (Date.now() <= lease.expiresAt)
      await sleep(Math.max(1, lease.expiresAt - Date.now() + 5));
    // Ready after run_1's lease lapsed: run_1 is the claim's first pick.
    halt("run_2");
    const asked = store.getRun("run_2")!.requests[0]!.request.id;
    store.answer({ id: asked, ok: true });
    const claimed = store.claim({ owner: "w2", leaseMs: 60_000 });
    expect(claimed?.lease.runId).toBe("run_2");
    expect(store.getRun("run_1")).toMatchObject({
      state: "cancelled",
      cancel: { by: "ops", reason: "stuck" },
    });
    expect(store.readEvents("run_1", 0).map((e) => e.type)).toEqual([
      "started",
      "cancel_requested",
      "cancelled",
    ]);
    // By id too: nothing handed out.
    expect(store.claim({ owner: "w2", leaseMs: 60_000, runId: "run_1" })).toBeUndefined();
  });

  it("a worker that halts a run asked to stop ends it cancelled, its requests unanswerable", () => {
    const lease = store.start(stepCheckpoint("run_1"), "w1", 60_000);
    store.cancel("run_1", { by: "ops" });
    const asked = request();
    store.halt(checkpoint([asked], { runId: "run_1" }), lease);
    expect(store.getRun("run_1")?.state).toBe("cancelled");
    const error = thrown(() => store.answer({ id: asked.id, ok: true }));
    expect(error).toBeInstanceOf(AnswerConflictError);
    expect((error as AnswerConflictError).reason).toBe("cancelled");
    expect(store.readEvents("run_1", 0).map((e) => e.type)).toEqual([
      "started",
      "cancel_requested",
      "suspended",
      "cancelled",
    ]);
    expect(store.list({ state: "cancelled" }).map((s) => s.request.id)).toEqual([asked.id]);
  });

  it("a worker's finish keeps who asked first over what it passes", () => {
    const lease = store.start(stepCheckpoint("run_1"), "w1", 60_000);
    store.cancel("run_1", { by: "ops", reason: "first" });
    store.finish(lease, {
      state: "cancelled",
      cancel: { by: "worker", at: new Date().toISOString() },
    });
    expect(store.getRun("run_1")?.cancel).toMatchObject({ by: "ops", reason: "first" });
    expect(store.readEvents("run_1", 2)).toMatchObject([
      { type: "cancelled", data: { by: "ops", reason: "first" } },
    ]);
  });
});
