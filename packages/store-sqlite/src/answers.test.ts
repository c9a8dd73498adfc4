import { AnswerConflictError, SuspensionNotFoundError, WireFormatError } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import type { SqliteStore } from "./store.js";
import {
  checkpoint,
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

describe("answer", () => {
  it("records the answer and makes a waiting run ready", () => {
    const r1 = request();
    const r2 = request();
    const ckp = checkpoint([r1, r2]);
    store.halt(ckp);
    expect(store.answer({ id: r1.id, ok: true, data: { env: "eu" } })).toEqual({
      runId: ckp.runId,
      requestId: r1.id,
      duplicate: false,
      state: "ready",
    });
    expect(store.getRequest(r1.id)).toMatchObject({
      state: "answered",
      answer: { id: r1.id, ok: true, data: { env: "eu" } },
    });
    // The second answer finds the run ready already.
    expect(store.answer({ id: r2.id, ok: true }).state).toBe("ready");
  });

  it("the same answer again is a duplicate, whatever its key order; nothing changes", () => {
    const r = request();
    store.halt(checkpoint([r]));
    store.answer({ id: r.id, ok: true, data: { a: 1, nested: { x: [1, { p: 1, q: 2 }], y: 2 } } });
    const again = store.answer(
      JSON.parse(
        `{"data":{"nested":{"y":2,"x":[1,{"q":2,"p":1}]},"a":1},"ok":true,"id":"${r.id}"}`,
      ),
    );
    expect(again.duplicate).toBe(true);
    expect(again.state).toBe("ready");
  });

  it("a different answer to an answered request is AnswerConflictError(answered)", () => {
    const r = request();
    store.halt(checkpoint([r]));
    store.answer({ id: r.id, ok: true });
    const conflict = thrown(() => store.answer({ id: r.id, ok: false, reason: "declined" }));
    expect(conflict).toBeInstanceOf(AnswerConflictError);
    expect(conflict).toMatchObject({ reason: "answered", requestId: r.id });
    expect(store.getRequest(r.id)?.answer).toEqual({ id: r.id, ok: true });
  });

  it("after the answer was applied: the same answer is still a duplicate, another a conflict", () => {
    const r = request();
    const ckp = checkpoint([r]);
    store.halt(ckp);
    store.answer({ id: r.id, ok: true });
    const claimed = store.claim({ owner: "w", leaseMs: 60_000 })!;
    store.journal(claimed.lease, journalEntry(`call_${r.id}`, r.id));
    expect(store.getRequest(r.id)?.state).toBe("applied");
    expect(store.answer({ id: r.id, ok: true })).toMatchObject({
      duplicate: true,
      state: "running",
    });
    expect(() => store.answer({ id: r.id, ok: false })).toThrow(
      expect.objectContaining({ reason: "answered" }),
    );
  });

  it("a request applied without an answer: expired if its deadline passed, else answered", () => {
    const open = request({ expiresAt: iso(3_600_000) });
    const lapsed = request();
    const ckp = checkpoint([open, lapsed], { deadlines: [undefined, iso(-1000)] });
    store.halt(ckp);
    const claimed = store.claim({ owner: "w", leaseMs: 60_000 })!;
    expect(claimed.reason).toBe("expired");
    store.finish(claimed.lease, {
      state: "failed",
      error: { code: "x", message: "x", at: iso(0) },
    });
    expect(() => store.answer({ id: open.id, ok: true })).toThrow(
      expect.objectContaining({ reason: "answered" }),
    );
    const expired = thrown(() => store.answer({ id: lapsed.id, ok: true }));
    expect(expired).toMatchObject({ reason: "expired", code: "answer_conflict" });
  });

  it("a waiting request past its deadline is AnswerConflictError(expired) with the deadline", () => {
    const deadline = new Date(Date.now() - 60_000).toISOString();
    const r = request({ expiresAt: deadline });
    const ckp = checkpoint([r]);
    store.halt(ckp);
    const expired = thrown(() => store.answer({ id: r.id, ok: true }));
    expect(expired).toBeInstanceOf(AnswerConflictError);
    expect(expired).toMatchObject({ reason: "expired" });
    expect((expired as Error).message).toContain(deadline);
    expect(store.getRun(ckp.runId)?.state).toBe("expired");
    expect(store.getRequest(r.id)?.state).toBe("expired");
  });

  it("the call's deadline wins over the request's expiresAt", () => {
    const r = request({ expiresAt: iso(-60_000) });
    store.halt(checkpoint([r], { deadlines: [iso(3_600_000)] }));
    expect(store.answer({ id: r.id, ok: true }).duplicate).toBe(false);
  });

  it("an unknown id is SuspensionNotFoundError; bad input is WireFormatError; nothing changes", () => {
    const r = request();
    const ckp = checkpoint([r]);
    store.halt(ckp);
    const missing = thrown(() => store.answer({ id: "pnd_nope", ok: true }));
    expect(missing).toBeInstanceOf(SuspensionNotFoundError);
    expect((missing as SuspensionNotFoundError).requestId).toBe("pnd_nope");
    expect(() => store.answer({ id: r.id, ok: "yes" } as never)).toThrow(WireFormatError);
    expect(() => store.answer({ id: r.id, ok: false, reason: "bored" } as never)).toThrow(
      WireFormatError,
    );
    expect(store.getRun(ckp.runId)?.state).toBe("waiting");
  });

  it("unknown keys are dropped and the wire form is what is recorded", () => {
    const r = request();
    store.halt(checkpoint([r]));
    store.answer({ id: r.id, ok: true, data: null, extra: 1 } as never);
    expect(store.getRequest(r.id)?.answer).toEqual({ id: r.id, ok: true });
    expect(store.answer({ id: r.id, ok: true }).duplicate).toBe(true);
  });

  it("answering a running run's request keeps it running; the next halt is ready", () => {
    const r1 = request();
    const r2 = request();
    const ckp = checkpoint([r1, r2]);
    store.halt(ckp);
    store.answer({ id: r1.id, ok: true });
    const claimed = store.claim({ owner: "w", leaseMs: 60_000 })!;
    expect(store.answer({ id: r2.id, ok: true }).state).toBe("running");
    expect(store.halt(checkpoint([r2], { runId: ckp.runId }), claimed.lease)).toEqual({
      state: "ready",
    });
  });

  it("the newest run that raised a request id answers for it", () => {
    const shared = request();
    const old = checkpoint([shared], { runId: "run_old" });
    store.halt(old);
    const lease = store.start(stepCheckpoint("run_new"), "w", 60_000);
    store.halt(checkpoint([shared], { runId: "run_new" }), lease);
    expect(store.answer({ id: shared.id, ok: true }).runId).toBe("run_new");
    expect(store.getRequest(shared.id)?.runId).toBe("run_new");
    expect(store.getRun("run_old")?.state).toBe("waiting");
  });
});
