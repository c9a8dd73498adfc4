import { sampleCheckpoint } from "@toolnexus/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { type PostgresStore, postgresStore } from "./index.js";

// The server ending the store's connections (pg_terminate_backend, as on a restart) while they
// are idle in the pool, held by the store between statements, or held by the application: no
// unhandled "error" event (vitest fails the file on one), and every call completes.

let url: string;
let database: string;
const stores: PostgresStore[] = [];
beforeAll(async () => {
  url = await createDatabase(inject("pg"), "terminate");
  database = url.slice(url.lastIndexOf("/") + 1);
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
});

/** Kills every backend of the test's database; returns how many. */
async function terminateAll(): Promise<number> {
  const admin = new pg.Client(inject("pg").url);
  await admin.connect();
  try {
    const { rows } = await admin.query<{ n: number }>(
      `WITH victims AS MATERIALIZED (
         SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid())
       SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM victims`,
      [database],
    );
    return rows[0]!.n;
  } finally {
    await admin.end();
  }
}

describe("connections killed by the server", () => {
  it("idle, held between statements, or held by the application: no process-ending error, every call completes", {
    timeout: 60_000,
  }, async () => {
    const errors: unknown[] = [];
    const store = postgresStore(
      { connectionString: url },
      { schema: "terminate", onError: (error) => errors.push(error) },
    );
    stores.push(store);
    const unsubscribe = store.subscribe(() => {});
    for (let i = 0; i < 20; i++) {
      await store.halt(sampleCheckpoint({ runId: `run_${i}`, pending: [`r_${i}`] }));
    }
    // A connection the application took from store.pool and holds, idle.
    const held = await store.pool.connect();

    // Calls in flight on several connections while every backend is killed, three times.
    let completed = 0;
    const calls = Array.from({ length: 20 }, async (_, i) => {
      for (let round = 0; round < 15; round++) {
        await store.answer({ id: `r_${i}`, ok: true });
        await store.getRun(`run_${i}`);
        await store.list({ runId: `run_${i}` });
        completed++;
      }
    });
    let killed = 0;
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      killed += await terminateAll();
    }
    await Promise.all(calls);
    expect(completed).toBe(20 * 15);
    expect(killed).toBeGreaterThan(3);
    // The held connection is broken: its holder sees it on the next query, not as a crash.
    await expect(held.query("SELECT 1")).rejects.toThrow();
    held.release(true);
    // The store goes on, and the answers are all there (recorded once, then duplicates).
    for (let i = 0; i < 20; i++) {
      expect((await store.getRequest(`r_${i}`))?.answer).toEqual({ id: `r_${i}`, ok: true });
    }
    unsubscribe();
    // What the store could not attach to a call (idle connections, the LISTEN one) reached onError.
    for (const error of errors) expect(error).toMatchObject({ name: "PostgresStoreError" });
  });
});
