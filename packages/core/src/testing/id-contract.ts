import { expect, it } from "vitest";
import { MAX_STORE_ID_CHARS } from "../store-kit.js";
import type { RunStore } from "../stores.js";
import { failure, LONG_MS, sampleCheckpoint, sampleJournalEntry, sampleResult } from "./samples.js";

// Ids every store must keep exactly, or refuse the same way: part of runStoreContract.

/** Ids no store can keep exactly: PostgreSQL text has no NUL, UTF-8 has no lone surrogate. */
const UNSTORABLE: readonly [string, string][] = [
  ["a NUL", "run\u0000x"],
  ["a lone high surrogate", "run\uD800x"],
  ["a lone low surrogate", "run\uDC00"],
  ["a surrogate pair in the wrong order", "\uDC00\uD800"],
];

/** Ids that differ from each other only in ways a careless store would lose; all must round-trip. */
const EXACT: readonly string[] = [
  "run\uFFFDx",
  "e\u0301",
  "\u00e9",
  "tab\there\nline\r\u0001\u001f\u007f",
  "emoji \u{1F600} pair",
  " padded ",
  "Case",
  "case",
];

/** The id cases of the contract, over the store the suite opened for the current test. */
export function idContract(current: () => RunStore): void {
  it("refuses ids it cannot keep exactly, with an InvalidIdError naming the field, and stores nothing", async () => {
    const store = current();
    const conversations = store as Partial<Record<"save" | "load", (...a: unknown[]) => unknown>>;
    for (const [what, bad] of UNSTORABLE) {
      const refused = async (field: string, action: () => unknown) => {
        const error = await failure(action);
        expect(error, `${field} with ${what}`).toMatchObject({
          name: "InvalidIdError",
          code: "invalid_id",
          field,
        });
        // The message says what to fix without echoing the raw id.
        expect(String(error.message)).not.toContain(bad);
      };
      const lease = { runId: bad, owner: "w1", token: 1, expiresAt: Date.now() + LONG_MS };
      await refused("checkpoint.runId", () =>
        store.halt(sampleCheckpoint({ runId: bad, pending: ["r1"] })),
      );
      await refused("checkpoint.pending[0].request.id", () =>
        store.halt(sampleCheckpoint({ runId: "ok_1", pending: [bad] })),
      );
      await refused("checkpoint.sessionId", () =>
        store.halt(sampleCheckpoint({ runId: "ok_2", sessionId: bad, pending: ["r2"] })),
      );
      await refused("checkpoint.agent", () =>
        store.halt(sampleCheckpoint({ runId: "ok_3", agent: bad, pending: ["r3"] })),
      );
      await refused("checkpoint.runId", () =>
        store.start(sampleCheckpoint({ runId: bad }), "w1", LONG_MS),
      );
      await refused("owner", () => store.start(sampleCheckpoint({ runId: "ok_4" }), bad, LONG_MS));
      await refused("runId", () => store.claim({ owner: "w1", leaseMs: LONG_MS, runId: bad }));
      await refused("owner", () => store.claim({ owner: bad, leaseMs: LONG_MS }));
      await refused("agent", () => store.claim({ owner: "w1", leaseMs: LONG_MS, agent: bad }));
      await refused("answer.id", () => store.answer({ id: bad, ok: true }));
      await refused("runId", () => store.getRun(bad));
      await refused("requestId", () => store.getRequest(bad));
      await refused("sessionId", () => store.list({ sessionId: bad }));
      await refused("runId", () => store.list({ runId: bad }));
      await refused("lease.runId", () => store.step(lease, sampleCheckpoint({ runId: bad })));
      await refused("lease.runId", () => store.journal(lease, sampleJournalEntry("c1")));
      await refused("lease.runId", () => store.renew(lease, LONG_MS));
      await refused("lease.runId", () => store.release(lease));
      await refused("lease.runId", () =>
        store.finish(lease, { state: "done", result: sampleResult(bad) }),
      );
      await refused("lease.owner", () => store.renew({ ...lease, runId: "ok_5", owner: bad }, 1));
      await refused("by", () => store.answer({ id: "r_unknown", ok: true }, { by: bad }));
      await refused("lease.runId", () => store.appendEvents!(lease, [{ type: "turn" }]));
      await refused("runId", () => store.readEvents!(bad, 0));
      await refused("runId", () => store.cancel!(bad));
      await refused("by", () => store.cancel!("ok_6", { by: bad }));
      if (typeof conversations.save === "function" && typeof conversations.load === "function") {
        await refused("sessionId", () => conversations.save!(bad, []));
        await refused("sessionId", () => conversations.load!(bad));
      }
    }
    // Nothing was stored by any refused call.
    expect(await store.list()).toEqual([]);
    for (const id of ["ok_1", "ok_2", "ok_3", "ok_4", "run\uFFFDx", "run"]) {
      expect(await store.getRun(id)).toBeUndefined();
    }
  });

  it(`refuses ids longer than MAX_STORE_ID_CHARS (${MAX_STORE_ID_CHARS}) with an InvalidIdError naming the cap, and stores nothing`, async () => {
    const store = current();
    const long = "r".repeat(MAX_STORE_ID_CHARS + 1);
    const refused = async (field: string, action: () => unknown) => {
      const error = await failure(action);
      expect(error, field).toMatchObject({ name: "InvalidIdError", code: "invalid_id", field });
      expect(String(error.message)).toContain(String(MAX_STORE_ID_CHARS));
      expect(String(error.message).length).toBeLessThan(1000);
    };
    await refused("checkpoint.runId", () =>
      store.halt(sampleCheckpoint({ runId: long, pending: ["q_long_1"] })),
    );
    await refused("checkpoint.pending[0].request.id", () =>
      store.halt(sampleCheckpoint({ runId: "run_long_2", pending: [long] })),
    );
    await refused("checkpoint.pending[1].request.id", () =>
      store.halt(sampleCheckpoint({ runId: "run_long_3", pending: ["q_long_3", long] })),
    );
    await refused("checkpoint.sessionId", () =>
      store.halt(sampleCheckpoint({ runId: "run_long_4", sessionId: long, pending: ["q4"] })),
    );
    await refused("checkpoint.agent", () =>
      store.halt(sampleCheckpoint({ runId: "run_long_5", agent: long, pending: ["q5"] })),
    );
    await refused("checkpoint.runId", () =>
      store.start(sampleCheckpoint({ runId: long }), "w1", LONG_MS),
    );
    await refused("answer.id", () => store.answer({ id: long, ok: true }));
    await refused("requestId", () => store.getRequest(long));
    await refused("runId", () => store.getRun(long));
    // Nothing was stored by any refused call: no run, no request.
    expect(await store.list()).toEqual([]);
    for (const id of ["run_long_2", "run_long_3", "run_long_4", "run_long_5"]) {
      expect(await store.getRun(id)).toBeUndefined();
    }
    for (const id of ["q_long_1", "q_long_3", "q4", "q5"]) {
      expect(await store.getRequest(id)).toBeUndefined();
    }
    // An id of exactly the cap is kept.
    const atCap = "a".repeat(MAX_STORE_ID_CHARS);
    const requestAtCap = "b".repeat(MAX_STORE_ID_CHARS);
    expect(await store.halt(sampleCheckpoint({ runId: atCap, pending: [requestAtCap] }))).toEqual({
      state: "waiting",
    });
    expect((await store.getRequest(requestAtCap))?.runId).toBe(atCap);
  });

  it("keeps every other id exactly: ids differing in one character never collide", async () => {
    const store = current();
    for (const [i, id] of EXACT.entries()) {
      const checkpoint = sampleCheckpoint({
        runId: id,
        sessionId: `s ${id}`,
        agent: `a ${id}`,
        pending: [`q ${id}`],
      });
      expect(await store.halt(checkpoint), `halt #${i}`).toEqual({ state: "waiting" });
    }
    for (const id of EXACT) {
      const info = await store.getRun(id);
      expect(info?.runId).toBe(id);
      expect(info?.sessionId).toBe(`s ${id}`);
      expect(info?.agent).toBe(`a ${id}`);
      expect(info?.requests.map((r) => r.request.id)).toEqual([`q ${id}`]);
      expect((await store.getRequest(`q ${id}`))?.runId).toBe(id);
      const listed = await store.list({ sessionId: `s ${id}` });
      expect(listed.map((s) => [s.runId, s.sessionId, s.agent, s.request.id])).toEqual([
        [id, `s ${id}`, `a ${id}`, `q ${id}`],
      ]);
      const receipt = await store.answer({ id: `q ${id}`, ok: true, data: { id } });
      expect(receipt).toMatchObject({ runId: id, requestId: `q ${id}`, duplicate: false });
    }
    // The generic claim hands each run back under its exact id, with its own answer.
    const seen = new Set<string>();
    for (;;) {
      const claimed = await store.claim({ owner: "w1", leaseMs: LONG_MS });
      if (claimed === undefined) break;
      const id = claimed.lease.runId;
      expect(EXACT).toContain(id);
      expect(claimed.checkpoint.runId).toBe(id);
      expect(claimed.answers).toEqual([{ id: `q ${id}`, ok: true, data: { id } }]);
      seen.add(id);
      await store.finish(claimed.lease, { state: "done", result: sampleResult(id) });
    }
    expect([...seen].sort()).toEqual([...EXACT].sort());
  });
}
