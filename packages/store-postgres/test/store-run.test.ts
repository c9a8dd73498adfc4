// The engines' scenarios on PostgreSQL used as a run's durability backend, each answer recorded
// by a child Node process connecting to the same database (store-run-scenarios.ts, shared with
// the SQLite store's tests).
import type { Answer, AnswerReceipt } from "@toolnexus/core";
import { afterAll, beforeAll, inject } from "vitest";
import { storeRunScenarios } from "../../store-sqlite/test/store-run-scenarios.js";
import { type PostgresStore, postgresStore } from "../src/index.js";
import { createDatabase } from "./cluster.js";
import { startFixture } from "./processes.js";

const SCHEMA = "store_run";
let url: string;
let store: PostgresStore;
beforeAll(async () => {
  url = await createDatabase(inject("pg"), "store_run");
  store = postgresStore({ connectionString: url }, { schema: SCHEMA });
  await store.migrate();
});
afterAll(async () => {
  await store?.close();
});

async function answerElsewhere(answer: Answer): Promise<AnswerReceipt> {
  const child = startFixture("answer.mjs", [url, SCHEMA, JSON.stringify(answer)]);
  const said = (await child.line(() => true)) as {
    receipt?: AnswerReceipt;
    error?: { code: string; message: string };
  };
  await child.exited;
  if (said.receipt === undefined) throw new Error(`${said.error?.code}: ${said.error?.message}`);
  return said.receipt;
}

storeRunScenarios("PostgreSQL", () => ({ store, answerElsewhere }));
