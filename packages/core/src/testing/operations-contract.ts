// The part of the RunStore contract an operator's tools use: listing runs, handing a failed run
// back to the workers, reading the journal of the step in flight. Run by `runStoreContract`.
import { expect, it } from "vitest";
import type { RunSummary } from "../run-listing.js";
import type { RunStore } from "../stores.js";
import {
  failure,
  isoIn,
  LONG_MS,
  type SampleCheckpointOptions,
  sampleCheckpoint,
  sampleError,
  sampleJournalEntry,
  sampleResult,
  sleep,
} from "./samples.js";

const runNotFound = { name: "RunNotFoundError", code: "run_not_found" };

/** The operations contract's cases; call inside a `describe` of the store's contract suite. */
export function operationsContract(current: () => RunStore): void {
  const store = current;
  const list = async (filter?: Parameters<NonNullable<RunStore["listRuns"]>>[0]) =>
    (await store().listRuns!(filter)) as RunSummary[];
  const ids = async (filter?: Parameters<NonNullable<RunStore["listRuns"]>>[0]) =>
    (await list(filter)).map((run) => run.runId);
  const halt = async (options: SampleCheckpointOptions) => {
    expect(await store().halt(sampleCheckpoint(options))).toEqual({ state: "waiting" });
  };
  /** A run that ended `failed` after one released error; its lease is gone. */
  const failedRun = async (runId: string) => {
    const lease = await store().start(sampleCheckpoint({ runId }), "w1", LONG_MS);
    await store().release(lease, sampleError("flaky", "first try"), Date.now());
    const claimed = await store().claim({ owner: "w2", leaseMs: LONG_MS, runId });
    expect(claimed?.failures).toBe(1);
    await store().finish(claimed!.lease, {
      state: "failed",
      error: sampleError("model_failed", "gave up"),
    });
  };

  it("has the operations members", () => {
    for (const member of ["listRuns", "retry", "readJournal"] as const) {
      expect(typeof store()[member], member).toBe("function");
    }
  });

  it("lists runs newest change first, with their plain fields", async () => {
    await halt({ runId: "run_a", sessionId: "s1", agent: "support", pending: ["q_a"] });
    await sleep(5);
    await halt({ runId: "run_b", sessionId: "s2", pending: ["q_b"] });
    await sleep(5);
    await store().start(sampleCheckpoint({ runId: "run_c", agent: "billing" }), "w1", LONG_MS);
    const runs = await list();
    expect(runs.map((r) => r.runId)).toEqual(["run_c", "run_b", "run_a"]);
    const a = runs[2]!;
    expect(a).toMatchObject({
      runId: "run_a",
      state: "waiting",
      sessionId: "s1",
      agent: "support",
      failures: 0,
    });
    expect(Number.isNaN(Date.parse(a.createdAt))).toBe(false);
    expect(Date.parse(a.updatedAt)).toBeLessThanOrEqual(Date.parse(runs[1]!.updatedAt));
    expect(runs[1]).not.toHaveProperty("agent");
    expect(runs[0]!.state).toBe("running");
  });

  it("filters by state, agent, session and age, and caps at limit", async () => {
    await halt({ runId: "run_a", sessionId: "s1", agent: "support", pending: ["q_a"] });
    await halt({
      runId: "run_x",
      sessionId: "s1",
      pending: [{ id: "q_x", deadline: isoIn(-1000) }],
    });
    const cutoff = new Date();
    await sleep(20);
    await halt({ runId: "run_b", sessionId: "s2", agent: "support", pending: ["q_b"] });
    await failedRun("run_f");

    expect(await ids({ state: "waiting" })).toEqual(["run_b", "run_a"]);
    expect(await ids({ state: "expired" })).toEqual(["run_x"]);
    expect(await ids({ state: "failed" })).toEqual(["run_f"]);
    expect(await ids({ agent: "support" })).toEqual(["run_b", "run_a"]);
    // run_a and run_x may share a millisecond: their order is not the contract's.
    expect((await ids({ sessionId: "s1" })).sort()).toEqual(["run_a", "run_x"]);
    expect(await ids({ sessionId: "s1", state: "waiting" })).toEqual(["run_a"]);
    expect((await ids({ olderThan: cutoff })).sort()).toEqual(["run_a", "run_x"]);
    expect(await ids({ olderThan: cutoff, agent: "support" })).toEqual(["run_a"]);
    expect(await ids({ limit: 2 })).toHaveLength(2);
    expect(await ids({ agent: "nobody" })).toEqual([]);
    expect((await list({ state: "failed" }))[0]).toMatchObject({
      lastError: { code: "model_failed", message: "gave up" },
    });
  });

  it("refuses a bad filter with a TypeError", async () => {
    for (const bad of [{ state: "sleeping" }, { limit: 0 }, { limit: 1.5 }, { olderThan: -1 }]) {
      expect(await failure(() => store().listRuns!(bad as never))).toBeInstanceOf(TypeError);
    }
  });

  it("hands a failed run back to the workers: ready, claimable, failures reset", async () => {
    await failedRun("run_f");
    expect(await store().claim({ owner: "w3", leaseMs: LONG_MS })).toBeUndefined();
    expect(await store().retry!("run_f")).toEqual({
      runId: "run_f",
      outcome: "ready",
      state: "ready",
    });
    const run = await store().getRun("run_f");
    expect(run).toMatchObject({ state: "ready", failures: 0 });
    expect(run?.lastError).toMatchObject({ code: "model_failed" });
    // A retried run is going again: prune keeps it.
    expect(await store().prune({ olderThan: 0 })).toBe(0);
    const claimed = await store().claim({ owner: "w3", leaseMs: LONG_MS });
    expect(claimed).toMatchObject({ reason: "ready", failures: 0 });
    expect(claimed?.lease.runId).toBe("run_f");
    await store().finish(claimed!.lease, { state: "done", result: sampleResult("run_f") });
    expect((await store().getRun("run_f"))?.state).toBe("done");
  });

  it("retry changes nothing but a failed run, and names an unknown one", async () => {
    await halt({ runId: "run_w", pending: ["q_w"] });
    expect(await store().retry!("run_w")).toEqual({
      runId: "run_w",
      outcome: "not_failed",
      state: "waiting",
    });
    expect((await store().getRun("run_w"))?.state).toBe("waiting");
    expect(await failure(() => store().retry!("run_nope"))).toMatchObject(runNotFound);
  });

  it("reads the journal of the step in flight, in the order written", async () => {
    const lease = await store().start(sampleCheckpoint({ runId: "run_j" }), "w1", LONG_MS);
    expect(await store().readJournal!("run_j")).toEqual([]);
    await store().journal(lease, sampleJournalEntry("call_1"));
    await store().journal(lease, sampleJournalEntry("call_2"));
    const journal = await store().readJournal!("run_j");
    expect(journal.map((entry) => entry.callId)).toEqual(["call_1", "call_2"]);
    expect(journal[0]).toEqual(sampleJournalEntry("call_1"));
    await store().step(lease, sampleCheckpoint({ runId: "run_j", turns: 2 }));
    expect(await store().readJournal!("run_j")).toEqual([]);
    expect(await store().readJournal!("run_nope")).toEqual([]);
  });
}
