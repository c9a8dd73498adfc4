// A worker process of scenario 2: starts its share of the durable runs at once (ids given by
// the parent), parks each before its first model turn until the parent says "go" (its
// followers are connected by then), and reports when every run has ended.
import { createClient } from "@toolnexus/client";
import { now, openStore, stepModel, workTool } from "./common.mjs";

// The parent gone (it failed, or was interrupted): stop rather than wait for it forever.
let finished = false;
process.on("disconnect", () => process.exit(finished ? 0 : 1));

const { store: spec, runIds, steps, toolMs, poolSize } = JSON.parse(process.argv[2]);
const store = await openStore(spec, { poolSize });

let parked = 0;
let open;
const gate = new Promise((resolve) => {
  open = resolve;
});
const beforeFirst = () => {
  parked++;
  if (parked === runIds.length) process.send({ type: "parked" });
  return gate;
};
process.on("message", (message) => {
  if (message.type === "go") open();
});

const client = createClient({
  model: stepModel(steps, beforeFirst),
  tools: [workTool(toolMs)],
  runs: store,
});
let goAt;
gate.then(() => {
  goAt = now();
});
let failed = 0;
let firstError;
await Promise.all(
  runIds.map(async (runId) => {
    try {
      const result = await client.run("go", { durable: true, runId });
      if (result.status !== "done") throw new Error(`run ${runId} ended ${result.status}`);
    } catch (error) {
      failed++;
      firstError ??= String(error?.stack ?? error);
    }
  }),
);
const doneAt = now();
await store.close?.();
finished = true;
process.send(
  { type: "done", failed, firstError, ms: doneAt - goAt, rss: process.memoryUsage().rss },
  () => process.disconnect(),
);
