import { sampleCheckpoint, sampleJournalEntry } from "@toolnexus/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { key } from "./connection.js";
import { type PostgresStore, postgresStore } from "./index.js";

const LONG = 10 * 60_000;
let url: string;
let admin: pg.Client;
let schemas = 0;
const stores: PostgresStore[] = [];
const open = (schema = `claims_${++schemas}`) => {
  const store = postgresStore({ connectionString: url }, { schema });
  stores.push(store);
  return store;
};

beforeAll(async () => {
  url = await createDatabase(inject("pg"), "claims");
  admin = new pg.Client(url);
  await admin.connect();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await admin.end();
});

/** Halts `runId` and answers it, so it is ready. */
async function readyRun(store: PostgresStore, runId: string) {
  await store.halt(sampleCheckpoint({ runId, pending: [`${runId}_r`] }));
  await store.answer({ id: `${runId}_r`, ok: true });
}

describe("claims on PostgreSQL", () => {
  it("a worker never waits for a run another transaction holds: SKIP LOCKED takes the next", async () => {
    const store = open();
    await readyRun(store, "run_a");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await readyRun(store, "run_b");
    const holder = new pg.Client(url);
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM ${store.schema}.runs WHERE run_key = $1 FOR UPDATE`, [
        key("run_a"),
      ]);
      // A claim that waited for the locked row would not return while `holder` holds it (no
      // clock asserted: a busy machine may be slow, never blocked).
      const claimed = await store.claim({ owner: "w1", leaseMs: LONG });
      expect(claimed?.lease.runId).toBe("run_b");
      expect(await store.claim({ owner: "w2", leaseMs: LONG })).toBeUndefined();
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    expect((await store.claim({ owner: "w3", leaseMs: LONG }))?.lease.runId).toBe("run_a");
  });

  it("many stores (as on many machines) claiming at once: each run exactly once", {
    timeout: 60_000,
  }, async () => {
    const schema = `claims_${++schemas}`;
    const first = open(schema);
    const ids = Array.from({ length: 60 }, (_, i) => `run_${i}`);
    for (const id of ids) await readyRun(first, id);
    const machines = [first, ...Array.from({ length: 5 }, () => open(schema))];
    const claimedBy = new Map<string, string>();
    let duplicates = 0;
    await Promise.all(
      machines.flatMap((store, m) =>
        Array.from({ length: 3 }, async (_, w) => {
          for (;;) {
            const claimed = await store.claim({ owner: `m${m}w${w}`, leaseMs: LONG });
            if (claimed === undefined) return;
            if (claimedBy.has(claimed.lease.runId)) duplicates++;
            claimedBy.set(claimed.lease.runId, claimed.lease.owner);
            await store.finish(claimed.lease, {
              state: "failed",
              error: { code: "x", message: "x", at: new Date().toISOString() },
            });
          }
        }),
      ),
    );
    expect(duplicates).toBe(0);
    expect([...claimedBy.keys()].sort()).toEqual([...ids].sort());
    expect(new Set(claimedBy.values()).size).toBeGreaterThan(1);
  });

  it("sets a corrupt run aside as failed (checkpoint_invalid) and claims the next one", async () => {
    const store = open();
    await readyRun(store, "bad_json");
    await readyRun(store, "bad_shape");
    await readyRun(store, "good");
    const runs = `${store.schema}.runs`;
    await admin.query(
      `UPDATE ${runs} SET checkpoint_json = '{"version": 2, "runId"' WHERE run_key = $1`,
      [key("bad_json")],
    );
    await admin.query(
      `UPDATE ${runs} SET checkpoint_json = '{"version": 7, "runId": "bad_shape"}' WHERE run_key = $1`,
      [key("bad_shape")],
    );
    // The corrupt rows are listed, and reading them by id names the run and the problem.
    expect((await store.list({ state: "answered" })).map((s) => s.runId).sort()).toEqual([
      "bad_json",
      "bad_shape",
      "good",
    ]);
    await expect(store.getRun("bad_json")).rejects.toMatchObject({
      name: "CheckpointError",
      code: "checkpoint_invalid",
      message: expect.stringContaining('the stored checkpoint of run "bad_json" is corrupt'),
    });
    // A claim by id refuses it and changes nothing.
    await expect(
      store.claim({ owner: "w1", leaseMs: LONG, runId: "bad_shape" }),
    ).rejects.toMatchObject({ code: "checkpoint_invalid" });
    expect(
      (await admin.query(`SELECT state FROM ${runs} WHERE run_key = $1`, [key("bad_shape")])).rows,
    ).toEqual([{ state: "ready" }]);

    // A worker's claim skips past both, setting them aside, and gets the good run.
    const claimed = await store.claim({ owner: "w1", leaseMs: LONG });
    expect(claimed?.lease.runId).toBe("good");
    const { rows } = await admin.query<{
      run_id: string;
      state: string;
      error_json: string;
      checkpoint_json: string;
    }>(
      `SELECT run_id, state, error_json, checkpoint_json FROM ${runs} WHERE run_id LIKE 'bad%' ORDER BY run_id`,
    );
    expect(rows.map((r) => [r.run_id, r.state, JSON.parse(r.error_json).code])).toEqual([
      ["bad_json", "failed", "checkpoint_invalid"],
      ["bad_shape", "failed", "checkpoint_invalid"],
    ]);
    // Kept for inspection, as it was.
    expect(rows[1]!.checkpoint_json).toBe('{"version": 7, "runId": "bad_shape"}');
    expect(await store.claim({ owner: "w2", leaseMs: LONG })).toBeUndefined();
  });

  it("a corrupt journal entry sets the run aside too", async () => {
    const store = open();
    const lease = await store.start(sampleCheckpoint({ runId: "run_j" }), "w1", LONG);
    await store.journal(lease, sampleJournalEntry("call_1"));
    await store.release(lease);
    await admin.query(`UPDATE ${store.schema}.journal SET json = '{"callId": 1}'`);
    expect(await store.claim({ owner: "w2", leaseMs: LONG })).toBeUndefined();
    expect(await store.getRun("run_j")).toMatchObject({
      state: "failed",
      lastError: { code: "checkpoint_invalid" },
    });
  });
});
