import { describe, expect, it } from "vitest";
import type { SqliteStore } from "./store.js";
import { checkpoint, iso, request, stepCheckpoint, storePerTest } from "./test-fixtures.js";

let store: SqliteStore;
storePerTest((opened) => {
  store = opened;
});

const claim = (runId?: string) =>
  store.claim(
    runId === undefined ? { owner: "w", leaseMs: 60_000 } : { owner: "w", leaseMs: 60_000, runId },
  );

describe("claim", () => {
  it("is undefined when nothing is claimable", () => {
    expect(claim()).toBeUndefined();
    store.halt(checkpoint([request({ expiresAt: iso(3_600_000) })]));
    store.start(stepCheckpoint("run_busy"), "w1", 60_000);
    expect(claim()).toBeUndefined();
    expect(claim("run_busy")).toBeUndefined();
    expect(claim("run_unknown")).toBeUndefined();
  });

  it("takes a ready run with its checkpoint and answers in pending order", () => {
    const [r1, r2, r3] = [request(), request(), request()];
    const ckp = checkpoint([r1!, r2!, r3!]);
    store.halt(ckp);
    // Answered out of order; the claim lists them as the checkpoint does.
    store.answer({ id: r3!.id, ok: true, data: { n: 3 } });
    store.answer({ id: r1!.id, ok: false, reason: "declined" });
    const claimed = claim()!;
    expect(claimed).toMatchObject({
      reason: "ready",
      checkpoint: ckp,
      journal: [],
      failures: 0,
      lease: { runId: ckp.runId, owner: "w", token: 1 },
    });
    expect(claimed.lastError).toBeUndefined();
    expect(claimed.answers).toEqual([
      { id: r1!.id, ok: false, reason: "declined" },
      { id: r3!.id, ok: true, data: { n: 3 } },
    ]);
    expect(store.getRun(ckp.runId)).toMatchObject({ state: "running", owner: "w" });
    expect(claim()).toBeUndefined();
  });

  it("takes a waiting run once a waiting request's deadline passed (reason expired)", () => {
    const late = request({ expiresAt: iso(3_600_000) });
    const past = request();
    const ckp = checkpoint([late, past], { deadlines: [undefined, iso(-1)] });
    store.halt(ckp);
    expect(store.getRun(ckp.runId)?.state).toBe("expired");
    const claimed = claim()!;
    expect(claimed.reason).toBe("expired");
    expect(claimed.answers).toEqual([]);
  });

  it("takes over a running run whose lease ran out, with a higher token", () => {
    store.start(stepCheckpoint("run_t"), "w1", 0);
    const claimed = store.claim({ owner: "w2", leaseMs: 1000 })!;
    expect(claimed).toMatchObject({ reason: "takeover", lease: { owner: "w2", token: 2 } });
    expect(store.claim({ owner: "w3", leaseMs: 1000 })).toBeUndefined();
  });

  it("tokens never repeat for a run, across every kind of claim", () => {
    const r = request();
    const ckp = checkpoint([r]);
    store.halt(ckp);
    store.answer({ id: r.id, ok: true });
    const tokens: number[] = [];
    let lease = claim()!.lease;
    tokens.push(lease.token);
    store.release(lease);
    lease = claim()!.lease;
    tokens.push(lease.token);
    lease = store.renew(lease, 0);
    lease = store.claim({ owner: "w2", leaseMs: 60_000 })!.lease; // takeover
    tokens.push(lease.token);
    store.finish(lease, { state: "failed", error: { code: "x", message: "x", at: iso(0) } });
    lease = claim(ckp.runId)!.lease;
    tokens.push(lease.token);
    expect(tokens).toEqual([1, 2, 3, 4]);
  });

  it("the generic claim takes the run claimable longest first", () => {
    // C: a lapsed lease (claimable since now); B: ready since 5 s ago (its retry time);
    // A: expired 10 s ago. D: ready, but its retry time is still to come.
    store.start(stepCheckpoint("run_c"), "w1", 0);
    const b = store.start(stepCheckpoint("run_b"), "w1", 60_000);
    store.release(b, undefined, Date.now() - 5000);
    store.halt(checkpoint([request()], { runId: "run_a", deadlines: [iso(-10_000)] }));
    const d = store.start(stepCheckpoint("run_d"), "w1", 60_000);
    store.release(d, undefined, Date.now() + 60_000);
    const order = [claim(), claim(), claim(), claim()].map((c) => c && [c.lease.runId, c.reason]);
    expect(order).toEqual([
      ["run_a", "expired"],
      ["run_b", "ready"],
      ["run_c", "takeover"],
      undefined,
    ]);
  });

  it("every ready run is taken exactly once", () => {
    const ids = ["run_1", "run_2", "run_3"];
    const requests = ids.map(() => request());
    ids.forEach((runId, i) => {
      store.halt(checkpoint([requests[i]!], { runId }));
    });
    for (const i of [2, 0, 1]) store.answer({ id: requests[i]!.id, ok: true });
    // Answers recorded in the same millisecond tie on their ready time: any order, each once.
    const taken = [claim(), claim(), claim()].map((c) => c?.lease.runId);
    expect(new Set(taken)).toEqual(new Set(ids));
    expect(claim()).toBeUndefined();
  });

  it("by id: a failed run (reason failed), a ready run before its retry time; not a done one", () => {
    const a = store.start(stepCheckpoint("run_a"), "w1", 60_000);
    store.finish(a, { state: "failed", error: { code: "x", message: "x", at: iso(0) } });
    const b = store.start(stepCheckpoint("run_b"), "w1", 60_000);
    store.release(b, { code: "y", message: "y", at: iso(0) }, Date.now() + 3_600_000);
    expect(claim()).toBeUndefined();
    expect(claim("run_a")?.reason).toBe("failed");
    expect(claim("run_b")?.reason).toBe("ready");
    const c = store.start(stepCheckpoint("run_c"), "w1", 60_000);
    store.finish(c, {
      state: "done",
      result: {
        status: "done",
        text: "",
        messages: [],
        toolCalls: [],
        turns: 1,
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
        model: "m",
        runId: "run_c",
        sessionId: undefined,
      },
    });
    expect(claim("run_c")).toBeUndefined();
  });

  it("a waiting run whose requests have not expired is not claimable, even by id", () => {
    const ckp = checkpoint([request()]);
    store.halt(ckp);
    expect(claim(ckp.runId)).toBeUndefined();
    expect(store.getRun(ckp.runId)?.state).toBe("waiting");
  });

  it("refuses bad options with a TypeError", () => {
    expect(() => store.claim({ owner: "", leaseMs: 1 })).toThrow(TypeError);
    expect(() => store.claim({ owner: "w", leaseMs: Number.NaN })).toThrow(TypeError);
    expect(() => store.claim(undefined as never)).toThrow(TypeError);
  });
});
