// The engines' scenarios on a SQLite file used as a run's durability backend, each answer
// recorded by a child Node process opening the same file (store-run-scenarios.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Answer, AnswerReceipt } from "@toolnexus/core";
import { afterAll } from "vitest";
import { type SqliteStore, sqliteStore } from "../src/index.js";
import { startFixture } from "./processes.js";
import { storeRunScenarios } from "./store-run-scenarios.js";

const dir = mkdtempSync(join(tmpdir(), "toolnexus-store-run-"));
const path = join(dir, "runs.db");
let store: SqliteStore | undefined;
afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function answerElsewhere(answer: Answer): Promise<AnswerReceipt> {
  const child = startFixture("answer.mjs", [path, JSON.stringify(answer)]);
  const said = (await child.line(() => true)) as {
    receipt?: AnswerReceipt;
    error?: { code: string; message: string };
  };
  await child.exited;
  if (said.receipt === undefined) throw new Error(`${said.error?.code}: ${said.error?.message}`);
  return said.receipt;
}

storeRunScenarios("SQLite", () => {
  store ??= sqliteStore({ path, busyTimeoutMs: 30_000 });
  return { store, answerElsewhere };
});
