// DBOS Transact (@toolnexus/dbos): the run is a DBOS workflow whose model turns and tool calls
// are steps in DBOS's system database, on the same PostgreSQL server as our store. A cycle: the
// workflow starts and reaches its question (recv), the answer is sent (send) by the request id
// read from the run's waiting event, and the workflow continues to its end.
import { createRequire } from "node:module";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { createClient } from "@toolnexus/client";
import { answer, registerAgent, waitingRequests } from "@toolnexus/dbos";
import {
  ASK_PROMPT,
  benchModel,
  benchTools,
  finalOf,
  MAX_TURNS,
  STEP_PROMPT,
} from "./workload.mjs";

// node-postgres as DBOS loads it, to hand DBOS a pool whose statements the bench counts.
const pg = createRequire(createRequire(import.meta.url).resolve("@dbos-inc/dbos-sdk"))("pg");

export async function dbosEngine(url, counter) {
  // DBOS creates its database only with a pool of its own: with ours, it must exist.
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, "/postgres") });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${new URL(url).pathname.slice(1)}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on("error", () => {});
  counter?.track(pool);
  const agent = registerAgent({
    name: "bench",
    client: createClient({ model: benchModel(), tools: benchTools(), maxTurns: MAX_TURNS }),
  });
  DBOS.setConfig({
    name: "toolnexus-bench",
    systemDatabaseUrl: url,
    systemDatabasePool: pool,
    logLevel: "error",
    applicationVersion: "bench",
  });
  await DBOS.launch();
  let runs = 0;
  const runId = () => `dbos-${process.pid}-${++runs}`;
  return {
    name: "toolnexus + DBOS",
    onPostgres: true,
    detail: "DBOS Transact 5.3.0, workflows started directly (no queue); LISTEN/NOTIFY on",
    async steps() {
      const done = await agent.run(STEP_PROMPT, { runId: runId() });
      if (done.status !== "done") throw new Error(`DBOS steps ended ${done.status}`);
    },
    async cycle() {
      const run = await agent.start(ASK_PROMPT, { runId: runId() });
      const id = run.runId;
      const waiting = await waitingRequests(DBOS, id, { waitSeconds: 30 });
      await answer(DBOS, id, { id: waiting[0].request.id, ok: true, data: { token: id } });
      const done = await run.result();
      if (done.text !== finalOf(ASK_PROMPT, `approved ${id}`)) {
        throw new Error(`DBOS continued to ${JSON.stringify(done.text)}`);
      }
    },
    async close() {
      await DBOS.shutdown();
      await pool.end();
    },
  };
}
