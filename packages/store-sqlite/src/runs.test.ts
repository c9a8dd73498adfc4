import {
  type Checkpoint,
  CheckpointError,
  type Lease,
  LeaseLostError,
  type RunStore,
  ToolnexusError,
} from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import type { SqliteStore } from "./store.js";
import {
  checkpoint,
  doneResult,
  iso,
  journalEntry,
  request,
  stepCheckpoint,
  storePerTest,
  thrown,
} from "./test-fixtures.js";

let store: SqliteStore;
storePerTest((opened) => {
  store = opened;
});

const error = (code = "model_error") => ({ code, message: "the model failed", at: iso(0) });

/** A run started durable and leased to w1. */
function started(owner = "w1"): { lease: Lease; runId: string } {
  const ckp = stepCheckpoint(`run_${Math.random().toString(36).slice(2)}`);
  return { lease: store.start(ckp, owner, 60_000), runId: ckp.runId };
}

describe("the store interfaces", () => {
  it("is a RunStore without subscribe (workers poll)", () => {
    const runs: RunStore = store;
    expect(typeof runs.claim).toBe("function");
    expect("subscribe" in store).toBe(false);
  });
});

describe("halt without a lease", () => {
  it("stores a new run waiting, with a request row per pending call", () => {
    const r1 = request();
    const r2 = request({ kind: "approval", prompt: "Deploy?" });
    const ckp = checkpoint([r1, r2], { sessionId: "s1", agent: "ops" });
    expect(store.halt(ckp)).toEqual({ state: "waiting" });
    const info = store.getRun(ckp.runId)!;
    expect(info).toMatchObject({
      runId: ckp.runId,
      state: "waiting",
      sessionId: "s1",
      agent: "ops",
      createdAt: ckp.createdAt,
      failures: 0,
      checkpoint: ckp,
    });
    expect(info.requests.map((r) => [r.request, r.state])).toEqual([
      [r1, "waiting"],
      [r2, "waiting"],
    ]);
    expect(info.owner).toBeUndefined();
  });

  it("refuses a run that already exists with code run_exists, changing nothing", () => {
    const ckp = checkpoint([request()]);
    store.halt(ckp);
    const again = thrown(() => store.halt(checkpoint([request()], { runId: ckp.runId })));
    expect(again).toBeInstanceOf(ToolnexusError);
    expect((again as ToolnexusError).code).toBe("run_exists");
    expect(store.getRun(ckp.runId)?.checkpoint).toEqual(ckp);
    expect(store.list()).toHaveLength(1);
  });

  it("refuses an invalid checkpoint with a CheckpointError and stores nothing", () => {
    const r = request();
    const bad = { ...checkpoint([r]), version: 1 } as unknown as Checkpoint;
    expect(() => store.halt(bad)).toThrow(CheckpointError);
    const { createdAt: _dropped, ...noTime } = checkpoint([r]);
    expect(() => store.halt(noTime as Checkpoint)).toThrow(/createdAt/);
    expect(() => store.halt(stepCheckpoint("run_x"))).toThrow(CheckpointError);
    expect(store.list()).toEqual([]);
    expect(store.getRun(bad.runId)).toBeUndefined();
  });

  it("stores a copy: later changes to the caller's checkpoint do not reach the store", () => {
    const ckp = checkpoint([request()]);
    store.halt(ckp);
    ckp.messages.push({ role: "user", content: "appended later" });
    expect(store.getRun(ckp.runId)?.checkpoint?.messages).toHaveLength(3);
  });
});

