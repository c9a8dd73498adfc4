import type { SuspensionFilter } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import type { SqliteStore } from "./store.js";
import {
  checkpoint,
  doneResult,
  iso,
  journalEntry,
  openRaw,
  request,
  stepCheckpoint,
  storePerTest,
} from "./test-fixtures.js";

let store: SqliteStore;
let path: string;
storePerTest((opened, file) => {
  store = opened;
  path = file;
});

const fail = { code: "x", message: "x", at: new Date().toISOString() };

describe("getRun and getRequest", () => {
  it("are undefined for unknown ids", () => {
    expect(store.getRun("run_nope")).toBeUndefined();
    expect(store.getRequest("pnd_nope")).toBeUndefined();
  });

  it("report each request with its state, answer and effective deadline", () => {
    const deadline = iso(3_600_000);
    const answered = request();
    const open = request({ expiresAt: deadline });
    const lapsed = request();
    const ckp = checkpoint([answered, open, lapsed], {
      deadlines: [undefined, undefined, iso(-1000)],
    });
    store.halt(ckp);
    store.answer({ id: answered.id, ok: true, data: { v: 1 } }, { by: "alice" });
    const info = store.getRun(ckp.runId)!;
    expect(info.state).toBe("ready");
    expect(info.requests).toEqual([
      {
        request: answered,
        runId: ckp.runId,
        state: "answered",
        answer: { id: answered.id, ok: true, data: { v: 1 } },
        answeredBy: "alice",
        answeredAt: expect.any(String),
      },
      { request: open, runId: ckp.runId, state: "waiting", expiresAt: deadline },
      {
        request: lapsed,
        runId: ckp.runId,
        state: "expired",
        expiresAt: ckp.pending[2]!.deadline,
      },
    ]);
    expect(store.getRequest(open.id)).toEqual(info.requests[1]);
    expect(Date.parse(info.updatedAt)).toBeGreaterThan(0);
  });

  it("a waiting run reports expired once a waiting request's deadline passed", () => {
    const ckp = checkpoint([request({ expiresAt: iso(-1) })]);
    store.halt(ckp);
    expect(store.getRun(ckp.runId)?.state).toBe("expired");
  });

  it("a running run reports its owner and lease expiry; the journal is not part of RunInfo", () => {
    const lease = store.start(stepCheckpoint("run_r"), "worker-7", 60_000);
    store.journal(lease, journalEntry("c1"));
    const info = store.getRun("run_r")!;
    expect(info).toMatchObject({ state: "running", owner: "worker-7", failures: 0 });
    expect(Date.parse(info.leaseExpiresAt!)).toBe(lease.expiresAt);
    expect(info).not.toHaveProperty("journal");
  });

  it("hands out copies", () => {
    const r = request();
    const ckp = checkpoint([r]);
    store.halt(ckp);
    const a = store.getRun(ckp.runId)!;
    a.checkpoint!.messages.length = 0;
    a.requests[0]!.request.prompt = "changed";
    expect(store.getRun(ckp.runId)?.checkpoint).toEqual(ckp);
    expect(store.getRequest(r.id)?.request).toEqual(r);
  });
});

