// Workers on PostgreSQL: how many runs per second 1, 2 and 4 worker processes continue. Each
// run halted on an approval and was answered before the workers start (a backlog of ready runs);
// a worker claims one, runs the tool, calls the model (which waits `--model-ms` per turn, as a
// remote model would) and finishes it. Per configuration: runs/s, what the workers' claims found
// (empty claims are wasted round trips), the statements per run, the CPU the workers and the
// server used per run, and the machine's load.
//
//   node bench/pg/workers.mjs [--runs 400] [--model-ms 20] [--workers 1,2,4] [--concurrency 4,16]
//     [--pool-size 10] [--profile dir] [--json out.json]
import { fork } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@toolnexus/client";
import { postgresStore } from "@toolnexus/store-postgres";
import { startCluster } from "../events/pg.mjs";
import { approvalModel, approvalTool, PROMPT } from "./scripted.mjs";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "400" },
    "model-ms": { type: "string", default: "20" },
    workers: { type: "string", default: "1,2,4" },
    concurrency: { type: "string", default: "4,16" },
    "pool-size": { type: "string", default: "10" },
    json: { type: "string" },
    // A directory for the workers' CPU profiles (node --cpu-prof), one file per process.
    profile: { type: "string" },
  },
});
const RUNS = Number(args.runs);
const MODEL_MS = Number(args["model-ms"]);
const POOL = Number(args["pool-size"]);
const WORKERS = args.workers.split(",").map(Number);
const CONCURRENCY = args.concurrency.split(",").map(Number);

const cluster = await startCluster();
// The bench's own reads go through a store's pool (pg is not a dependency of the bench).
const admin = postgresStore({ connectionString: cluster.url }, { schema: "bench_admin" }).pool;

/** CPU ms (user + system) of the server's processes: the postmaster's children, from /proc. */
function serverCpuMs() {
  const pidFile = readFileSync(join(cluster.dataDir, "postmaster.pid"), "utf8");
  const postmaster = Number(pidFile.split("\n")[0]);
  const tick = 10; // USER_HZ is 100 on Linux
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    if (Number(entry) !== postmaster && ppid !== postmaster) continue;
    total += (Number(fields[11]) + Number(fields[12])) * tick;
  }
  return total;
}

/** RUNS runs halted on an approval and answered: ready for any worker. */
async function backlog(schema) {
  const store = postgresStore({ connectionString: cluster.url }, { schema });
  const client = createClient({ model: approvalModel(0), tools: [approvalTool()], runs: store });
  const requests = [];
  for (let i = 0; i < RUNS; i++) {
    const halted = await client.run(PROMPT, { durable: true, runId: `run-${i}` });
    requests.push(halted.pending.id);
  }
  for (const id of requests) await store.answer({ id, ok: true });
  await store.close();
}

function startWorker(spec) {
  const child = fork(new URL("./worker.mjs", import.meta.url), [JSON.stringify(spec)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: args.profile ? ["--cpu-prof", `--cpu-prof-dir=${args.profile}`] : [],
  });
  const next = (type) =>
    new Promise((resolve, reject) => {
      const onMessage = (message) => {
        if (message.type !== type) return;
        child.off("message", onMessage);
        resolve(message);
      };
      child.on("message", onMessage);
      child.once("exit", (code) => reject(new Error(`worker exited ${code} before "${type}"`)));
    });
  return { child, next };
}

async function measure(workers, concurrency) {
  const schema = `w${workers}_c${concurrency}`;
  await backlog(schema);
  const spec = { url: cluster.url, schema, modelMs: MODEL_MS, concurrency, poolSize: POOL };
  const children = Array.from({ length: workers }, () => startWorker(spec));
  await Promise.all(children.map((c) => c.next("ready")));
  const reports = children.map((c) => c.next("done"));
  const load0 = loadavg()[0];
  const server0 = serverCpuMs();
  const t0 = performance.now();
  for (const c of children) c.child.send({ type: "go" });
  for (;;) {
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM ${schema}.runs WHERE state = 'done'`,
    );
    if (rows[0].n >= RUNS) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const seconds = (performance.now() - t0) / 1000;
  const serverMs = serverCpuMs() - server0;
  for (const c of children) c.child.send({ type: "stop" });
  const done = await Promise.all(reports);
  const sum = (f) => done.reduce((n, r) => n + f(r), 0);
  const statements = sum((r) => Object.values(r.statements).reduce((n, s) => n + s.statements, 0));
  const byOp = {};
  for (const r of done) {
    for (const [op, s] of Object.entries(r.statements)) {
      byOp[op] = (byOp[op] ?? 0) + s.statements / RUNS;
    }
  }
  return {
    workers,
    concurrency,
    statementsByOp: byOp,
    runs: RUNS,
    runsPerSecond: RUNS / seconds,
    ceiling: (workers * concurrency * 1000) / MODEL_MS,
    claims: sum((r) => r.claims),
    emptyClaims: sum((r) => r.empty),
    wakeups: sum((r) => r.wakeups),
    statementsPerRun: statements / RUNS,
    workerCpuMsPerRun: sum((r) => r.cpuMs) / RUNS,
    serverCpuMsPerRun: serverMs / RUNS,
    load1: [load0, loadavg()[0]],
  };
}

const results = [];
for (const concurrency of CONCURRENCY) {
  for (const workers of WORKERS) results.push(await measure(workers, concurrency));
}
const f = (n, d = 1) => n.toFixed(d);
console.log(
  `${cluster.version}, Node ${process.version}, ${RUNS} ready runs, model ${MODEL_MS} ms per turn, pool ${POOL}\n`,
);
console.log(
  "| workers × concurrency | runs/s | ceiling (slots / model turn) | claims (empty) | NOTIFY wake-ups | statements/run | worker CPU ms/run | server CPU ms/run | cores used | load 1 min |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of results) {
  console.log(
    `| ${r.workers} × ${r.concurrency} | ${f(r.runsPerSecond)} | ${f(r.ceiling, 0)} | ${r.claims} (${r.emptyClaims}) | ${r.wakeups} | ${f(r.statementsPerRun)} | ${f(r.workerCpuMsPerRun, 2)} | ${f(r.serverCpuMsPerRun, 2)} | ${f((r.runsPerSecond * (r.workerCpuMsPerRun + r.serverCpuMsPerRun)) / 1000, 2)} | ${r.load1.map((l) => f(l)).join(" / ")} |`,
  );
}
console.log(
  `\nstatements per run by store operation (${results[0].workers} × ${results[0].concurrency}): ${Object.entries(
    results[0].statementsByOp,
  )
    .map(([op, n]) => `${op} ${f(n, 2)}`)
    .join(", ")}`,
);
if (args.json) {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(
    args.json,
    `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`,
  );
}
await admin.end();
cluster.stop();
