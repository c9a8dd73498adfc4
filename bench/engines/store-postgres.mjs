// Our own PostgreSQL store: a durable run (`durable: true` journals every model turn and tool
// result) through client.run, halted by the approval and finished by client.resume (the answer
// recorded, the run claimed and continued to its end in this process).
import { createClient } from "@toolnexus/client";
import { postgresStore } from "@toolnexus/store-postgres";
import {
  ASK_PROMPT,
  benchModel,
  benchTools,
  finalOf,
  MAX_TURNS,
  STEP_PROMPT,
} from "./workload.mjs";

export async function storePostgresEngine(url, counter) {
  const store = postgresStore({ connectionString: url }, { schema: "bench_engines" });
  counter?.track(store.pool);
  await store.migrate();
  const client = createClient({
    model: benchModel(),
    tools: benchTools(),
    runs: store,
    maxTurns: MAX_TURNS,
  });
  let runs = 0;
  const runId = () => `pg-${process.pid}-${++runs}`;
  return {
    name: "toolnexus + store-postgres",
    onPostgres: true,
    async steps() {
      const done = await client.run(STEP_PROMPT, { runId: runId(), durable: true });
      if (done.status !== "done") throw new Error(`store-postgres steps ended ${done.status}`);
    },
    async cycle() {
      const halted = await client.run(ASK_PROMPT, { runId: runId(), durable: true });
      if (halted.status !== "pending") throw new Error(`store-postgres halted ${halted.status}`);
      const token = halted.runId;
      const done = await client.resume({ id: halted.pending.id, ok: true, data: { token } });
      if (done.text !== finalOf(ASK_PROMPT, `approved ${token}`)) {
        throw new Error(`store-postgres resumed to ${JSON.stringify(done.text)}`);
      }
    },
    close: () => store.close(),
  };
}