describe("list", () => {
  it("one summary per request, newest halt first, in pending order within a halt", () => {
    const r1 = request({ data: { schema: { type: "string" } } });
    const r2 = request({ kind: "approval", prompt: "Deploy?", expiresAt: iso(3_600_000) });
    const r3 = request({ kind: "authorization", prompt: "Log in", url: "https://x.test/a" });
    const older = checkpoint([r1, r2], { sessionId: "s1", agent: "ops" });
    const newer = checkpoint([r3]);
    store.halt(older);
    store.halt(newer);
    const listed = store.list();
    expect(listed.map((s) => s.request)).toEqual([r3, r1, r2]);
    expect(listed[1]).toEqual({
      request: r1,
      runId: older.runId,
      sessionId: "s1",
      agent: "ops",
      createdAt: listed[1]!.createdAt,
      state: "waiting",
    });
    expect(listed[2]).toMatchObject({ expiresAt: r2.expiresAt, state: "waiting" });
    // createdAt is the time of the halt that raised the request.
    expect(Math.abs(Date.parse(listed[0]!.createdAt) - Date.now())).toBeLessThan(60_000);
  });

  it("filters by state, session, kind and run; all given filters must match", () => {
    const waiting = request({ kind: "approval" });
    const expired = request({ kind: "input", expiresAt: iso(-1000) });
    const answered = request({ kind: "approval" });
    const applied = request({ kind: "input" });
    store.halt(checkpoint([waiting], { sessionId: "a", runId: "run_w" }));
    store.halt(checkpoint([expired], { sessionId: "a", runId: "run_e" }));
    store.halt(checkpoint([answered], { sessionId: "b", runId: "run_a" }));
    store.halt(checkpoint([applied], { sessionId: "b", runId: "run_p" }));
    store.answer({ id: answered.id, ok: true });
    store.answer({ id: applied.id, ok: true });
    const lease = store.claim({ owner: "w", leaseMs: 60_000, runId: "run_p" })!.lease;
    store.finish(lease, { state: "done", result: doneResult("run_p") });

    const ids = (filter: SuspensionFilter) =>
      store
        .list(filter)
        .map((s) => s.request.id)
        .sort();
    expect(ids({ state: "waiting" })).toEqual([waiting.id]);
    expect(ids({ state: "expired" })).toEqual([expired.id]);
    expect(ids({ state: "answered" })).toEqual([answered.id]);
    expect(ids({ state: "applied" })).toEqual([applied.id]);
    expect(ids({ state: "bogus" as never })).toEqual([]);
    expect(ids({ sessionId: "a" })).toEqual([waiting.id, expired.id].sort());
    expect(ids({ kind: "approval" })).toEqual([waiting.id, answered.id].sort());
    expect(ids({ runId: "run_e" })).toEqual([expired.id]);
    expect(ids({ kind: "approval", state: "waiting", sessionId: "a" })).toEqual([waiting.id]);
    expect(ids({ kind: "approval", sessionId: "b", state: "waiting" })).toEqual([]);
    expect(ids({ sessionId: "nobody" })).toEqual([]);
  });

  it("limit keeps the newest", () => {
    const rs = [request(), request(), request()];
    for (const r of rs) store.halt(checkpoint([r]));
    expect(store.list({ limit: 2 }).map((s) => s.request.id)).toEqual([rs[2]!.id, rs[1]!.id]);
    expect(store.list({ limit: 0 })).toEqual([]);
  });
});

describe("prune", () => {
  const counts = () => {
    const db = openRaw(path);
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
    const result = [count("runs"), count("requests"), count("journal")];
    db.close();
    return result;
  };

  it("deletes done and failed runs finished at or before the cutoff, with requests and journal", () => {
    const done = request();
    store.halt(checkpoint([done, request()], { runId: "run_done" }));
    store.answer({ id: done.id, ok: true });
    const a = store.claim({ owner: "w", leaseMs: 60_000, runId: "run_done" })!.lease;
    store.finish(a, { state: "done", result: doneResult("run_done") });
    const b = store.start(stepCheckpoint("run_failed"), "w", 60_000);
    store.finish(b, { state: "failed", error: fail });
    const c = store.start(stepCheckpoint("run_released"), "w", 60_000);
    store.journal(c, journalEntry("c1"));
    store.release(c, fail);
    store.halt(checkpoint([request()], { runId: "run_waiting" }));
    store.start(stepCheckpoint("run_running"), "w", 60_000);
    expect(counts()).toEqual([5, 3, 1]);

    expect(store.prune({ olderThan: 3_600_000 })).toBe(0);
    expect(store.prune({ olderThan: new Date(Date.now() - 60_000) })).toBe(0);
    expect(store.prune({ olderThan: new Date(Date.now() + 60_000) })).toBe(2);
    expect(counts()).toEqual([3, 1, 1]);
    expect(store.getRun("run_done")).toBeUndefined();
    expect(store.getRequest(done.id)).toBeUndefined();
    expect(store.getRun("run_released")?.state).toBe("ready");
  });

  it("olderThan 0 removes every finished run; bad values are TypeErrors", () => {
    const a = store.start(stepCheckpoint("run_a"), "w", 60_000);
    store.finish(a, { state: "failed", error: fail });
    for (const olderThan of [new Date("nope"), -1, Number.NaN, Number.POSITIVE_INFINITY, "1"]) {
      expect(() => store.prune({ olderThan } as never)).toThrow(TypeError);
    }
    expect(store.prune({ olderThan: 0 })).toBe(1);
    expect(store.prune({ olderThan: 0 })).toBe(0);
  });

  it("a failed run claimed again is not pruned while it runs", () => {
    const a = store.start(stepCheckpoint("run_a"), "w", 60_000);
    store.finish(a, { state: "failed", error: fail });
    store.claim({ owner: "w", leaseMs: 60_000, runId: "run_a" });
    expect(store.prune({ olderThan: 0 })).toBe(0);
  });
});
