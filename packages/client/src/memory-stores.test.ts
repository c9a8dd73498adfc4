import { CheckpointError } from "@toolnexus/core";
import {
  sampleCheckpoint,
  sampleError,
  sampleJournalEntry,
  sampleResult,
} from "@toolnexus/core/testing";
import { describe, expect, it } from "vitest";
import { type MemoryRunStore, memoryConversationStore, memoryRunStore } from "./memory-stores.js";

/** Runs `runId` to its end: halted, answered, claimed, then done or failed. */
function finish(store: MemoryRunStore, runId: string, state: "done" | "failed" = "done"): void {
  store.halt(sampleCheckpoint({ runId, pending: [`${runId}_r`] }));
  store.answer({ id: `${runId}_r`, ok: true });
  const { lease } = store.claim({ owner: "w1", leaseMs: 60_000, runId })!;
  store.finish(
    lease,
    state === "done"
      ? { state: "done", result: sampleResult(runId) }
      : { state: "failed", error: sampleError() },
  );
}

describe("memoryRunStore", () => {
  it("is synchronous: every method returns its value, not a promise", () => {
    const store = memoryRunStore();
    expect(store.halt(sampleCheckpoint({ pending: ["r1"] }))).toEqual({ state: "waiting" });
    expect(store.answer({ id: "r1", ok: true })).toMatchObject({ state: "ready" });
    const claimed = store.claim({ owner: "w1", leaseMs: 60_000 });
    expect(claimed?.answers).toEqual([{ id: "r1", ok: true }]);
    expect(store.renew(claimed!.lease, 60_000).token).toBe(claimed!.lease.token);
    expect(store.getRun("run_1")?.state).toBe("running");
    expect(store.list()).toHaveLength(1);
    expect(store.prune({ olderThan: 0 })).toBe(0);
  });

  it("keeps at most keepFinished done and failed runs, dropping the first finished", () => {
    const store = memoryRunStore({ keepFinished: 2 });
    finish(store, "a");
    finish(store, "b", "failed");
    store.halt(sampleCheckpoint({ runId: "waiting", pending: ["w"] }));
    expect(store.getRun("a")?.state).toBe("done");
    finish(store, "c");
    // "a" finished first: it goes, with its requests.
    expect(store.getRun("a")).toBeUndefined();
    expect(store.getRequest("a_r")).toBeUndefined();
    expect(() => store.answer({ id: "a_r", ok: true })).toThrow("no request with id");
    expect(store.getRun("b")?.state).toBe("failed");
    expect(store.getRun("c")?.state).toBe("done");
    // Runs still going never count, however many there are.
    expect(store.getRun("waiting")?.state).toBe("waiting");
    expect(store.list().map((s) => s.request.id)).toEqual(["c_r", "w", "b_r"]);
  });

  it("counts a failed run tried again by id as finished only when it ends again", () => {
    const store = memoryRunStore({ keepFinished: 2 });
    finish(store, "a", "failed");
    finish(store, "b");
    const retried = store.claim({ owner: "w2", leaseMs: 60_000, runId: "a" })!;
    expect(retried.reason).toBe("failed");
    // "a" is running again: "c" finishing leaves two finished runs, nothing to drop.
    finish(store, "c");
    expect(store.getRun("a")?.state).toBe("running");
    // "a" now finishes last, so "b" is the oldest finished run.
    store.finish(retried.lease, { state: "done", result: sampleResult("a") });
    expect(store.getRun("b")).toBeUndefined();
    expect(store.getRun("a")?.state).toBe("done");
    expect(store.getRun("c")?.state).toBe("done");
  });

  it("keepFinished: 0 keeps no finished run; Infinity keeps them all", () => {
    const none = memoryRunStore({ keepFinished: 0 });
    finish(none, "a");
    expect(none.getRun("a")).toBeUndefined();
    const all = memoryRunStore({ keepFinished: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 1005; i++) finish(all, `run_${i}`);
    expect(all.getRun("run_0")?.state).toBe("done");
  });

  it("cancels a run's sub-agents after others were dropped, and skips the search with none", () => {
    const store = memoryRunStore({ keepFinished: 0 });
    // Sub-agent runs come and go (finished, then dropped by retention)...
    finish(store, "old/sub");
    finish(store, "old/sub/deeper");
    expect(store.getRun("old/sub")).toBeUndefined();
    // ...and a cancel still finds the ones kept now, at any depth.
    store.halt(sampleCheckpoint({ runId: "parent", pending: ["p"] }));
    store.halt(sampleCheckpoint({ runId: "parent/a", pending: ["pa"] }));
    store.halt(sampleCheckpoint({ runId: "parent/a/b", pending: ["pab"] }));
    store.halt(sampleCheckpoint({ runId: "parentless", pending: ["x"] }));
    expect(store.cancel("parent").outcome).toBe("cancelled");
    // Cancelled runs are finished runs: with keepFinished 0 they are dropped at once.
    expect(store.getRun("parent/a")).toBeUndefined();
    expect(store.getRun("parent/a/b")).toBeUndefined();
    expect(store.getRun("parentless")?.state).toBe("waiting");
    // A run with no sub-agents anywhere in the store cancels alone.
    expect(store.cancel("parentless").outcome).toBe("cancelled");
    const kept = memoryRunStore();
    kept.halt(sampleCheckpoint({ runId: "solo", pending: ["s"] }));
    kept.halt(sampleCheckpoint({ runId: "other", pending: ["o"] }));
    kept.cancel("solo");
    expect(kept.getRun("solo")?.state).toBe("cancelled");
    expect(kept.getRun("other")?.state).toBe("waiting");
  });

  it("keeps 1000 finished runs by default", () => {
    const store = memoryRunStore();
    for (let i = 0; i < 1001; i++) finish(store, `run_${i}`);
    expect(store.getRun("run_0")).toBeUndefined();
    expect(store.getRun("run_1")?.state).toBe("done");
    expect(store.getRun("run_1000")?.state).toBe("done");
    // prune removes the kept ones sooner.
    expect(store.prune({ olderThan: 0 })).toBe(1000);
  });

  it("refuses a keepFinished that is not a count", () => {
    for (const keepFinished of [-1, 1.5, Number.NaN, "10"]) {
      expect(() => memoryRunStore({ keepFinished: keepFinished as number })).toThrow(TypeError);
    }
  });

  it("refuses a halt with nothing pending, and a checkpoint of another run", () => {
    const store = memoryRunStore();
    expect(() => store.halt(sampleCheckpoint())).toThrow(CheckpointError);
    expect(store.getRun("run_1")).toBeUndefined();
    const lease = store.start(sampleCheckpoint({ runId: "run_1" }), "w1", 60_000);
    expect(() => store.step(lease, sampleCheckpoint({ runId: "run_2" }))).toThrow(
      'it belongs to run "run_2", but the lease is on run "run_1"',
    );
    expect(() => store.halt(sampleCheckpoint({ runId: "run_2", pending: ["r"] }), lease)).toThrow(
      CheckpointError,
    );
    expect(store.getRun("run_2")).toBeUndefined();
  });

  it("refuses malformed arguments with a TypeError", () => {
    const store = memoryRunStore();
    const lease = store.start(sampleCheckpoint(), "w1", 60_000);
    expect(() => store.claim({ owner: "", leaseMs: 1 })).toThrow(TypeError);
    expect(() => store.claim({ owner: "w", leaseMs: -1 })).toThrow(TypeError);
    expect(() => store.start(sampleCheckpoint({ runId: "x" }), "w", Number.NaN)).toThrow(TypeError);
    expect(() => store.journal(null as never, sampleJournalEntry("c1"))).toThrow(TypeError);
    expect(() => store.release(lease, sampleError(), Number.NaN)).toThrow(TypeError);
    expect(() => store.release(lease, { code: 1 } as never)).toThrow(TypeError);
    expect(() => store.finish(lease, { state: "paused" } as never)).toThrow(TypeError);
    // Nothing of that reached the run.
    expect(store.getRun("run_1")).toMatchObject({ state: "running", failures: 0 });
  });

  it("records only code, message and time of an error", () => {
    const store = memoryRunStore();
    const lease = store.start(sampleCheckpoint(), "w1", 60_000);
    const error = { ...sampleError(), stack: "secret stack", apiKey: "sk-1" };
    store.release(lease, error);
    expect(store.getRun("run_1")?.lastError).toEqual({
      code: error.code,
      message: error.message,
      at: error.at,
    });
  });

  it("keeps telling other subscribers when one throws", async () => {
    const store = memoryRunStore();
    let told = 0;
    store.subscribe(() => {
      throw new Error("broken subscriber");
    });
    store.subscribe(() => {
      told++;
    });
    store.halt(sampleCheckpoint({ pending: ["r1"] }));
    store.answer({ id: "r1", ok: true });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(told).toBe(1);
  });
});

describe("memoryConversationStore", () => {
  it("stores transcripts by session as copies", () => {
    const store = memoryConversationStore();
    const messages = [{ role: "user" as const, content: "hi" }];
    store.save("s", messages);
    messages.push({ role: "user", content: "changed" });
    expect(store.load("s")).toEqual([{ role: "user", content: "hi" }]);
    expect(store.load("other")).toBeUndefined();
  });
});

describe("memoryConversationStore ids", () => {
  it("refuses a session id no store can keep exactly (NUL, unpaired surrogate), like every store", () => {
    const conversations = memoryConversationStore();
    for (const bad of ["s\u0000", "s\uD800", "\uDC00s"]) {
      expect(() => conversations.save(bad, [])).toThrow(
        expect.objectContaining({ name: "InvalidIdError", code: "invalid_id", field: "sessionId" }),
      );
      expect(() => conversations.load(bad)).toThrow(
        expect.objectContaining({ code: "invalid_id" }),
      );
    }
    conversations.save("s\uFFFD", [{ role: "user", content: "hi" }]);
    expect(conversations.load("s\uFFFD")).toEqual([{ role: "user", content: "hi" }]);
  });
});
