import { sampleCheckpoint } from "@toolnexus/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase, LIMITED_USER } from "../test/cluster.js";
import { startFixture } from "../test/processes.js";
import { type PostgresStore, postgresStore, SCHEMA_VERSION } from "./index.js";

let url: string;
let admin: pg.Client;
const stores: PostgresStore[] = [];
const open = (
  schema: string,
  connection: { connectionString: string } = { connectionString: url },
) => {
  const store = postgresStore(connection, { schema });
  stores.push(store);
  return store;
};

beforeAll(async () => {
  url = await createDatabase(inject("pg"), "schema");
  admin = new pg.Client(url);
  await admin.connect();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await admin.end();
});

const tablesOf = async (schema: string) =>
  (
    await admin.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
      [schema],
    )
  ).rows.map((row) => row.table_name);

describe("migrations", () => {
  it("brings a version 3 schema to version 4 (reminders), keeping its runs", async () => {
    const first = open("from_three");
    const halted = sampleCheckpoint({ runId: "run_3", pending: ["q_3"] });
    await first.halt(halted);
    await admin.query(`DROP TABLE from_three.timers;
      DROP FUNCTION from_three.keep_timers() CASCADE;
      DELETE FROM from_three.migrations WHERE version = 4`);
    const second = open("from_three");
    expect(await second.migrate()).toEqual({ from: 3, to: 4 });
    expect((await second.getRun("run_3"))?.checkpoint).toEqual(halted);
    const timed = sampleCheckpoint({ runId: "run_4", pending: ["q_4"] });
    timed.pending[0]!.timers = [{ kind: "reminder", at: new Date(0).toISOString() }];
    await second.halt(timed);
    const due = await second.claimDue({ now: Date.now(), owner: "w" });
    expect(due.map((d) => [d.requestId, d.kind])).toEqual([["q_4", "reminder"]]);
    expect((await second.getRequest("q_4"))?.request).toEqual(timed.pending[0]!.request);
  });

  it("creates the schema on first use, in the schema named by the option", async () => {
    const store = open("lazy_one");
    expect(await tablesOf("lazy_one")).toEqual([]);
    expect(await store.getRun("run_1")).toBeUndefined();
    expect(await tablesOf("lazy_one")).toEqual([
      "conversations",
      "events",
      "journal",
      "migrations",
      "requests",
      "runs",
      "timers",
    ]);
    const { rows } = await admin.query(
      "SELECT version, applied_by FROM lazy_one.migrations ORDER BY version",
    );
    expect(rows).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, i) => ({
        version: i + 1,
        applied_by: "postgres",
      })),
    );
    // Migrating again does nothing.
    expect(await store.migrate()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
  });

  it("defaults to the schema toolnexus; schemas are independent stores", async () => {
    const a = open("toolnexus");
    expect(a.schema).toBe("toolnexus");
    expect(postgresStore({ connectionString: url }).schema).toBe("toolnexus");
    const b = open("tenant_b");
    await a.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1"] }));
    expect((await a.getRun("run_1"))?.state).toBe("waiting");
    expect(await b.getRun("run_1")).toBeUndefined();
    await b.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1"] }));
    await b.answer({ id: "r1", ok: true });
    expect((await b.getRun("run_1"))?.state).toBe("ready");
    expect((await a.getRun("run_1"))?.state).toBe("waiting");
  });

  it("refuses a schema name that is not a plain identifier", () => {
    for (const schema of ["", "1abc", 'a"b', "a;drop", "x".repeat(64), 7]) {
      expect(() => postgresStore({ connectionString: url }, { schema } as never)).toThrow(
        TypeError,
      );
    }
  });

  it("is safe when many connections and processes migrate at once: one migrates, all succeed", {
    timeout: 60_000,
  }, async () => {
    const schema = "raced";
    const fixtures = Array.from({ length: 3 }, () => startFixture("migrate.mjs", [url, schema]));
    const inProcess = Array.from({ length: 6 }, () => open(schema).migrate());
    const results = [
      ...(await Promise.all(inProcess)),
      ...(await Promise.all(fixtures.map((f) => f.line()))),
    ];
    expect(results).toHaveLength(9);
    for (const result of results) expect(result).toMatchObject({ to: SCHEMA_VERSION });
    expect(results.filter((r) => r.from === 0)).toHaveLength(1);
    const { rows } = await admin.query(`SELECT version FROM ${schema}.migrations ORDER BY version`);
    expect(rows).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })));
    // And the store works.
    const store = open(schema);
    expect(await store.halt(sampleCheckpoint({ pending: ["r1"] }))).toEqual({ state: "waiting" });
  });

  it("refuses a schema written by a newer release, changing nothing", async () => {
    const store = open("from_future");
    await store.migrate();
    await store.halt(sampleCheckpoint({ pending: ["r1"] }));
    await admin.query("INSERT INTO from_future.migrations (version) VALUES (99)");
    const later = open("from_future");
    const error = await later.getRun("run_1").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "PostgresStoreError", code: "store_schema" });
    expect(String((error as Error).message)).toMatch(
      new RegExp(
        `schema "from_future" .* is at version 99, but this release of @toolnexus/store-postgres reads up to version ${SCHEMA_VERSION}; upgrade @toolnexus/store-postgres`,
      ),
    );
    await expect(later.migrate()).rejects.toMatchObject({ code: "store_schema" });
    await expect(later.answer({ id: "r1", ok: true })).rejects.toMatchObject({
      code: "store_schema",
    });
    const { rows } = await admin.query("SELECT state FROM from_future.requests");
    expect(rows).toEqual([{ state: "waiting" }]);
  });

  it("works on a pool the application already has, and leaves it open on close", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    pool.on("error", () => {});
    const a = postgresStore({ pool }, { schema: "shared_pool_a" });
    const b = postgresStore({ pool }, { schema: "shared_pool_b" });
    expect(a.pool).toBe(pool);
    let woken = 0;
    const unsubscribe = a.subscribe(() => {
      woken++;
    });
    await a.halt(sampleCheckpoint({ pending: ["r1"] }));
    await b.halt(sampleCheckpoint({ pending: ["r1"] }));
    await a.answer({ id: "r1", ok: true });
    for (let i = 0; i < 100 && woken === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(woken).toBeGreaterThan(0);
    expect((await b.getRun("run_1"))?.state).toBe("waiting");
    unsubscribe();
    await a.close();
    await b.close();
    await expect(a.getRun("run_1")).rejects.toMatchObject({ code: "store_closed" });
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });

  it("runs ahead of deploy: a user without CREATE uses a schema an owner migrated", async () => {
    const owner = open("deployed");
    expect(await owner.migrate()).toEqual({ from: 0, to: SCHEMA_VERSION });
    await admin.query(`GRANT USAGE ON SCHEMA deployed TO ${LIMITED_USER}`);
    await admin.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA deployed TO ${LIMITED_USER}`,
    );
    await admin.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA deployed TO ${LIMITED_USER}`);
    const app = open("deployed", {
      connectionString: url.replace("//postgres@", `//${LIMITED_USER}@`),
    });
    await app.halt(sampleCheckpoint({ pending: ["r1"] }));
    await app.answer({ id: "r1", ok: true });
    const claimed = await app.claim({ owner: "w1", leaseMs: 60_000 });
    expect(claimed?.lease.runId).toBe("run_1");
  });
});