describe("start, step, journal, renew", () => {
  it("start creates a running run under token 1; a second start is run_exists", () => {
    const ckp = stepCheckpoint("run_s");
    const before = Date.now();
    const lease = store.start(ckp, "w1", 30_000);
    expect(lease).toMatchObject({ runId: "run_s", owner: "w1", token: 1 });
    expect(lease.expiresAt).toBeGreaterThanOrEqual(before + 30_000);
    const info = store.getRun("run_s")!;
    expect(info).toMatchObject({ state: "running", owner: "w1", checkpoint: ckp, requests: [] });
    expect(Date.parse(info.leaseExpiresAt!)).toBe(lease.expiresAt);
    expect(() => store.start(ckp, "w2", 1000)).toThrow(
      expect.objectContaining({ code: "run_exists" }),
    );
    expect(() => store.halt(checkpoint([request()], { runId: "run_s" }))).toThrow(
      expect.objectContaining({ code: "run_exists" }),
    );
  });

  it("step replaces the checkpoint and clears the journal and failures", () => {
    const { lease, runId } = started();
    store.journal(lease, journalEntry("c1"));
    store.release(lease, error(), Date.now() - 1);
    const claimed = store.claim({ owner: "w2", leaseMs: 60_000, runId })!;
    expect(claimed.journal).toHaveLength(1);
    expect(claimed.failures).toBe(1);
    const next = stepCheckpoint(runId, 2);
    store.step(claimed.lease, next);
    const info = store.getRun(runId)!;
    expect(info.checkpoint).toEqual(next);
    expect(info.failures).toBe(0);
    expect(info.lastError).toBeUndefined();
    store.release(claimed.lease);
    expect(store.claim({ owner: "w3", leaseMs: 1000, runId })?.journal).toEqual([]);
  });

  it("journal appends in order; a malformed entry is refused before anything is written", () => {
    const { lease, runId } = started();
    store.journal(lease, journalEntry("c1"));
    store.journal(lease, journalEntry("c2"));
    expect(() =>
      store.journal(lease, { callId: "c3" } as unknown as ReturnType<typeof journalEntry>),
    ).toThrow(CheckpointError);
    store.release(lease);
    const claimed = store.claim({ owner: "w2", leaseMs: 1000, runId })!;
    expect(claimed.journal.map((e) => e.callId)).toEqual(["c1", "c2"]);
    expect(claimed.journal[0]).toEqual(journalEntry("c1"));
  });

  it("renew extends the lease with the same token; a renewed lease keeps working", () => {
    const { lease, runId } = started();
    const renewed = store.renew(lease, 120_000);
    expect(renewed).toMatchObject({ runId, owner: "w1", token: lease.token });
    expect(renewed.expiresAt).toBeGreaterThan(lease.expiresAt);
    expect(Date.parse(store.getRun(runId)!.leaseExpiresAt!)).toBe(renewed.expiresAt);
    store.step(renewed, stepCheckpoint(runId, 2));
    // The token is what fences, so the old object (same token) is still this worker's lease.
    store.step(lease, stepCheckpoint(runId, 3));
  });

  it("a step with a checkpoint of another run is refused", () => {
    const { lease } = started();
    expect(() => store.step(lease, stepCheckpoint("run_other"))).toThrow(CheckpointError);
  });
});

describe("fencing", () => {
  it("after a takeover every write with the old lease is LeaseLostError; release ignores it", () => {
    const ckp = stepCheckpoint("run_f");
    const old = store.start(ckp, "w1", 0); // expires at once
    const taken = store.claim({ owner: "w2", leaseMs: 60_000 })!;
    expect(taken.reason).toBe("takeover");
    expect(taken.lease.token).toBe(2);

    const writes: [string, () => unknown][] = [
      ["step", () => store.step(old, stepCheckpoint("run_f", 9))],
      ["journal", () => store.journal(old, journalEntry("late"))],
      ["renew", () => store.renew(old, 1000)],
      ["finish", () => store.finish(old, { state: "done", result: doneResult("run_f") })],
      ["halt", () => store.halt(checkpoint([request()], { runId: "run_f" }), old)],
    ];
    for (const [name, write] of writes) {
      const lost = thrown(write);
      expect(lost, name).toBeInstanceOf(LeaseLostError);
      expect((lost as LeaseLostError).runId).toBe("run_f");
    }
    store.release(old, error());
    // Nothing the old worker did reached the run.
    const info = store.getRun("run_f")!;
    expect(info).toMatchObject({ state: "running", owner: "w2", failures: 0, checkpoint: ckp });
    store.release(taken.lease);
    expect(store.claim({ owner: "w3", leaseMs: 1000 })?.journal).toEqual([]);
  });

  it("an expired lease that nobody took over still writes (only a claim fences)", () => {
    const ckp = stepCheckpoint("run_e");
    const lease = store.start(ckp, "w1", 0);
    store.step(lease, stepCheckpoint("run_e", 2));
    store.journal(lease, journalEntry("c1"));
    expect(store.renew(lease, 60_000).token).toBe(1);
    expect(store.claim({ owner: "w2", leaseMs: 1000 })).toBeUndefined();
  });

  it("the same token with another owner, or a run not running, is lost", () => {
    const { lease, runId } = started();
    expect(() => store.step({ ...lease, owner: "impostor" }, stepCheckpoint(runId))).toThrow(
      LeaseLostError,
    );
    store.release(lease);
    expect(() => store.renew(lease, 1000)).toThrow(/the run is ready/);
    expect(() => store.step({ ...lease, runId: "run_nope" }, stepCheckpoint("run_nope"))).toThrow(
      LeaseLostError,
    );
  });

  it("malformed arguments are TypeErrors", () => {
    const { lease } = started();
    expect(() => store.renew(lease, -1)).toThrow(TypeError);
    expect(() => store.renew({} as Lease, 1000)).toThrow(TypeError);
    expect(() => store.start(stepCheckpoint("run_t"), "", 1000)).toThrow(TypeError);
    expect(() => store.release(lease, undefined, Number.NaN)).toThrow(TypeError);
    expect(() => store.finish(lease, { state: "nope" } as never)).toThrow(TypeError);
  });
});

