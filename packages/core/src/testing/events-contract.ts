// The part of the RunStore contract that lets any process follow a run and stop it: events
// recorded with the run (offsets, the store's own state events in the same write, the loop's
// appended under the lease), who answered, and cancel. Run by `runStoreContract`.
import { expect, it } from "vitest";
import type { RecordedRunEvent } from "../run-events.js";
import type { ClaimedRun, RunStore } from "../stores.js";
import {
  failure,
  LAPSE_MS,
  LONG_MS,
  type SampleCheckpointOptions,
  SHORT_MS,
  sampleCheckpoint,
  sampleError,
  sampleJournalEntry,
  sampleResult,
  sleep,
} from "./samples.js";

const leaseLost = { name: "LeaseLostError", code: "lease_lost" };
const runNotFound = { name: "RunNotFoundError", code: "run_not_found" };
const cancelledConflict = {
  name: "AnswerConflictError",
  code: "answer_conflict",
  reason: "cancelled",
};

/** The event contract's cases; call inside a `describe` of the store's contract suite. */
export function eventsContract(current: () => RunStore): void {
  const store = current;
  const kit = { sampleCheckpoint, sampleResult, sampleError, sampleJournalEntry };
  const events = async (runId: string, after = 0, limit?: number) =>
    (await store().readEvents!(runId, after, limit)) as RecordedRunEvent[];
  const types = async (runId: string) => (await events(runId)).map((e) => e.type);
  const claim = async (runId: string, owner = "w1", leaseMs = LONG_MS): Promise<ClaimedRun> => {
    const claimed = await store().claim({ owner, leaseMs, runId });
    expect(claimed, `run ${runId} should be claimable`).toBeDefined();
    return claimed!;
  };
  const halt = async (options: SampleCheckpointOptions) => {
    const checkpoint = kit.sampleCheckpoint(options);
    expect(await store().halt(checkpoint)).toEqual({ state: "waiting" });
    return checkpoint;
  };
  const stateOf = async (runId: string) => (await store().getRun(runId))?.state;

  it("has the event and cancel members", () => {
    for (const member of ["appendEvents", "readEvents", "watchEvents", "cancel"] as const) {
      expect(typeof store()[member], member).toBe("function");
    }
  });

  it("records a run's life as events with offsets 1, 2, 3…, the store's own in the same write", async () => {
    const lease = await store().start(
      kit.sampleCheckpoint({ runId: "run_1", sessionId: "s1", agent: "helper" }),
      "w1",
      LONG_MS,
    );
    expect(
      await store().appendEvents!(lease, [
        { type: "turn", data: { turn: 1 } },
        { type: "reasoning", data: { turn: 1, text: "The user wants staging." } },
        { type: "text", data: { turn: 1, text: "Checking." } },
        { type: "tool_call", data: { callId: "call_1", name: "ask", args: { n: 1 } } },
      ]),
    ).toBe(5);
    await store().halt(kit.sampleCheckpoint({ runId: "run_1", pending: ["r1"] }), lease);
    await store().answer({ id: "r1", ok: true, data: { env: "staging" } }, { by: "alice" });
    const claimed = await claim("run_1", "w2");
    expect(
      await store().appendEvents!(claimed.lease, [
        { type: "tool_result", data: { callId: "call_1", name: "ask", isError: false } },
      ]),
    ).toBe(9);
    await store().finish(claimed.lease, { state: "done", result: kit.sampleResult("run_1") });

    const all = await events("run_1");
    expect(all.map((e) => e.type)).toEqual([
      "started",
      "turn",
      "reasoning",
      "text",
      "tool_call",
      "suspended",
      "answered",
      "continued",
      "tool_result",
      "done",
    ]);
    expect(all.map((e) => e.offset)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const event of all) {
      expect(event.runId).toBe("run_1");
      expect(Number.isNaN(Date.parse(event.at))).toBe(false);
    }
    expect(all[0]!.data).toMatchObject({ sessionId: "s1", agent: "helper" });
    expect(all[2]!.data).toEqual({ turn: 1, text: "The user wants staging." });
    expect(all[3]!.data).toEqual({ turn: 1, text: "Checking." });
    expect(all[5]!.data).toEqual({ requests: [{ id: "r1", kind: "input", prompt: "question 1" }] });
    // Who answered, and never the answer's data (a follower may see less than the run).
    expect(all[6]!.data).toEqual({ requestId: "r1", ok: true, by: "alice" });
    expect(all[7]!.data).toEqual({ owner: "w2", reason: "ready" });
    expect(all[9]!.data).toEqual({ text: "all done" });
  });

  it("reads after an offset, at most a limit, and nothing of an unknown run", async () => {
    const lease = await store().start(kit.sampleCheckpoint({ runId: "run_1" }), "w1", LONG_MS);
    const many = Array.from({ length: 10 }, (_, i) => ({
      type: "text" as const,
      data: { turn: 1, text: `part ${i}` },
    }));
    expect(await store().appendEvents!(lease, many)).toBe(11);
    const page = await events("run_1", 3, 4);
    expect(page.map((e) => e.offset)).toEqual([4, 5, 6, 7]);
    expect(page[0]!.data).toEqual({ turn: 1, text: "part 2" });
    expect((await events("run_1", 11)).length).toBe(0);
    expect(await events("no_such_run")).toEqual([]);
    expect(await failure(() => store().readEvents!("run_1", -1))).toBeInstanceOf(TypeError);
  });

  it("appends only the loop's own event types, and only under a live lease", async () => {
    const lease = await store().start(kit.sampleCheckpoint({ runId: "run_1" }), "w1", SHORT_MS);
    expect(
      await failure(() => store().appendEvents!(lease, [{ type: "done", data: { text: "x" } }])),
    ).toBeInstanceOf(TypeError);
    expect(await types("run_1")).toEqual(["started"]);
    await sleep(LAPSE_MS);
    const taken = await claim("run_1", "w2");
    expect(taken.reason).toBe("takeover");
    // The first worker was paused past its lease: what it appends now is refused.
    expect(
      await failure(() => store().appendEvents!(lease, [{ type: "turn", data: { turn: 2 } }])),
    ).toMatchObject(leaseLost);
    expect(await types("run_1")).toEqual(["started", "continued"]);
    expect((await events("run_1", 1))[0]!.data).toEqual({ owner: "w2", reason: "takeover" });
  });

  it("a run made durable by its first halt records started, then suspended; failed ends it", async () => {
    await halt({ runId: "run_1", sessionId: "s1", pending: ["r1"] });
    await store().answer({ id: "r1", ok: false, reason: "declined" });
    const claimed = await claim("run_1");
    await store().finish(claimed.lease, { state: "failed", error: kit.sampleError() });
    const all = await events("run_1");
    expect(all.map((e) => e.type)).toEqual([
      "started",
      "suspended",
      "answered",
      "continued",
      "failed",
    ]);
    expect(all[2]!.data).toEqual({ requestId: "r1", ok: false, reason: "declined" });
    expect(all[4]!.data).toEqual({ code: "model_failed", message: "the model is down" });
  });

  it("tells a watcher after each event, until it unsubscribes", async () => {
    await halt({ runId: "run_1", pending: ["r1"] });
    let calls = 0;
    let wake: () => void = () => {};
    const unsubscribe = store().watchEvents!("run_1", () => {
      calls++;
      wake();
    });
    try {
      const told = new Promise<void>((resolve) => {
        wake = resolve;
      });
      await store().answer({ id: "r1", ok: true });
      await told;
      expect(calls).toBeGreaterThan(0);
    } finally {
      unsubscribe();
    }
  });

  it("prunes a finished run's events with it", async () => {
    const lease = await store().start(kit.sampleCheckpoint({ runId: "run_1" }), "w1", LONG_MS);
    await store().finish(lease, { state: "done", result: kit.sampleResult("run_1") });
    expect((await events("run_1")).length).toBe(2);
    expect(await store().prune({ olderThan: 0 })).toBe(1);
    expect(await events("run_1")).toEqual([]);
  });

  it("keeps who answered and when, wherever requests are read; a duplicate keeps the first", async () => {
    await halt({ runId: "run_1", sessionId: "s1", pending: ["r1", "r2"] });
    const before = Date.now();
    await store().answer({ id: "r1", ok: true }, { by: "alice@example.com" });
    await store().answer({ id: "r2", ok: true });
    const duplicate = await store().answer({ id: "r1", ok: true }, { by: "mallory" });
    expect(duplicate.duplicate).toBe(true);
    const request = await store().getRequest("r1");
    expect(request).toMatchObject({ state: "answered", answeredBy: "alice@example.com" });
    expect(Date.parse(request!.answeredAt!)).toBeGreaterThanOrEqual(before - 60_000);
    const unsigned = await store().getRequest("r2");
    expect(unsigned?.answeredBy).toBeUndefined();
    expect(Number.isNaN(Date.parse(unsigned!.answeredAt!))).toBe(false);
    const run = await store().getRun("run_1");
    expect(run?.requests[0]).toMatchObject({ answeredBy: "alice@example.com" });
    const listed = await store().list({ runId: "run_1" });
    expect(listed.find((s) => s.request.id === "r1")?.answeredBy).toBe("alice@example.com");
    // One answered event per recorded answer, none for the duplicate.
    expect((await types("run_1")).filter((t) => t === "answered")).toHaveLength(2);
  });

  it("refuses a `by` that is not a short non-empty string, recording nothing", async () => {
    await halt({ runId: "run_1", pending: ["r1"] });
    for (const by of ["", "x".repeat(257), 42]) {
      expect(
        await failure(() => store().answer({ id: "r1", ok: true }, { by: by as string })),
      ).toMatchObject({ name: "WireFormatError", code: "wire_format" });
    }
    expect((await store().getRequest("r1"))?.state).toBe("waiting");
    expect(await types("run_1")).toEqual(["started", "suspended"]);
  });

  it("cancels a waiting run at once: its requests cancelled, who and why kept, a later answer refused", async () => {
    await halt({ runId: "run_1", pending: ["r1", "r2"] });
    await store().answer({ id: "r2", ok: true });
    const receipt = await store().cancel!("run_1", { by: "bob", reason: "changed my mind" });
    expect(receipt).toEqual({ runId: "run_1", outcome: "cancelled", state: "cancelled" });
    const run = await store().getRun("run_1");
    expect(run).toMatchObject({
      state: "cancelled",
      cancel: { by: "bob", reason: "changed my mind" },
    });
    expect(Number.isNaN(Date.parse(run!.cancel!.at))).toBe(false);
    expect(run!.requests.map((r) => r.state)).toEqual(["cancelled", "cancelled"]);
    expect(await failure(() => store().answer({ id: "r1", ok: true }))).toMatchObject(
      cancelledConflict,
    );
    expect(await store().claim({ owner: "w1", leaseMs: LONG_MS })).toBeUndefined();
    expect(await store().claim({ owner: "w1", leaseMs: LONG_MS, runId: "run_1" })).toBe(undefined);
    expect(await store().list({ state: "waiting" })).toEqual([]);
    const all = await events("run_1");
    expect(all.at(-1)).toMatchObject({
      type: "cancelled",
      data: { by: "bob", reason: "changed my mind" },
    });
  });

  it("cancels a ready, an expired and a failed run at once; a finished one is kept", async () => {
    await halt({ runId: "ready", pending: ["r1"] });
    await store().answer({ id: "r1", ok: true });
    const past = new Date(Date.now() - 1000).toISOString();
    await halt({ runId: "expired", pending: [{ id: "r2", deadline: past }] });
    const failing = await store().start(kit.sampleCheckpoint({ runId: "failed" }), "w1", LONG_MS);
    await store().finish(failing, { state: "failed", error: kit.sampleError() });
    for (const runId of ["ready", "expired", "failed"]) {
      expect((await store().cancel!(runId)).outcome, runId).toBe("cancelled");
      expect(await stateOf(runId)).toBe("cancelled");
    }
    expect(await store().claim({ owner: "w1", leaseMs: LONG_MS })).toBeUndefined();
    // A cancelled run is finished: prune takes it.
    expect(await store().prune({ olderThan: 0 })).toBe(3);
  });

  it("asks a running run to stop: the worker's next renew says so, and it ends cancelled", async () => {
    const lease = await store().start(kit.sampleCheckpoint({ runId: "run_1" }), "w1", LONG_MS);
    const receipt = await store().cancel!("run_1", { by: "ops", reason: "runaway" });
    expect(receipt).toEqual({ runId: "run_1", outcome: "requested", state: "running" });
    expect((await store().getRun("run_1"))?.cancel).toMatchObject({ by: "ops", reason: "runaway" });
    // Asking again changes nothing and records nothing more.
    expect((await store().cancel!("run_1", { by: "someone else" })).outcome).toBe("requested");
    const renewed = await store().renew(lease, LONG_MS);
    expect(renewed.cancel).toMatchObject({ by: "ops", reason: "runaway" });
    await store().finish(renewed, { state: "cancelled", cancel: renewed.cancel! });
    expect(await store().getRun("run_1")).toMatchObject({
      state: "cancelled",
      cancel: { by: "ops", reason: "runaway" },
    });
    expect(await types("run_1")).toEqual(["started", "cancel_requested", "cancelled"]);
    expect((await store().cancel!("run_1")).outcome).toBe("already_cancelled");
  });

  it("a halt after a cancel was asked ends the run cancelled, and says so with who asked", async () => {
    const lease = await store().start(kit.sampleCheckpoint({ runId: "run_1" }), "w1", LONG_MS);
    await store().cancel!("run_1", { by: "ops", reason: "runaway" });
    const receipt = await store().halt(
      kit.sampleCheckpoint({ runId: "run_1", pending: ["r1"] }),
      lease,
    );
    expect(receipt).toMatchObject({ state: "cancelled", cancel: { by: "ops", reason: "runaway" } });
    const run = await store().getRun("run_1");
    expect(run?.state).toBe("cancelled");
    // The receipt carries the run's own cancel: the client needs no read to learn of it.
    expect((receipt as { cancel: unknown }).cancel).toEqual(run?.cancel);
    expect((await store().getRequest("r1"))?.state).toBe("cancelled");
  });

  it("a worker that gives a run back after a cancel was asked ends it cancelled", async () => {
    const lease = await store().start(kit.sampleCheckpoint({ runId: "run_1" }), "w1", LONG_MS);
    await store().cancel!("run_1", { by: "ops" });
    await store().release(lease, kit.sampleError(), Date.now());
    expect(await stateOf("run_1")).toBe("cancelled");
    expect(await store().claim({ owner: "w2", leaseMs: LONG_MS })).toBeUndefined();
  });

  it("cancels at once a running run whose worker is gone (its lease lapsed)", async () => {
    await store().start(kit.sampleCheckpoint({ runId: "run_1" }), "w1", SHORT_MS);
    await sleep(LAPSE_MS);
    expect((await store().cancel!("run_1", { by: "ops" })).outcome).toBe("cancelled");
    expect(await stateOf("run_1")).toBe("cancelled");
    expect(await store().claim({ owner: "w2", leaseMs: LONG_MS })).toBeUndefined();
  });

  it("cancels the runs of its sub-agents, and no other run", async () => {
    await halt({ runId: "run_1", pending: ["r1"] });
    await halt({ runId: "run_1/call_1", pending: ["r2"] });
    await halt({ runId: "run_1/call_1/call_3", pending: ["r3"] });
    await halt({ runId: "run_10", pending: ["r4"] });
    await store().cancel!("run_1", { by: "bob" });
    expect(await stateOf("run_1/call_1")).toBe("cancelled");
    expect(await stateOf("run_1/call_1/call_3")).toBe("cancelled");
    expect((await store().getRun("run_1/call_1"))?.cancel).toMatchObject({ by: "bob" });
    expect(await stateOf("run_10")).toBe("waiting");
  });

  it("a done run, or an unknown one, cannot be cancelled", async () => {
    const lease = await store().start(kit.sampleCheckpoint({ runId: "run_1" }), "w1", LONG_MS);
    await store().finish(lease, { state: "done", result: kit.sampleResult("run_1") });
    expect(await store().cancel!("run_1", { by: "bob" })).toEqual({
      runId: "run_1",
      outcome: "finished",
      state: "done",
    });
    expect(await types("run_1")).toEqual(["started", "done"]);
    expect(await failure(() => store().cancel!("nope"))).toMatchObject(runNotFound);
    expect(await failure(() => store().cancel!("run_1", { by: "" }))).toMatchObject({
      name: "WireFormatError",
    });
  });

  it("renew without a cancel asked returns a lease without one", async () => {
    const lease = await store().start(kit.sampleCheckpoint({ runId: "run_1" }), "w1", LONG_MS);
    expect((await store().renew(lease, LONG_MS)).cancel).toBeUndefined();
    await store().journal(lease, kit.sampleJournalEntry("call_1"));
  });
}
