// `pnpm bench:events`: what recording and following run events costs, on a throwaway
// PostgreSQL 15 cluster and a temp SQLite file. See bench/README.md ("Run events").
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "./common.mjs";
import { inProcessFollowers, sseFollowers } from "./followers.mjs";
import { startCluster } from "./pg.mjs";
import { render } from "./report.mjs";
import { stepCost } from "./step-cost.mjs";

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const quick = flag("--quick");
const config = {
  quick,
  stores: (value("--only") ?? "postgres,sqlite").split(","),
  rounds: quick ? 4 : 20,
  runsPerSample: quick ? 8 : 20,
  runs: Number(value("--runs") ?? (quick ? 200 : 1000)),
  sse: Number(value("--sse") ?? (quick ? 200 : 1000)),
  // SSE clients per run: more clients than runs, to see how many this machine holds.
  ssePerRun: (value("--sse-per-run") ?? (quick ? "1" : "1,4")).split(",").map(Number),
  light: quick ? 20 : 50,
  workers: 2,
  steps: 5,
  toolMs: 20,
  // Connections of each process's PostgreSQL pool (the store's default is 10).
  poolSize: Number(value("--pool") ?? 10),
};
const log = (line) => console.log(line);
if (typeof globalThis.gc !== "function")
  log("note: run with node --expose-gc for settled memory figures");

const machine = {
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  memGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  date: new Date().toISOString(),
  loadStart: loadavg()[0],
};
const results = { machine, config, stores: {} };

async function measure(name, spec) {
  const store = await openStore(spec, { poolSize: config.poolSize });
  try {
    if (typeof store.appendEvents !== "function") {
      log(`${name}: this store records no run events (no appendEvents): skipped`);
      return { skipped: "the store has no appendEvents (run events not implemented)" };
    }
    const out = {};
    log(`${name}: cost per durable step, events on vs off (${config.rounds} rounds)`);
    out.stepCost = await stepCost(store, {
      rounds: config.rounds,
      runsPerSample: config.runsPerSample,
      log,
    });
    log(
      `${name}: ${config.runs} concurrent runs, in-process followers, ${config.workers} worker processes`,
    );
    out.inProcess = await inProcessFollowers(store, spec, { ...config, runs: config.runs });
    log(
      `  ${Math.round(out.inProcess.eventsPerSecond)} events/s, tool_result p50 ${out.inProcess.latency.toolResult.p50.toFixed(1)} ms p99 ${out.inProcess.latency.toolResult.p99.toFixed(1)} ms`,
    );
    log(`${name}: ${config.light} concurrent runs (light load), in-process followers`);
    out.light = await inProcessFollowers(store, spec, { ...config, runs: config.light });
    log(
      `  tool_result p50 ${out.light.latency.toolResult.p50.toFixed(1)} ms p99 ${out.light.latency.toolResult.p99.toFixed(1)} ms`,
    );
    out.sse = [];
    for (const perRun of config.ssePerRun) {
      log(
        `${name}: ${config.sse} concurrent runs, ${config.sse * perRun} SSE clients over @toolnexus/web`,
      );
      const r = await sseFollowers(store, spec, { ...config, runs: config.sse, ssePerRun: perRun });
      log(
        `  ${Math.round(r.eventsPerSecond)} events/s, tool_result p50 ${r.latency.toolResult.p50.toFixed(1)} ms p99 ${r.latency.toolResult.p99.toFixed(1)} ms`,
      );
      out.sse.push(r);
    }
    return out;
  } finally {
    await store.close?.();
  }
}

const started = Date.now();
if (config.stores.includes("postgres")) {
  const cluster = await startCluster();
  try {
    machine.postgres = cluster.version;
    log(`PostgreSQL: ${cluster.version} (fsync off)`);
    results.stores.postgres = await measure("postgres", {
      kind: "postgres",
      url: cluster.url,
      schema: "bench",
    });
  } finally {
    cluster.stop();
  }
}
if (config.stores.includes("sqlite")) {
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-bench-sqlite-"));
  try {
    results.stores.sqlite = await measure("sqlite", {
      kind: "sqlite",
      path: join(dir, "bench.db"),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
machine.loadEnd = loadavg()[0];
machine.seconds = Math.round((Date.now() - started) / 1000);

const out = fileURLToPath(new URL("../results/", import.meta.url));
mkdirSync(out, { recursive: true });
const base =
  quick ||
  args.includes("--only") ||
  args.includes("--runs") ||
  args.includes("--sse") ||
  args.includes("--sse-per-run") ||
  args.includes("--pool")
    ? "events-partial"
    : "events";
writeFileSync(join(out, `${base}.json`), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(out, `${base}.md`), render(results));
log(`wrote results/${base}.md and .json (${machine.seconds} s)`);