describe("halt with a lease", () => {
  it("releases the run: waiting, owner cleared, journal cleared", () => {
    const { lease, runId } = started();
    store.journal(lease, journalEntry("c1"));
    const r = request();
    const ckp = checkpoint([r], { runId });
    expect(store.halt(ckp, lease)).toEqual({ state: "waiting" });
    const info = store.getRun(runId)!;
    expect(info).toMatchObject({ state: "waiting", checkpoint: ckp });
    expect(info.owner).toBeUndefined();
    expect(() => store.step(lease, stepCheckpoint(runId))).toThrow(LeaseLostError);
    // A later claim (after the answer) starts from an empty journal.
    store.answer({ id: r.id, ok: true });
    expect(store.claim({ owner: "w2", leaseMs: 1000 })?.journal).toEqual([]);
  });

  it("resets the failure count and last error, as a step does (the run moved on)", () => {
    const { lease, runId } = started();
    store.release(lease, error(), Date.now() - 1);
    const claimed = store.claim({ owner: "w2", leaseMs: 60_000 })!;
    expect(claimed.failures).toBe(1);
    store.halt(checkpoint([request()], { runId }), claimed.lease);
    const info = store.getRun(runId)!;
    expect(info.failures).toBe(0);
    expect(info.lastError).toBeUndefined();
  });

  it("an answer that arrived while the run was running makes the halt ready", () => {
    const r1 = request();
    const r2 = request();
    const first = checkpoint([r1, r2]);
    store.halt(first);
    store.answer({ id: r1.id, ok: true, data: { env: "prod" } });
    const claimed = store.claim({ owner: "w1", leaseMs: 60_000 })!;
    expect(claimed.answers).toEqual([{ id: r1.id, ok: true, data: { env: "prod" } }]);
    // While w1 works on r1, the human answers r2.
    store.answer({ id: r2.id, ok: false, reason: "declined" });
    store.journal(claimed.lease, journalEntry(`call_${r1.id}`, r1.id));
    // w1 halts again on r2 (still pending in its view): it is already answered.
    const second = checkpoint([r2], { runId: first.runId });
    expect(store.halt(second, claimed.lease)).toEqual({ state: "ready" });
    const info = store.getRun(first.runId)!;
    expect(info.state).toBe("ready");
    expect(info.requests.map((r) => [r.request.id, r.state])).toEqual([[r2.id, "answered"]]);
    expect(store.getRequest(r1.id)?.state).toBe("applied");
    const again = store.claim({ owner: "w2", leaseMs: 1000 })!;
    expect(again.answers).toEqual([{ id: r2.id, ok: false, reason: "declined" }]);
  });

  it("requests of the run no longer pending become applied; new ones are added", () => {
    const r1 = request();
    const r2 = request();
    const ckp = checkpoint([r1]);
    store.halt(ckp);
    store.answer({ id: r1.id, ok: true });
    const claimed = store.claim({ owner: "w1", leaseMs: 60_000 })!;
    // The step that applied r1 was not journaled with `answered`: the halt still resolves it.
    expect(store.halt(checkpoint([r2], { runId: ckp.runId }), claimed.lease)).toEqual({
      state: "waiting",
    });
    expect(store.getRequest(r1.id)).toMatchObject({ state: "applied", answer: { id: r1.id } });
    expect(store.getRequest(r2.id)?.state).toBe("waiting");
    expect(store.getRun(ckp.runId)?.requests.map((r) => r.request.id)).toEqual([r2.id]);
  });
});

