import { sampleCheckpoint, sampleJournalEntry, sampleResult } from "@toolnexus/core/testing";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { type PostgresStore, postgresStore } from "./index.js";

const LONG = 10 * 60_000;
let url: string;
let store: PostgresStore;
/** Statements sent on the store's pool: node-postgres sends one and waits for its reply. */
let sent = 0;

beforeAll(async () => {
  url = await createDatabase(inject("pg"), "round_trips");
  store = postgresStore({ connectionString: url }, { schema: "round_trips" });
  store.pool.on("connect", (client: pg.PoolClient) => {
    const query = client.query;
    client.query = ((...args: unknown[]) => {
      sent++;
      return (query as (...a: unknown[]) => unknown).apply(client, args);
    }) as typeof client.query;
  });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
});

/** The result of `op` and how many round trips it took. */
async function trips<T>(op: () => Promise<T>): Promise<[T, number]> {
  const before = sent;
  const result = await op();
  return [result, sent - before];
}

describe("round trips per operation on PostgreSQL", () => {
  it("a halt, a journaled step, a checkpoint, an answer and a finish are one round trip each; a claim is four", async () => {
    expect(
      await trips(() => store.halt(sampleCheckpoint({ runId: "a", pending: ["a_r"] }))),
    ).toEqual([{ state: "waiting" }, 1]);
    expect((await trips(() => store.answer({ id: "a_r", ok: true })))[1]).toBe(1);
    const [claimed, claimTrips] = await trips(() =>
      store.claim({ owner: "w1", leaseMs: LONG, runId: "a" }),
    );
    // BEGIN, the run locked and read with its journal and answers, the lease taken, COMMIT.
    expect(claimTrips).toBe(4);
    const lease = claimed!.lease;
    expect(
      (await trips(() => store.journal(lease, sampleJournalEntry("c1", { answered: "a_r" }))))[1],
    ).toBe(1);
    expect(
      (await trips(() => store.step(lease, sampleCheckpoint({ runId: "a", pending: [] }))))[1],
    ).toBe(1);
    expect(
      await trips(() => store.halt(sampleCheckpoint({ runId: "a", pending: ["a_r2"] }), lease)),
    ).toEqual([{ state: "waiting" }, 1]);
    await store.answer({ id: "a_r2", ok: true });
    const [next, genericTrips] = await trips(() => store.claim({ owner: "w2", leaseMs: LONG }));
    expect(next?.lease.runId).toBe("a");
    expect(genericTrips).toBe(4);
    expect(
      (
        await trips(() => store.finish(next!.lease, { state: "done", result: sampleResult("a") }))
      )[1],
    ).toBe(1);
    expect((await store.getRun("a"))?.state).toBe("done");
  });

  it("a halt under a lease after a cancel was asked ends the run cancelled, in the same round trip", async () => {
    const lease = await store.start(sampleCheckpoint({ runId: "b" }), "w1", LONG);
    await store.cancel("b", { by: "ann", reason: "not needed" });
    const [receipt, n] = await trips(() =>
      store.halt(sampleCheckpoint({ runId: "b", pending: ["b_r"] }), lease),
    );
    expect(n).toBe(1);
    expect(receipt).toEqual({
      state: "cancelled",
      cancel: { at: expect.any(String), by: "ann", reason: "not needed" },
    });
    const run = await store.getRun("b");
    expect(run).toMatchObject({
      state: "cancelled",
      cancel: receipt.state === "cancelled" ? receipt.cancel : {},
    });
    expect((await store.getRequest("b_r"))?.state).toBe("cancelled");
    const events = await store.readEvents("b", 0);
    expect(events.slice(-2).map((e) => [e.type, e.data])).toEqual([
      ["suspended", { requests: [expect.objectContaining({ id: "b_r" })] }],
      ["cancelled", { by: "ann", reason: "not needed" }],
    ]);
  });
});
