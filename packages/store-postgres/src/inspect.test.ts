import { inspect } from "node:util";
import { sampleCheckpoint } from "@toolnexus/core/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase, PASSWORD, PASSWORD_USER } from "../test/cluster.js";
import { type PostgresStore, postgresStore } from "./index.js";

const cluster = inject("pg");
let url: string;
const stores: PostgresStore[] = [];
beforeAll(async () => {
  const superUrl = await createDatabase(cluster, "inspect");
  const database = superUrl.slice(superUrl.lastIndexOf("/") + 1);
  url = `postgres://${PASSWORD_USER}:${PASSWORD}@127.0.0.1:${cluster.port}/${database}`;
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
});

/** Every way a store or its pool may end up in a log. */
function shown(value: unknown): string {
  return [
    inspect(value),
    inspect(value, { depth: Number.POSITIVE_INFINITY }),
    inspect(value, { depth: 8, showHidden: true }),
    JSON.stringify(value) ?? "",
    String(value),
  ].join("\n");
}

function expectNoPassword(text: string) {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(encodeURIComponent(PASSWORD));
}

describe("the store and its pool never show the password", () => {
  it("util.inspect and JSON.stringify of the store and of store.pool, before and after connecting", async () => {
    const store = postgresStore({ connectionString: url }, { schema: "inspect" });
    stores.push(store);
    expectNoPassword(shown(store));
    expectNoPassword(shown(store.pool));
    // Connected: the pool holds clients now, and one is checked out.
    await store.halt(sampleCheckpoint({ runId: "run_1", pending: ["r1"] }));
    const client = await store.pool.connect();
    try {
      expectNoPassword(shown(store));
      expectNoPassword(shown(store.pool));
      expectNoPassword(shown(client));
      expectNoPassword(shown({ store }));
    } finally {
      client.release();
    }
    // What it does show: the schema and the server, for a log that has to say which store.
    expect(inspect(store)).toContain("inspect");
    expect(inspect(store)).toContain(`${PASSWORD_USER}@127.0.0.1:${cluster.port}`);
    expect(JSON.parse(JSON.stringify(store))).toEqual({
      schema: "inspect",
      target: expect.stringContaining(PASSWORD_USER),
    });
    // The pool is still there to use.
    expect(typeof store.pool.query).toBe("function");
  });
});
