import { sampleCheckpoint } from "@toolnexus/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { type PostgresStore, postgresStore } from "./index.js";

let url: string;
const stores: PostgresStore[] = [];
const open = (schema: string) => {
  const store = postgresStore({ connectionString: url }, { schema });
  stores.push(store);
  return store;
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  url = await createDatabase(inject("pg"), "notify");
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
});

/** Resolves with the ms from `started` until `count` reaches `target`; rejects after 5 s. */
async function until(
  count: () => number,
  target: number,
  started = performance.now(),
): Promise<number> {
  while (count() < target) {
    if (performance.now() - started > 5000) throw new Error(`no call after 5 s (${count()})`);
    await pause(1);
  }
  return performance.now() - started;
}

describe("LISTEN/NOTIFY", () => {
  it("wakes a subscriber on another connection within milliseconds of an answer", async () => {
    // Two stores with their own pools, as a web handler and a worker on two machines.
    const web = open("wake");
    const worker = open("wake");
    await worker.migrate();
    let calls = 0;
    const unsubscribe = worker.subscribe(() => {
      calls++;
    });
    // The listener is up once a call of the subscribing store went through.
    await worker.getRun("warm-up");
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      await web.halt(sampleCheckpoint({ runId: `run_${i}`, pending: [`r${i}`] }));
      await pause(5);
      const before = calls;
      const started = performance.now();
      await web.answer({ id: `r${i}`, ok: true });
      latencies.push(await until(() => calls, before + 1, started));
    }
    unsubscribe();
    latencies.sort((a, b) => a - b);
    console.log(
      `notify: answer() called -> subscriber called (on another pool), p50 ${latencies[10]!.toFixed(1)} ms, max ${latencies[19]!.toFixed(1)} ms`,
    );
    expect(latencies[10]).toBeLessThan(1000);
    // A halt that is ready at once, and a release, tell too; a plain halt does not.
    const again = worker.subscribe(() => {
      calls++;
    });
    await worker.getRun("warm-up");
    let before = calls;
    await web.halt(sampleCheckpoint({ runId: "quiet", pending: ["q1"] }));
    await pause(200);
    expect(calls).toBe(before);
    const lease = await web.start(sampleCheckpoint({ runId: "released" }), "w1", 60_000);
    await web.release(lease);
    await until(() => calls, before + 1);
    before = calls;
    again();
    await web.answer({ id: "q1", ok: true });
    await pause(200);
    expect(calls).toBe(before);
  });

  it("reconnects when its connection is cut, tells its subscribers, and keeps listening", async () => {
    const errors: unknown[] = [];
    const web = open("reconnect");
    const worker = postgresStore(
      { connectionString: url },
      {
        schema: "reconnect",
        onError: (error) => errors.push(error),
      },
    );
    stores.push(worker);
    await worker.migrate();
    let calls = 0;
    worker.subscribe(() => {
      calls++;
    });
    await worker.getRun("warm-up");
    const admin = new pg.Client(url);
    await admin.connect();
    try {
      const { rows } = await admin.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
          WHERE query LIKE 'LISTEN "toolnexus:reconnect"%' AND pid <> pg_backend_pid()`,
      );
      expect(rows[0]!.n).toBe(1);
    } finally {
      await admin.end();
    }
    // Told once it listens again (whatever was sent meanwhile was lost).
    await until(() => calls, 1);
    expect(errors[0]).toMatchObject({ name: "PostgresStoreError", code: "store_connect" });
    await web.halt(sampleCheckpoint({ pending: ["r1"] }));
    const before = calls;
    await web.answer({ id: "r1", ok: true });
    await until(() => calls, before + 1);
  });

  it("keeps one LISTEN connection however often subscribers come and go", async () => {
    const store = open("churn");
    await store.migrate();
    const listening = async () => {
      const admin = new pg.Client(url);
      await admin.connect();
      try {
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE query = 'LISTEN "toolnexus:churn"; LISTEN "toolnexus-events:churn"'`,
        );
        return rows[0]!.n;
      } finally {
        await admin.end();
      }
    };
    for (let i = 0; i < 5; i++) store.subscribe(() => {})();
    const unsubscribe = store.subscribe(() => {});
    store.subscribe(() => {})();
    await store.getRun("warm-up");
    await pause(200);
    expect(await listening()).toBe(1);
    unsubscribe();
    await pause(200);
    expect(await listening()).toBe(0);
  });
});
