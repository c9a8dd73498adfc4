// The built `toolnexus` command over a real PostgreSQL server (a throwaway cluster), through
// TOOLNEXUS_DATABASE_URL with a password: the password never appears in any output or error,
// whether the command works, the password is wrong, or the server is unreachable.
import { createServer } from "node:net";
import type { RunSummary } from "@toolnexus/core";
import { type PostgresStore, postgresStore } from "@toolnexus/store-postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type ClusterInfo,
  createDatabase,
  destroyCluster,
  PASSWORD,
  PASSWORD_USER,
  startCluster,
} from "../../store-postgres/test/cluster.js";
import { childEnv, type Finished, killAll, start, toolnexus } from "./cli-process.js";
import { continueToEnd, failedRun, haltOnQuestion } from "./runs.js";

let cluster: ClusterInfo | undefined;
let url: string;
let store: PostgresStore;
let question: { runId: string; requestId: string };
let failed: string;
const outputs: Finished[] = [];

/** The connection string with the password role, for database `db` of the cluster. */
const withPassword = (password: string, port = cluster!.port, db = "postgres") =>
  `postgres://${PASSWORD_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;

async function run(args: string[], databaseUrl = url): Promise<Finished> {
  const finished = await toolnexus(args, childEnv({ TOOLNEXUS_DATABASE_URL: databaseUrl }));
  outputs.push(finished);
  return finished;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

beforeAll(async () => {
  cluster = await startCluster("cli");
  const db = (await createDatabase(cluster, "cli")).split("/").pop()!;
  url = withPassword(PASSWORD, cluster.port, db);
  store = postgresStore({ connectionString: url });
  question = await haltOnQuestion(store, { agent: "support", sessionId: "s1" });
  failed = await failedRun(store, { agent: "support", sessionId: "s2" });
});
afterEach(() => killAll());
afterAll(async () => {
  await store?.close();
  if (cluster !== undefined) destroyCluster(cluster);
  // Every output of every command of this file, the passing and the failing ones.
  expect(outputs.length).toBeGreaterThan(5);
  for (const { stdout, stderr } of outputs) {
    expect(stdout + stderr).not.toContain(PASSWORD);
    expect(stdout + stderr).not.toContain("wrong-PASSWORD-7q");
  }
});

describe("toolnexus over PostgreSQL", () => {
  it("lists, shows and retries runs through TOOLNEXUS_DATABASE_URL", async () => {
    const listed = await run(["runs", "list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).map((r: RunSummary) => r.runId)).toEqual([
      failed,
      question.runId,
    ]);
    const shown = await run(["runs", "show", question.runId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("Which environment?");
    const retried = await run(["retry", failed]);
    expect(retried.code, retried.stderr).toBe(0);
    expect((await store.getRun(failed))?.state).toBe("ready");
  });

  it("follows a run answered and continued by other processes", async () => {
    const follow = start(
      ["runs", "follow", question.runId],
      childEnv({ TOOLNEXUS_DATABASE_URL: url }),
    );
    await follow.printed("suspended");
    const answered = await run([
      "answer",
      question.requestId,
      "--data",
      '{"env":"production"}',
      "--by",
      "erin",
    ]);
    expect(answered.code, answered.stderr).toBe(0);
    await follow.printed("answered");
    expect((await continueToEnd(store, question.runId, "in production", "support")).status).toBe(
      "done",
    );
    const end = await follow.done;
    outputs.push(end);
    expect(end.code, end.stderr).toBe(0);
    expect(end.stdout).toMatch(/done +\{"text":"in production"\}/);
  });

  it("refuses a connection string on the command line without printing it", async () => {
    const refused = await run(["runs", "list", "--store", url]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain("TOOLNEXUS_DATABASE_URL");
  });

  it("says the credentials were refused, naming the server but never the password", async () => {
    const wrong = await run(["runs", "list"], withPassword("wrong-PASSWORD-7q"));
    expect(wrong.code, wrong.stderr).toBe(4);
    expect(wrong.stderr).toContain("refused the credentials");
    expect(wrong.stderr).toContain(`${PASSWORD_USER}@127.0.0.1:${cluster!.port}`);
    const asJson = await run(["runs", "list", "--json"], withPassword("wrong-PASSWORD-7q"));
    expect(JSON.parse(asJson.stderr).error.code).toBe("store_auth");
  });

  it("says the server cannot be reached, with its host, never the password", async () => {
    const port = await freePort();
    const down = await run(["runs", "show", "run_1"], withPassword(PASSWORD, port));
    expect(down.code, down.stderr).toBe(4);
    expect(down.stderr).toContain("cannot reach the PostgreSQL server");
    expect(down.stderr).toContain(`127.0.0.1:${port}`);
  });
});
