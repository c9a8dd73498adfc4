// The checkpoint text this store keeps: core's compact stored form (format 3), read back as the
// complete checkpoint; rows written by earlier releases (version 2 text) still read and claim.
import { encodeCheckpoint } from "@toolnexus/core";
import { sampleCheckpoint } from "@toolnexus/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { key } from "./connection.js";
import { type PostgresStore, postgresStore } from "./index.js";

let url: string;
let admin: pg.Client;
let store: PostgresStore;
beforeAll(async () => {
  url = await createDatabase(inject("pg"), "checkpoint_text");
  admin = new pg.Client(url);
  await admin.connect();
  store = postgresStore({ connectionString: url }, { schema: "checkpoint_text" });
});
afterAll(async () => {
  await store?.close();
  await admin?.end();
});

const runs = () => `${store.schema}.runs`;

describe("stored checkpoint text", () => {
  it("is core's compact form, and reads back as the checkpoint that was halted", async () => {
    const original = sampleCheckpoint({ runId: "run_compact", pending: ["run_compact_r"] });
    await store.halt(original);
    const { rows } = await admin.query<{ checkpoint_json: string }>(
      `SELECT checkpoint_json FROM ${runs()} WHERE run_key = $1`,
      [key("run_compact")],
    );
    expect(rows[0]?.checkpoint_json).toBe(encodeCheckpoint(original));
    expect(rows[0]!.checkpoint_json.length).toBeLessThan(JSON.stringify(original).length);
    expect((await store.getRun("run_compact"))?.checkpoint).toStrictEqual(original);
    await store.answer({ id: "run_compact_r", ok: true });
    const claimed = await store.claim({ owner: "w", leaseMs: 60_000, runId: "run_compact" });
    expect(claimed?.checkpoint).toStrictEqual(original);
  });

  it("a row an earlier release wrote (version 2 text) reads and claims as before", async () => {
    const original = sampleCheckpoint({ runId: "run_v2", pending: ["run_v2_r"] });
    await store.halt(original);
    await admin.query(`UPDATE ${runs()} SET checkpoint_json = $2 WHERE run_key = $1`, [
      key("run_v2"),
      JSON.stringify(original),
    ]);
    expect((await store.getRun("run_v2"))?.checkpoint).toStrictEqual(original);
    await store.answer({ id: "run_v2_r", ok: true });
    const claimed = await store.claim({ owner: "w", leaseMs: 60_000, runId: "run_v2" });
    expect(claimed?.checkpoint).toStrictEqual(original);
  });
});