describe("release", () => {
  it("gives the run back ready with its journal; an error is counted and delays the claim", () => {
    const { lease, runId } = started();
    store.journal(lease, journalEntry("c1"));
    store.release(lease, error("boom"), Date.now() + 60_000);
    const info = store.getRun(runId)!;
    expect(info).toMatchObject({ state: "ready", failures: 1, lastError: { code: "boom" } });
    expect(info.owner).toBeUndefined();
    // Not before its retry time for the generic claim; by id, at once.
    expect(store.claim({ owner: "w2", leaseMs: 1000 })).toBeUndefined();
    const claimed = store.claim({ owner: "w2", leaseMs: 1000, runId })!;
    expect(claimed).toMatchObject({ reason: "ready", failures: 1, lastError: { code: "boom" } });
    expect(claimed.journal.map((e) => e.callId)).toEqual(["c1"]);
    store.release(claimed.lease, error("again"), Date.now() - 1);
    const third = store.claim({ owner: "w3", leaseMs: 1000 })!;
    expect(third).toMatchObject({ failures: 2, lastError: { code: "again" } });
  });

  it("records only code, message and at of an error", () => {
    const { lease, runId } = started();
    const noisy = { ...error("x"), stack: "at secret.ts:1", token: "sk-123" };
    store.release(lease, noisy);
    expect(store.getRun(runId)?.lastError).toEqual({
      code: "x",
      message: "the model failed",
      at: noisy.at,
    });
  });

  it("release without an error keeps the count and is claimable at once", () => {
    const { lease } = started();
    store.release(lease);
    expect(store.claim({ owner: "w2", leaseMs: 1000 })).toMatchObject({
      reason: "ready",
      failures: 0,
    });
  });
});

describe("finish", () => {
  it("done keeps the result and drops the checkpoint; open requests become applied", () => {
    const r1 = request();
    const r2 = request();
    const ckp = checkpoint([r1, r2]);
    store.halt(ckp);
    store.answer({ id: r1.id, ok: true });
    const claimed = store.claim({ owner: "w1", leaseMs: 60_000 })!;
    store.journal(claimed.lease, journalEntry("c1"));
    const result = doneResult(ckp.runId);
    store.finish(claimed.lease, { state: "done", result });
    const info = store.getRun(ckp.runId)!;
    // `sessionId: undefined` (dropped by JSON) comes back as a key, as the type has it.
    expect(info).toMatchObject({ state: "done", result, failures: 0 });
    expect(Object.hasOwn(info.result!, "sessionId")).toBe(true);
    expect(info.checkpoint).toBeUndefined();
    expect(info.owner).toBeUndefined();
    expect(info.requests.map((r) => r.state)).toEqual(["applied", "applied"]);
    expect(info.requests[0]?.answer).toEqual({ id: r1.id, ok: true });
    expect(store.claim({ owner: "w2", leaseMs: 1000, runId: ckp.runId })).toBeUndefined();
    expect(() => store.step(claimed.lease, stepCheckpoint(ckp.runId))).toThrow(LeaseLostError);
  });

  it("failed keeps the checkpoint and the error; a claim by id tries it again", () => {
    const { lease, runId } = started();
    const ckp = stepCheckpoint(runId, 4);
    store.step(lease, ckp);
    store.finish(lease, { state: "failed", error: error("gave_up") });
    const info = store.getRun(runId)!;
    expect(info).toMatchObject({
      state: "failed",
      checkpoint: ckp,
      lastError: { code: "gave_up" },
    });
    expect(store.claim({ owner: "w2", leaseMs: 1000 })).toBeUndefined();
    const again = store.claim({ owner: "w2", leaseMs: 1000, runId })!;
    expect(again).toMatchObject({ reason: "failed", checkpoint: ckp });
    expect(again.lease.token).toBe(2);
    expect(store.getRun(runId)?.state).toBe("running");
  });
});
