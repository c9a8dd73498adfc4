import { sampleCheckpoint, sampleJournalEntry, sampleResult } from "@toolnexus/core/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { answerOp } from "./answers.js";
import { cancelOp } from "./cancel.js";
import { claimOp } from "./claim.js";
import { type Db, markTransient, openDb } from "./connection.js";
import { makeContext } from "./context.js";
import { PostgresStoreError } from "./errors.js";
import { eventOps } from "./events.js";
import { runOps } from "./runs.js";
import { migrate } from "./schema.js";

// A write whose COMMIT went through but whose reply was lost (the connection broke just then)
// is tried again; the second try must see that the first landed, not fail with run_exists or
// LeaseLostError, and not write twice. The loss is staged: the statement runs for real, then
// the call fails the way a broken connection's call fails.

let url: string;
const dbs: Db[] = [];
beforeAll(async () => {
  url = await createDatabase(inject("pg"), "retry");
});
afterAll(async () => {
  await Promise.all(dbs.map((db) => db.end()));
});

/** The store's writes over a connection that loses the reply of the statements `cut` picks. */
async function open(schema: string) {
  const db = openDb({ connectionString: url }, schema, {
    poolSize: 4,
    connectTimeoutMs: 5000,
    retryTimeoutMs: 10_000,
  });
  dbs.push(db);
  await migrate(db);
  let cut: ((text: string) => boolean) | undefined;
  let cutTx = false;
  let cuts = 0;
  const lost = () => {
    cuts++;
    return markTransient(new PostgresStoreError("store_connect", db.where, "reply lost"), false);
  };
  const lossy: Db = {
    ...db,
    // A transaction that committed, but whose COMMIT's reply never came.
    tx: async (fn) => {
      const result = await db.tx(fn);
      if (cutTx) {
        cutTx = false;
        throw lost();
      }
      return result;
    },
    run: async (statement) => {
      const result = await db.run(statement as never);
      if (cut?.(statement.text)) {
        cut = undefined;
        throw lost();
      }
      return result as never;
    },
  };
  const ctx = makeContext(lossy, async () => {});
  const runs = runOps(ctx);
  return {
    runs,
    events: eventOps(ctx, runs.lost),
    cancel: cancelOp(ctx),
    answer: answerOp(ctx),
    claim: claimOp(ctx),
    db,
    cutNext(match: string) {
      cut = (text) => text.includes(match);
    },
    cutNextCommit() {
      cutTx = true;
    },
    cuts: () => cuts,
  };
}

