// One worker process of the workers bench: `client.work()` on the PostgreSQL store, a model that
// waits `modelMs` per turn, until the parent says stop. Reports what it did: runs finished,
// claims tried and empty, the statements its pool sent, and its own CPU time.
import { createClient } from "@toolnexus/client";
import { postgresStore } from "@toolnexus/store-postgres";
import { statementCounter } from "./count.mjs";
import { approvalModel, approvalTool } from "./scripted.mjs";

// The parent gone (it failed, or was interrupted): stop rather than work for nobody.
let finished = false;
process.on("disconnect", () => process.exit(finished ? 0 : 1));
const { url, schema, modelMs, concurrency, poolSize } = JSON.parse(process.argv[2]);
const store = postgresStore({ connectionString: url }, { schema, poolSize });
const counter = statementCounter();
counter.track(store.pool);
let claims = 0;
let empty = 0;
const view = counter.storeView(store);
const claim = view.claim;
view.claim = async (options) => {
  claims++;
  const got = await claim(options);
  if (got === undefined) empty++;
  return got;
};
let wakeups = 0;
view.subscribe = (onReady) =>
  store.subscribe(() => {
    wakeups++;
    onReady();
  });
const client = createClient({
  model: approvalModel(modelMs),
  tools: [approvalTool()],
  runs: view,
});
const stop = new AbortController();
let go;
const started = new Promise((resolve) => {
  go = resolve;
});
process.on("message", (message) => {
  if (message.type === "go") go();
  if (message.type === "stop") stop.abort();
});
await store.migrate();
process.send({ type: "ready" });
await started;
const cpu0 = process.cpuUsage();
const summary = await client.work({ signal: stop.signal, concurrency });
const cpu = process.cpuUsage(cpu0);
await store.close();
finished = true;
process.send(
  {
    type: "done",
    summary,
    claims,
    empty,
    wakeups,
    statements: counter.perCall(),
    cpuMs: (cpu.user + cpu.system) / 1000,
  },
  () => process.disconnect(),
);