describe("writes tried again after a commit whose reply was lost", () => {
  it("start returns its lease instead of run_exists", async () => {
    const store = await open("retry_start");
    store.cutNext("INSERT INTO");
    const lease = await store.runs.start(sampleCheckpoint({ runId: "run_1" }), "w1", 60_000);
    expect(store.cuts()).toBe(1);
    expect(lease).toMatchObject({ runId: "run_1", owner: "w1", token: 1 });
    // Another start of the same id is still refused.
    await expect(
      store.runs.start(sampleCheckpoint({ runId: "run_1" }), "w2", 60_000),
    ).rejects.toMatchObject({ code: "run_exists" });
  });

  it("journal writes its entry once", async () => {
    const store = await open("retry_journal");
    const lease = await store.runs.start(sampleCheckpoint({ runId: "run_1" }), "w1", 60_000);
    store.cutNext("INSERT INTO");
    await store.runs.journal(lease, sampleJournalEntry("call_1"));
    expect(store.cuts()).toBe(1);
    const { rows } = await store.db.run<{ n: number }>({
      text: 'SELECT count(*)::int AS n FROM "retry_journal".journal',
    });
    expect(rows[0]!.n).toBe(1);
  });

  it("finish succeeds instead of LeaseLostError", async () => {
    const store = await open("retry_finish");
    const lease = await store.runs.start(sampleCheckpoint({ runId: "run_1" }), "w1", 60_000);
    store.cutNext("finished_ms");
    await store.runs.finish(lease, { state: "done", result: sampleResult("run_1") });
    expect(store.cuts()).toBe(1);
    // A finish under a lease that really was lost still fails.
    await expect(
      store.runs.finish({ ...lease, token: 7 }, { state: "done", result: sampleResult("run_1") }),
    ).rejects.toMatchObject({ code: "lease_lost" });
  });

  it("halt returns its state instead of run_exists (new run) or LeaseLostError (under a lease)", async () => {
    const store = await open("retry_halt");
    store.cutNext("halt_run(");
    expect(await store.runs.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1"] }))).toEqual({
      state: "waiting",
    });
    expect(store.cuts()).toBe(1);
    // Another halt of the same id (another checkpoint) is still refused.
    await expect(
      store.runs.halt(sampleCheckpoint({ runId: "run_1", pending: ["r9"] })),
    ).rejects.toMatchObject({ code: "run_exists" });

    const lease = await store.runs.start(sampleCheckpoint({ runId: "run_2" }), "w1", 60_000);
    store.cutNext("halt_run(");
    expect(
      await store.runs.halt(sampleCheckpoint({ runId: "run_2", pending: ["r2"] }), lease),
    ).toEqual({ state: "waiting" });
    expect(store.cuts()).toBe(2);
  });

  it("a claim whose commit was lost is tried again; the lease it took runs out for others", async () => {
    const store = await open("retry_claim");
    await store.runs.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1"] }));
    await store.db.run({
      text: `UPDATE "retry_claim".runs SET state = 'ready', ready_ms = 0`,
    });
    store.cutNextCommit();
    // The first try took the run; its reply was lost, so the second finds nothing to claim.
    expect(await store.claim({ owner: "w1", leaseMs: 200 })).toBeUndefined();
    expect(store.cuts()).toBe(1);
    // Once that lease runs out (by the database's clock) the run is taken over.
    let claimed: Awaited<ReturnType<typeof store.claim>>;
    for (let i = 0; i < 100 && claimed === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      claimed = await store.claim({ owner: "w2", leaseMs: 60_000 });
    }
    expect(claimed).toMatchObject({ reason: "takeover", lease: { runId: "run_1", token: 2 } });
  });

  it("the events of a write tried again are recorded once: start, halt, answer, append, finish, cancel", async () => {
    const store = await open("retry_events");
    const types = async (runId: string) =>
      (await store.events.readEvents(runId, 0)).map((e) => e.type);
    store.cutNext("INSERT INTO");
    const lease = await store.runs.start(sampleCheckpoint({ runId: "run_1" }), "w1", 60_000);
    store.cutNext("cardinality");
    const batch = [
      { type: "turn" as const, data: { turn: 1 } },
      { type: "text" as const, data: { turn: 1, text: "hi" } },
    ];
    expect(await store.events.appendEvents(lease, batch)).toBe(3);
    store.cutNextCommit();
    await store.runs.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1"] }), lease);
    store.cutNext("answered_by");
    const receipt = await store.answer({ id: "r1", ok: true }, { by: "alice" });
    expect(receipt.runId).toBe("run_1");
    const claimed = (await store.claim({ owner: "w2", leaseMs: 60_000, runId: "run_1" }))!;
    store.cutNext("finished_ms");
    await store.runs.finish(claimed.lease, { state: "done", result: sampleResult("run_1") });
    expect(store.cuts()).toBe(5);
    expect(await types("run_1")).toEqual([
      "started",
      "turn",
      "text",
      "suspended",
      "answered",
      "continued",
      "done",
    ]);

    await store.runs.halt(sampleCheckpoint({ runId: "run_2", pending: ["r2"] }));
    store.cutNextCommit();
    // The first try cancelled it; the second says so, not already_cancelled.
    expect(await store.cancel("run_2", { by: "ops", reason: "no longer needed" })).toEqual({
      runId: "run_2",
      outcome: "cancelled",
      state: "cancelled",
    });
    expect(store.cuts()).toBe(6);
    expect(await types("run_2")).toEqual(["started", "suspended", "cancelled"]);
  });
});
